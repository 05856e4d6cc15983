"""Every products configuration over the `food` requests, through one scoring function.

Configurations (issue 6): ``bm25`` (any word over names, brand and description, no rules), ``knn``
(vectors only), ``hybrid_rrf`` (bm25 + knn top 100s, k = 60, equal weights), ``bm25_rules`` and
``hybrid_rrf_rules`` (the same inside the hard rules), ``recall`` (smart recall, fused order, no
judge), ``smart`` (recall + the rules judge). Baselines are what a standard setup ships: no rules,
no judge, no not-sold answer.

A product is *right* for a request when its kind is one of the request's kinds and it keeps the
request's rules as the set's author wrote them (for a code: it is that product). Figures: right
first, in top 3, recall (right products among the first 40 the ranking saw, over min(right, 40)),
dropped (requests whose top 3 holds a product breaking a stated claim or avoid-rule), stand-in as
match (a stand-in kind shown first and called a match), not sold said / due, p50 and p90 ms.
`olai-tui eval products --dataset food` runs them through engines/eval/runner.py (cache, progress).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from engines.eval.food.load import WORDS, FoodRequest, load_food_requests
from engines.eval.runner import Outcome, Ranker, Request
from engines.eval.suite import Suite, Verdict
from engines.fusion import rrf
from engines.lexical import top_of
from engines.products.catalogue import Product, normal_code
from engines.products.engine import ProductsEngine

CONFIGS = ("bm25", "knn", "hybrid_rrf", "bm25_rules", "hybrid_rrf_rules", "recall", "smart")
COLUMNS = ("right_first", "in_top3", "recall", "dropped", "standin_as_match", "not_sold_said", "p50_ms",
           "p90_ms")
HTTP = "smart_http"  # smart with the configured HTTP judge: run by default only when an endpoint is configured
SEEN = 40
FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "products"


def keeps_rules(p: Product, food: FoodRequest) -> bool:
    if any(c not in p.claims for c in food.claims):
        return False
    return all(a not in p.allergens and a not in p.traces and p.allergen_data for a in food.avoid)


def is_right(p: Product, food: FoodRequest) -> bool:
    if food.code:
        return any(normal_code(c) == normal_code(food.code) for c in p.codes)
    return bool(p.kinds) and p.kinds[0] in food.kinds and keeps_rules(p, food)


class Configs:
    def __init__(self, engine: ProductsEngine) -> None:
        self.e = engine
        self.last_path: str | None = None  # smart: "judged", or "fused" when the judge failed and fusion answered

    def _bm25(self, text: str) -> np.ndarray:
        return self.e.baseline_scores("bm25", text)

    def _knn(self, text: str) -> np.ndarray:
        return self.e.baseline_scores("knn", text)

    def run(self, name: str, text: str) -> tuple[list[int], list[str] | None, list[str] | None]:
        """(ranked positions, labels or None, flags or None)."""
        rules = name.endswith("_rules")
        allowed = self.e.index.masks.allowed(self.e.understand(text)) if rules else np.ones(len(self.e.products), bool)
        if name.startswith("bm25"):
            return [i for i, _ in top_of(np.where(allowed, self._bm25(text), 0), 100)], None, None
        if name == "knn":
            return [i for i, _ in top_of(self._knn(text) + 1.0, 100)], None, None
        if name.startswith("hybrid_rrf"):
            lists = {"bm25": [str(i) for i, _ in top_of(np.where(allowed, self._bm25(text), 0), 100)],
                     "knn": [str(i) for i, _ in top_of(np.where(allowed, self._knn(text) + 1.0, 0), 100)]}
            return [int(d) for d, _, _ in rrf(lists, k=60)], None, None
        tiers = "exact,recall" if name == "recall" else None
        answer = self.e.answer(text, limit=SEEN, tiers=tiers)
        ids = [self.e.catalogue.by_id[h.id] for h in answer.hits]
        labels = [h.extras.get("label") for h in answer.hits] if name.startswith("smart") else None
        self.last_path = answer.extras.get("path")
        return ids, labels, answer.extras.get("flags", [])


def score(engine: ProductsEngine, food: FoodRequest, ranked: list[int], labels, flags) -> dict:
    products = [engine.products[i] for i in ranked]
    right = [is_right(p, food) for p in products]
    total_right = sum(is_right(p, food) for p in engine.products)
    said_not_sold = bool(flags and "not_sold" in flags)
    shown_as_match = [i for i, lab in enumerate(labels or ["exact"] * len(products)) if lab in ("exact", "variant")]
    if food.not_sold:
        first_ok = said_not_sold or not products
        top3_ok = first_ok
    else:
        first = shown_as_match[0] if shown_as_match else None
        first_ok = first == 0 and right[0] if labels is not None else bool(right[:1] and right[0])
        top3_ok = any(right[i] for i in (shown_as_match if labels is not None else range(len(products))) if i < 3)
    dropped = any(not keeps_rules(p, food) for p in products[:3]) if (food.claims or food.avoid) else False
    top = products[0] if products else None
    standin_first = bool(top and top.kinds and top.kinds[0] in food.standins and top.kinds[0] not in food.kinds
                         and (labels is None or labels[0] in ("exact", "variant")))
    return {"right_first": first_ok, "in_top3": top3_ok, "dropped": dropped, "standin_as_match": standin_first,
            "recall": (sum(right[:SEEN]) / min(total_right, SEEN)) if total_right else None,
            "not_sold_said": food.not_sold and said_not_sold, "not_sold_due": food.not_sold}


def requests(split: str = "both", name: str = "food") -> list[Request]:
    """The food set (or food_words, all dev) as the runner's requests: the food request rides along for the scoring."""
    asked = load_food_requests("both") if name == "food" else load_food_requests("both", WORDS, all_dev=True)
    return [Request(f"{name}-{n}", food.text, {}, food.split, spec=food)
            for n, food in enumerate(asked, start=1) if split in ("both", food.split)]


class FoodConfigs:
    """The products engine over the default catalogue, built once on first use, and the food scoring."""

    def __init__(self, corpus: Path = FIXTURE, progress=None) -> None:
        self.corpus = corpus
        self.progress = progress
        self._engine: ProductsEngine | None = None
        self._http_engine: ProductsEngine | None = None
        self.judge_fell_back: dict[str, int] = {}  # smart_http: answers the fused order gave, by reason

    def engine(self) -> ProductsEngine:
        if self._engine is None:
            self._engine = ProductsEngine(self.corpus, wait_for_index=True)
            self._engine.build_index(progress=self.progress)
        return self._engine

    def salt(self) -> str:
        """The catalogue's own bytes: a changed catalogue measures again."""
        import hashlib

        digest = hashlib.sha256()
        for path in sorted(p for p in self.corpus.rglob("*") if p.is_file()):
            digest.update(path.name.encode() + path.read_bytes())
        from engines.products.http_judge import judge_from_config

        judge, _ = judge_from_config()  # another endpoint or model: smart_http measures again
        if judge is not None:
            digest.update(f"{judge.url}|{judge.model}".encode())
            judge.close()
        return digest.hexdigest()[:16]

    def factories(self) -> dict[str, Callable[[], Ranker]]:
        return {name: (lambda name=name: self._ranker(name)) for name in CONFIGS + (HTTP,)}

    def http_engine(self) -> ProductsEngine:
        """The same catalogue judged by the endpoint in the user's config (text leaves only because it is there)."""
        if self._http_engine is None:
            from engines.locations import config_path
            from engines.products.http_judge import judge_from_config

            judge, problem = judge_from_config()
            if judge is None:
                raise RuntimeError(f"{HTTP}: {problem or 'no judge endpoint configured'} "
                                   f"(to enable: [products.judge] url and model in {config_path()})")
            self._http_engine = ProductsEngine(self.corpus, judge=judge, wait_for_index=True)
            self._http_engine.build_index(progress=self.progress)
        return self._http_engine

    def _ranker(self, name: str) -> Ranker:
        engine = self.http_engine() if name == HTTP else self.engine()
        configs = Configs(engine)

        def rank(text: str):
            positions, labels, flags = configs.run(name, text)
            if name == HTTP and configs.last_path != "judged":
                why = str(configs.last_path)
                self.judge_fell_back[why] = self.judge_fell_back.get(why, 0) + 1
            extras: dict = {}
            if labels is not None:
                extras["labels"] = labels
            if flags:
                extras["flags"] = flags
            return [engine.products[i].id for i in positions], extras

        return rank

    def score(self, outcome: Outcome, request: Request) -> dict:
        engine = self.engine()
        food: FoodRequest = request.spec
        positions = [engine.catalogue.by_id[i] for i in outcome.ranked if i in engine.catalogue.by_id]
        row = score(engine, food, positions, outcome.extras.get("labels"), outcome.extras.get("flags"))
        out = {k: (float(v) if isinstance(v, bool) else v) for k, v in row.items()}
        if food.not_sold:
            out["standin_as_match"] = None  # counted over what the catalogue sells
        return out

    def close(self) -> None:
        for engine in (self._engine, self._http_engine):
            if engine is not None:
                engine.close()


def http_judge_configured() -> bool:
    from engines.products.http_judge import judge_from_config

    judge, _ = judge_from_config()
    if judge is not None and hasattr(judge, "close"):
        judge.close()
    return judge is not None


def food_suite(progress, name: str = "food") -> Suite:
    asked = requests("both", name)
    setup = FoodConfigs(progress=progress)

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        engine = setup.engine()
        food = request.spec
        labels = extras.get("labels") or []
        out = []
        for n, product_id in enumerate(ranked):
            p = engine.products[engine.catalogue.by_id[product_id]]
            broke = bool(food.claims or food.avoid) and not keeps_rules(p, food)
            out.append(Verdict(p.id, p.name, None, is_right(p, food), broke, labels[n] if n < len(labels) else None))
        return out

    return Suite("products", name, asked, setup.factories(), COLUMNS, verdicts,
                 score_outcome=setup.score, summed=frozenset({"dropped", "standin_as_match", "not_sold_said",
                                                             "not_sold_due"}),
                 percent=frozenset({"right_first", "in_top3", "recall"}), salt=setup.salt(), close=setup.close,
                 setup=setup)
