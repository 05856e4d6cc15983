"""The products engine: read the words, hard rules first, wide recall fused, a judge on top.

``search`` yields three batches: ``exact`` (instant: a product code said outright, or products whose
name is the words said; never waits on a model), ``recall`` (every source inside the hard rules,
fused by reciprocal rank), ``judge`` (the judge's labels and the final order). The recall and judge
batches *replace* the rows shown so far (``Batch.replaces``): products are the one
pane where a later tier may reorder. ``answer`` folds a stream that way; the answer says which path
ordered it (``path``: judged | fused, with ``reason``) and what it must tell the buyer (``flags``).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from engines.answer import RESEMBLANCE, Answer, Batch, Hit, TierReport, collect
from engines.tiers import choose_tiers, recall_switched_off
from engines.embed.base import Embedder
from engines.lexical import fold
from engines.products.backends.router import memory_router
from engines.products.catalogue import Catalogue, CatalogueError, Product, load_catalogue
from engines.products.judge import Judge, JudgeFailed, Judgement, RulesJudge, check_labels
from engines.products.knowledge import KnowledgeMap
from engines.products.order import flags_for, order
from engines.products.recall import SOURCES, Recall, RecallIndex, product_text
from engines.products.request import Request, RequestReader
from engines.products.rules import judge_rules
from engines.products.vectors import ProductVectors
from engines.products.vocabulary import ALLERGENS, CLAIMS

ENGINE = "products"
EXACT, RECALL, JUDGE = "exact", "recall", "judge"
TIERS = (EXACT, RECALL, JUDGE)
JUDGE_POOL = 40  # fused candidates the judge sees; the rules judge labels 40 in ~0.3 ms
JUDGE_DEADLINE_S = 0.8



def parse_tiers(tiers: str | Iterable[str] | None) -> tuple[str, ...]:
    """The tiers asked for, validated (None: all). Raises ValueError naming an unknown tier."""
    return choose_tiers(tiers, TIERS, TIERS, ENGINE)


class ProductsEngine:
    name = ENGINE
    tiers = TIERS

    def __init__(self, corpus: str | os.PathLike | None = None, *, catalogue: Catalogue | None = None,
                 knowledge: KnowledgeMap | None = None, embedder: Embedder | None = None,
                 judge: Judge | None = None, cache_dir: str | None = None, wait_for_index: bool = False,
                 recall_router=None) -> None:
        """A catalogue file or folder (CatalogueError when unreadable), or a ``catalogue`` already read.

        ``recall_router``: which backend answers recall (engines/products/backends/); memory by default."""
        root = Path(corpus) if corpus is not None else None
        self.knowledge = knowledge or (KnowledgeMap.for_catalogue(root) if root else KnowledgeMap.load())
        self.catalogue = catalogue if catalogue is not None else load_catalogue(root, self.knowledge)
        self.scope = str(root.resolve()) if root else f"catalogue:{len(self.catalogue)}"
        self.problems = self.catalogue.problems
        started = time.perf_counter()
        self.index = RecallIndex(self.catalogue, self.knowledge)
        self.build_ms = round((time.perf_counter() - started) * 1000, 1)
        self.reader = RequestReader(self.knowledge, self.catalogue.brands, set(self.index.vocabulary))
        self.rules_judge = RulesJudge(self.knowledge)
        self.judge = judge or self.rules_judge
        self._embedder = embedder
        self._cache_dir = cache_dir
        self.wait_for_index = wait_for_index
        self._vectors: ProductVectors | None = None
        self._lock = threading.Lock()
        self._names: dict[str, list[int]] | None = None  # folded name -> positions (_by_name)
        self.router = recall_router or memory_router()
        self._by_name()

    @property
    def products(self) -> list[Product]:
        return self.catalogue.products

    # -- the vectors source ----------------------------------------------------------------------
    @property
    def vectors(self) -> ProductVectors:
        with self._lock:
            if self._vectors is None:
                if self._embedder is None:
                    from engines.embed.llama import LlamaEmbedder  # lazily: cheap use never loads the model

                    self._embedder = LlamaEmbedder()
                texts = [product_text(p, self.knowledge) for p in self.products]
                self._vectors = ProductVectors(self._embedder, texts, self.scope, self._cache_dir, self.wait_for_index)
            return self._vectors

    def build_index(self, progress=None):
        return self.vectors.build(progress=progress)

    def start_indexing(self) -> None:
        self.vectors.start()

    def close(self) -> None:
        self.router.close()
        if self._vectors is not None:
            self._vectors.close()
        closer = getattr(self.judge, "close", None)
        if closer is not None:
            closer()

    # -- searching -------------------------------------------------------------------------------
    def read(self, query: str) -> Request:
        return self.reader.read(query)

    def recall(self, request: Request, sources: Sequence[str] = SOURCES) -> Recall:
        use_vectors = "vectors" in sources and not recall_switched_off()
        return self.index.recall(request, self.vectors if use_vectors else None, tuple(sources))

    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None,
               sources: Sequence[str] = SOURCES) -> Iterator[Batch]:
        wanted = parse_tiers(tiers)
        started = time.perf_counter()
        request = self.read(query)
        understood = {"understood": request.understood()}
        allowed = self.index.masks.allowed(request)
        if EXACT in wanted:
            rows = self._exact_rows(request, allowed, limit)
            hits = [self._hit(request, pos, EXACT, 1.0) for pos in rows]
            yield Batch(hits, [TierReport(EXACT, "answered" if hits else "empty", _ms(started), len(hits))],
                        total=len(hits), extras=understood)
        else:
            yield Batch([], [TierReport(EXACT, "off", None, 0, enable="add exact to --tiers")], extras=understood)
        if RECALL not in wanted:
            yield Batch([], [TierReport(RECALL, "off", None, 0, enable="add recall to --tiers"),
                             TierReport(JUDGE, "off", None, 0, enable="add recall and judge to --tiers")],
                        extras={"path": "exact", "reason": "recall is off", "flags": []})
            return
        if request.empty:
            why = "nothing to search for" if not query.strip() else "only words that name nothing (stopwords)"
            yield Batch([], [TierReport(RECALL, "skipped", None, 0, reason=why),
                             TierReport(JUDGE, "skipped", None, 0, reason=why)],
                        extras={"path": "exact", "reason": why, "flags": []})
            return
        t = time.perf_counter()
        found, backend, fallback = self.router.recall(self, request, tuple(sources), allowed)
        recall_ms = _ms(t)
        if found.corrections:
            request.notes.extend(f"also looked for '{w}' as '{c}'" for w, c in found.corrections.items())
            understood = {"understood": request.understood()}
        hits = [self._hit(request, pos, RECALL, score, ranks) for pos, score, ranks in found.fused[:limit]]
        status = "answered" if hits else "empty"
        if found.status.get("vectors") == "indexing":
            status = "indexing"
        report = TierReport(RECALL, status, recall_ms, len(hits), reason=self._source_note(found))
        yield Batch(hits, [report], total=len(found.fused),
                    replaces=True, extras={"sources": self._sources_json(found), **understood,
                                           "recall_backend": backend, "recall_fallback": fallback})
        if JUDGE not in wanted:
            labels = [j.label for j in self._rules_labels(request, found)]
            yield Batch(hits, [TierReport(JUDGE, "off", None, 0, enable="add judge to --tiers")],
                        replaces=True, extras={"path": "fused", "reason": "the judge is off",
                                "flags": flags_for(request, labels, judged=False)})
            return
        yield self._judged(request, found, limit)

    def _vectors_on(self, sources: Sequence[str]) -> bool:
        return "vectors" in sources and not recall_switched_off()

    def _exact_rows(self, request: Request, allowed, limit: int) -> list[int]:
        if request.code:
            pos = self.catalogue.find_code(request.code)
            return [pos] if pos is not None and allowed[pos] else []
        said = " ".join(fold(request.text).split())
        if len(said) < 3:
            return []
        rows = [i for i in self._by_name().get(said, ()) if allowed[i]]
        return rows[:limit]

    def _by_name(self) -> dict[str, list[int]]:
        """Folded product name -> catalogue positions, built once (folding every name per request
        cost ~50 ms a request on Icecat's 19,406 products)."""
        with self._lock:
            if self._names is None:
                names: dict[str, list[int]] = {}
                for i, p in enumerate(self.products):
                    for n in dict.fromkeys(" ".join(fold(n).split()) for n in p.all_names()):
                        names.setdefault(n, []).append(i)
                self._names = names
            return self._names

    def _rules_labels(self, request: Request, found: Recall) -> list[Judgement]:
        pool = [self.products[pos] for pos, _, _ in found.fused[:JUDGE_POOL]]
        return self.rules_judge.judge(request, pool)

    def _judged(self, request: Request, found: Recall, limit: int) -> Batch:
        t = time.perf_counter()
        positions = [pos for pos, _, _ in found.fused[:JUDGE_POOL]]
        pool = [self.products[pos] for pos in positions]
        path, reason = "judged", f"ordered by the {self.judge.name} judge"
        try:
            judgements = self.judge.judge(request, pool, JUDGE_DEADLINE_S)
            judgements = check_labels(request, pool, judgements, self.knowledge)
        except JudgeFailed as exc:
            path, reason = "fused", f"{self.judge.name} judge: {exc.reason}; the fused ranking answers"
            judgements = None
        judge_ms = _ms(t)
        ranks = {pos: (score, r) for pos, score, r in found.fused}
        if judgements is None:
            labels = [j.label for j in self._rules_labels(request, found)]
            hits = [self._hit(request, pos, RECALL, ranks[pos][0], ranks[pos][1]) for pos in positions[:limit]]
            report = TierReport(JUDGE, "failed" if "late" not in reason else "late", judge_ms, 0, reason=reason)
            return Batch(hits, [report], replaces=True, extras={"path": path, "reason": reason,
                                                 "flags": flags_for(request, labels, judged=False)})
        placed = order(request, self.products, positions, judgements)
        hits = []
        for item in placed[:limit]:
            hit = self._hit(request, item.position, JUDGE, item.score, ranks[item.position][1])
            hit.extras["label"] = item.judgement.label
            hit.extras["why"] = item.judgement.why
            hits.append(hit)
        flags = flags_for(request, [j.label for j in judgements], judged=True)
        report = TierReport(JUDGE, "answered" if hits else "empty", judge_ms, len(hits))
        return Batch(hits, [report], total=len(placed),
                     replaces=True, extras={"path": path, "reason": reason, "flags": flags})

    def _hit(self, request: Request, pos: int, tier: str, score: float, ranks: dict | None = None) -> Hit:
        p = self.products[pos]
        verdict = judge_rules(p, request, self.knowledge)
        ranks = dict(ranks or {})
        return Hit(
            id=p.id, title=p.title, where=p.source or p.id, tier=tier, score=round(float(score), 6),
            marker=RESEMBLANCE if ranks and set(ranks) == {"vectors"} else "",
            extras={"label": None, "kind": p.kinds[0] if p.kinds else None, "brand": p.brand,
                    "quantity": str(p.quantity) if p.quantity else (p.quantity_text or None),
                    "claims": {CLAIMS[c]: e for c, e in p.claims.items() if c in CLAIMS},
                    "allergens": sorted(ALLERGENS[a] for a in p.allergens),
                    "traces": sorted(ALLERGENS[a] for a in p.traces), "allergen_data": p.allergen_data,
                    "checks": verdict.checks, "sources": ranks, "codes": list(p.codes)})

    @staticmethod
    def _source_note(found: Recall) -> str | None:
        odd = [f"{name}: {state}" + (f" ({found.reasons[name]})" if found.reasons.get(name) else "")
               for name, state in found.status.items() if state not in ("answered", "empty")]
        return "; ".join(odd) or None

    @staticmethod
    def _sources_json(found: Recall) -> dict:
        return {name: {"status": found.status.get(name), "ms": found.ms.get(name), "count": len(ids),
                       **({"reason": found.reasons[name]} if name in found.reasons else {})}
                for name, ids in found.lists.items()}

    def explain(self, query: str, k: int = 10, sources: Sequence[str] = SOURCES) -> dict:
        """Each source's own list (product ids, best first) and the fused one: why a row is there."""
        request = self.read(query)
        found = self.index.recall(request, self.vectors if self._vectors_on(sources) else None, tuple(sources))
        ids = lambda positions: [self.products[i].id for i in positions[:k]]  # noqa: E731
        return {"understood": request.understood(), "status": found.status, "ms": found.ms,
                "sources": {name: ids(lst) for name, lst in found.lists.items()},
                "fused": ids([pos for pos, _, _ in found.fused]), "corrections": found.corrections}

    def answer(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None,
               sources: Sequence[str] = SOURCES) -> Answer:
        return collect_products(query, self.search(query, limit, tiers, sources))


def collect_products(query: str, batches: Iterable[Batch]) -> Answer:
    """Fold a products stream, with the extras every products answer carries."""
    answer = collect(ENGINE, query, batches)
    answer.extras.setdefault("path", "exact")
    answer.extras.setdefault("reason", None)
    answer.extras.setdefault("flags", [])
    answer.extras.setdefault("recall_backend", None)  # None: recall did not run (off, or nothing to search)
    answer.extras.setdefault("recall_fallback", None)
    return answer


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


__all__ = ["ProductsEngine", "TIERS", "parse_tiers", "collect_products", "CatalogueError"]
