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
from typing import Iterable, Iterator, Sequence

from engines.answer import RESEMBLANCE, Answer, Batch, Hit, TierReport, collect, ms_since
from engines.bounded_read import bounded
from engines.contract import Engine, EngineStatus, Passage, Ranked, model_tier_report, ranked_by_search
from engines.tiers import recall_switched_off
from engines.embed.background_index import LazyVectors
from engines.embed.base import Embedder
from engines.knobs import value_of
from engines.lexical import fold, top_of
from engines.products.knowledge import words
from engines.products.vocabulary import STOPWORDS
from engines.products.backends.router import memory_router
from engines.products.catalogue import Catalogue, CatalogueError, Product, catalogue_root, scope_of, load_catalogue
from engines.products.judge import Judge, JudgeFailed, Judgement, RulesJudge, check_labels
from engines.products.knobs import KNOBS
from engines.products.knowledge import KnowledgeMap
from engines.products.live import LiveCatalogue
from engines.products.not_sold import checked
from engines.products.order import JUDGE_POOL, flags_for, order  # JUDGE_POOL: fused rows the judge sees
from engines.products.presenting import ProductsPresenting, card_fields
from engines.products.recall import SOURCES, Recall, RecallIndex, product_text
from engines.products.accounting import account
from engines.products.distinguishing import carrying_rows, check_words, kind_words, led_by_other_source
from engines.products.elsewhere import lifted_elsewhere
from engines.products.head_kind import ends_on_head
from engines.products.languages import warm_in_background
from engines.products.request import Request, RequestReader
from engines.products.rules import judge_rules
from engines.products.vectors import ProductVectors
from engines.products.vocabulary import ALLERGENS, CLAIMS

ENGINE = "products"
EXACT, RECALL, JUDGE = "exact", "recall", "judge"
TIERS = (EXACT, RECALL, JUDGE)
JUDGE_DEADLINE_S = 0.8
# What a standard setup ships, as rankings beside the tiers (no rules, no judge, no not-sold answer):
# the evaluation's baselines and the compare screen's columns read them through rank().
BASELINES = ("bm25", "knn", "hybrid_rrf")


class ProductsEngine(LiveCatalogue, LazyVectors, ProductsPresenting, Engine):  # LiveCatalogue: watch() follows a catalogue on disk
    name = ENGINE
    tiers = TIERS
    knobs = KNOBS  # engines/products/knobs.py: what a person may set per corpus
    default_tiers = TIERS
    evidence_tiers = (EXACT,)
    # No tier is a model alone: recall's vectors source is (recall answers without it, OLAI_RECALL=off
    # turns it off), and the judge is the offline rules judge unless an HTTP one is configured.
    model_tiers = ()
    item_noun = "products"
    rankings = TIERS + BASELINES
    reorders = True  # the judge relabels and reorders what recall found; the answer's path says so

    def __init__(self, corpus: str | os.PathLike | None = None, *, catalogue: Catalogue | None = None,
                 knowledge: KnowledgeMap | None = None, embedder: Embedder | None = None,
                 judge: Judge | None = None, cache_dir: str | None = None, wait_for_index: bool = False,
                 recall_router=None) -> None:
        """A catalogue file or folder (CatalogueError when unreadable), or a ``catalogue`` already read.

        ``recall_router``: which backend answers recall (engines/products/backends/); memory by default."""
        warm_in_background()  # simplemma's import overlaps the catalogue's load (languages.py)
        self.root = root = catalogue_root(corpus)  # a file or folder; None for a database URL (live.py watches it)
        self.knowledge = knowledge or (KnowledgeMap.for_catalogue(root) if root else KnowledgeMap.load())
        self.catalogue = catalogue if catalogue is not None else load_catalogue(root or corpus, self.knowledge)
        self.scope = scope_of(corpus, root, self.catalogue)
        self.problems = self.catalogue.problems
        started = time.perf_counter()
        self.index = RecallIndex(self.catalogue, self.knowledge)
        self.build_ms = round((time.perf_counter() - started) * 1000, 1)
        self.reader = RequestReader(self.knowledge, self.catalogue.brands, set(self.index.vocabulary))
        self.rules_judge = RulesJudge(self.knowledge, self.reader.label_parts)
        self.judge = judge or self.rules_judge
        self.kind_names = kind_words(self.knowledge)  # words naming a kind alone: never distinguishing
        self._embedder = embedder
        self._cache_dir = cache_dir
        self.wait_for_index = wait_for_index
        self._vectors: ProductVectors | None = None
        self._lock = threading.Lock()
        self._names: dict[str, list[int]] | None = None  # folded name -> positions (_by_name)
        self._kinds: dict[str, list[int]] | None = None  # kind -> positions (_by_kind)
        self.config_notices: list[str] = []
        self.router = recall_router or memory_router()
        self._by_name()

    @property
    def products(self) -> list[Product]:
        return self.catalogue.products

    # -- the vectors source (made on first use: engines/embed/background_index.py) ---------------
    def _new_index(self) -> ProductVectors:
        texts = [product_text(p, self.knowledge) for p in self.products]
        return ProductVectors(self.embedder, texts, self.scope, self._cache_dir, self.wait_for_index,
                              self.waiting("embedding products"))

    def close(self) -> None:
        self.router.close()
        self.stop_indexing()
        closer = getattr(self.judge, "close", None)
        if closer is not None:
            closer()

    # -- the engine contract (engines/contract.py) -----------------------------------------------
    def items(self) -> int:
        return len(self.products)

    def listing(self):
        return ((p.id, p.title, p.source or p.id) for p in self.products)

    @property
    def corpus_label(self) -> str:
        return self.scope

    def check_tier(self, tier: str) -> None:
        if tier not in self.rankings:
            raise ValueError(f"unknown ranking {tier!r} for products (choose from {', '.join(self.rankings)})")

    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        """A tier's own ranking (judge: the judge's order of recall's pool), or a baseline: ``bm25`` (any
        word over names, brand and description), ``knn`` (vectors alone), ``hybrid_rrf`` (the two top
        100s fused, k = 60): no rules, no judge."""
        self.check_tier(tier)
        if tier == JUDGE:
            answer = self.answer(query, limit=depth, tiers=(RECALL, JUDGE))
            return [Ranked(h.id, float(h.score)) for h in answer.hits]
        if tier in TIERS:
            return ranked_by_search(self, tier, query, depth)
        if tier == "hybrid_rrf":
            from engines.fusion import rrf

            legs = {name: [r.id for r in self.rank(name, query, 100)] for name in ("bm25", "knn")}
            return [Ranked(doc, score) for doc, score, _ in rrf(legs, k=60)][:depth]
        scores = self.baseline_scores(tier, query)
        floor = 0.0 if tier == "bm25" else -1.0  # bm25: a product holding none of the words is no answer
        return [Ranked(self.products[i].id, float(scores[i])) for i, _ in top_of(scores - floor, depth)]

    def baseline_scores(self, name: str, query: str):
        """One score per product: plain BM25 over the words said, or the cosine to the query (-1 where
        a product has no vector). The vectors are built first: a baseline ranks the whole catalogue."""
        import numpy as np

        if name == "bm25":
            return self.index.bm25.scores([w for w in words(query) if w not in STOPWORDS])
        vectors = self.vectors
        vectors.build()
        rows, cosine = vectors.cosines(vectors.embedder.embed([query], "query")[0])
        out = np.full(len(self.products), -1.0, np.float32)
        out[rows] = cosine
        return out

    def read(self, item_id: str) -> Passage:
        product = self.products[self.catalogue.by_id[item_id]]  # KeyError: not in the catalogue
        lines = [product.title]
        lines += [f"{label}: {value}" for label, value in (
            ("brand", product.brand), ("quantity", str(product.quantity) if product.quantity else product.quantity_text),
            ("kind", ", ".join(product.kinds)), ("claims", ", ".join(CLAIMS.get(c, c) for c in product.claims)),
            ("allergens", ", ".join(sorted(ALLERGENS.get(a, a) for a in product.allergens))),
            ("may contain", ", ".join(sorted(ALLERGENS.get(a, a) for a in product.traces))),
            ("codes", ", ".join(product.codes)), ("description", product.description),
            ("ingredients", product.ingredients)) if value]
        text, cut = bounded("\n".join(lines))
        path, _, line = (product.source or "").rpartition(":")
        return Passage(product.id, product.title, product.source or product.id, text, path or None,
                       int(line) if line.isdigit() else None, int(line) if line.isdigit() else None, cut,
                       fields=card_fields(product))

    def status(self) -> EngineStatus:
        off = recall_switched_off()
        state = self._vectors.state() if self._vectors is not None else None
        vectors = model_tier_report("vectors", state, off)
        recall = TierReport(RECALL, "answered", count=len(self.products),
                            reason=None if vectors.status == "answered" else
                            f"the vectors source: {vectors.status}" + (f" ({vectors.reason})" if vectors.reason else ""))
        judge = TierReport(JUDGE, "answered", reason=f"the {self.judge.name} judge")
        tiers = [TierReport(EXACT, "answered", count=len(self.products)), recall, judge]
        if vectors.status == "indexing":
            recall.status, recall.done, recall.of = "indexing", vectors.done, vectors.of
        return EngineStatus(self.name, self.scope, len(self.products), tiers, self.notices())

    def notices(self) -> list[str]:  # a config problem (judge, recall backend); the vector cache's; the model's
        return list(self.config_notices) + self.vector_notices()

    # -- searching -------------------------------------------------------------------------------
    def collect(self, query: str, batches) -> Answer:
        return collect_products(query, batches)

    def understand(self, query: str) -> Request:
        """The request as read from the words: kinds, claims, allergens to avoid, uses, brand, size."""
        request = self.reader.read(query)
        request.words = account(self.reader, request, self.kind_names, (self.products, self._by_kind()))
        return request

    def recall(self, request: Request, sources: Sequence[str] = SOURCES) -> Recall:
        use_vectors = "vectors" in sources and not recall_switched_off()
        return self.index.recall(request, self.vectors if use_vectors else None, tuple(sources))

    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None,
               sources: Sequence[str] = SOURCES) -> Iterator[Batch]:
        wanted = self.parse_tiers(tiers)
        started = time.perf_counter()
        request = self.understand(query)
        understood = {"understood": request.understood()}
        allowed = self.index.masks.allowed(request)
        if EXACT in wanted:
            rows = self._exact_rows(request, allowed, limit)
            hits = [self._hit(request, pos, EXACT, 1.0) for pos in rows]
            yield Batch(hits, [TierReport(EXACT, "answered" if hits else "empty", ms_since(started), len(hits))],
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
        recall_ms = ms_since(t)
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

    def _by_kind(self) -> dict[str, list[int]]:
        """Kind -> catalogue positions, built once (distinguishing.carrying_rows reads it)."""
        with self._lock:
            if self._kinds is None:
                kinds: dict[str, list[int]] = {}
                for i, p in enumerate(self.products):
                    for k in p.kinds:
                        kinds.setdefault(k, []).append(i)
                self._kinds = kinds
            return self._kinds

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
        pool = [self.products[pos] for pos, _, _ in found.fused[:value_of(ENGINE, "judge_pool", JUDGE_POOL)]]
        return self.rules_judge.judge(request, pool)

    def _judged(self, request: Request, found: Recall, limit: int) -> Batch:
        t = time.perf_counter()
        positions = [pos for pos, _, _ in found.fused[:value_of(ENGINE, "judge_pool", JUDGE_POOL)]]
        allowed = self.index.masks.allowed(request)
        positions += [p for p in carrying_rows(request, self.products, self._by_kind(), self.reader.languages,
                                               self.kind_names) if p not in positions and allowed[p]]
        pool = [self.products[pos] for pos in positions]
        path, reason = "judged", f"ordered by the {self.judge.name} judge"
        try:
            judgements = self.judge.judge(request, pool, value_of("products", "judge_deadline_s", JUDGE_DEADLINE_S))
            judgements = check_labels(request, pool, judgements, self.knowledge)
            judgements = check_words(request, pool, judgements, self.reader.languages, self.kind_names,
                                     self.reader.vocabulary, self.reader.label_parts, (self.products, self._by_kind()))
            judgements = ends_on_head(request, pool, judgements, self.knowledge, self.reader.languages)
        except JudgeFailed as exc:
            path, reason = "fused", f"{self.judge.name} judge: {exc.reason}; the fused ranking answers"
            judgements = None
        judge_ms = ms_since(t)
        ranks = {pos: (score, r) for pos, score, r in found.fused}
        ranks.update({pos: (0.0, {}) for pos in positions if pos not in ranks})  # carrying_rows' own
        if judgements is None:
            labels = [j.label for j in self._rules_labels(request, found)]
            hits = [self._hit(request, pos, RECALL, ranks[pos][0], ranks[pos][1]) for pos in positions[:limit]]
            report = TierReport(JUDGE, "failed" if "late" not in reason else "late", judge_ms, 0, reason=reason)
            return Batch(hits, [report], replaces=True, extras={"path": path, "reason": reason,
                                                 "flags": flags_for(request, labels, judged=False)})
        judgements, not_sold_why = checked(request, pool, judgements, self.reader.languages, self.knowledge,
                                           led_by_other_source(request, self.reader.languages, self.kind_names))
        if not_sold_why is not None and lifted_elsewhere(request, self, allowed, positions, judgements, ranks):
            not_sold_why = None  # a row filed under another kind is the thing said (elsewhere.py)
        placed = order(request, self.products, positions, judgements, [ranks[p][0] for p in positions])
        hits = []
        for item in placed[:limit]:
            hit = self._hit(request, item.position, JUDGE, item.score, ranks[item.position][1])
            hit.extras["label"] = item.judgement.label
            hit.extras["why"] = item.judgement.why
            hits.append(hit)
        flags = flags_for(request, [j.label for j in judgements], judged=True)
        report = TierReport(JUDGE, "answered" if hits else "empty", judge_ms, len(hits))
        extras = {"path": path, "reason": reason, "flags": flags}
        if "not_sold" in flags and not_sold_why is not None:
            extras["not_sold"] = not_sold_why  # what was looked for, what recall found and why each is not it
        return Batch(hits, [report], total=len(placed), replaces=True, extras=extras)

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
        request = self.understand(query)
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


__all__ = ["ProductsEngine", "TIERS", "collect_products", "CatalogueError"]
