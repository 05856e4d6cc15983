"""The products configurations over a request set judged by product id (``fineli``, ``food_fisv``).

The configurations are the food set's (engines/eval/food/configs.py: ``bm25``, ``knn``, ``hybrid_rrf``,
``recall``, ``smart`` and the rest), run over another catalogue. A product is *right* when its id is
one the request lists and it keeps the request's rules (a claim carried by its data, an allergen to
avoid neither declared nor traced, and allergen data at all). Figures: right first and in top 3 (as
the food set counts them: for ``smart`` only rows it labels a match count), the same per language
(``right_first_fi`` ... ``in_top3_mixed``), and ``dropped``: requests whose top 3 holds a product
that breaks a stated rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from engines.eval.fineli.load import DEV, HELDOUT, LANGS, IdRequest, load_id_requests
from engines.eval.food.configs import CONFIGS, SEEN, Configs
from engines.eval.runner import Outcome, Ranker, Request
from engines.eval.suite import Suite, Verdict, need
from engines.locations import fixtures_dir
from engines.products.catalogue import Product, normal_code
from engines.products.engine import ProductsEngine

COLUMNS = ("right_first", "in_top3", "dropped", *(f"{m}_{lang}" for lang in LANGS for m in ("right_first", "in_top3")),
           "p50_ms", "p90_ms")


def keeps_rules(p: Product, spec: IdRequest) -> bool:
    if any(c not in p.claims for c in spec.claims):
        return False
    return all(a not in p.allergens and a not in p.traces and p.allergen_data for a in spec.avoid)


def is_right(p: Product, spec: IdRequest) -> bool:
    named = p.id in spec.right or any(normal_code(c) in {normal_code(r) for r in spec.right} for c in p.codes)
    return named and keeps_rules(p, spec)


def first_and_top3(right: list[bool], labels) -> tuple[bool, bool]:
    """Right first, and right in the top 3; with a judge's labels (smart) only what it calls a match
    counts as an answer."""
    if labels is not None:
        shown = [i for i, lab in enumerate(labels) if lab in ("exact", "variant")]
        return bool(shown) and shown[0] == 0 and right[0], any(right[i] for i in shown if i < 3)
    return bool(right[:1] and right[0]), any(right[:3])


def score(products: list[Product], spec: IdRequest, labels) -> dict:
    right = [is_right(p, spec) for p in products]
    first, top3 = first_and_top3(right, labels)
    dropped = any(not keeps_rules(p, spec) for p in products[:3]) if (spec.claims or spec.avoid) else False
    out: dict = {"right_first": float(first), "in_top3": float(top3), "dropped": float(dropped)}
    for lang in LANGS:
        out[f"right_first_{lang}"] = float(first) if spec.lang == lang else None
        out[f"in_top3_{lang}"] = float(top3) if spec.lang == lang else None
    return out


def id_requests(name: str, dev: Path, heldout: Path | None) -> list[Request]:
    asked = [Request(f"{name}-{n}", r.text, {i: 1.0 for i in r.right}, "dev", spec=r)
             for n, r in enumerate(load_id_requests(dev), start=1)]
    if heldout is not None and heldout.is_file():  # read to report, never to tune
        asked += [Request(f"{name}-heldout-{n}", r.text, {i: 1.0 for i in r.right}, "heldout", spec=r)
                  for n, r in enumerate(load_id_requests(heldout), start=1)]
    return asked


class IdConfigs:
    """The products engine over one catalogue, built once on first use, and the id scoring."""

    def __init__(self, corpus: Path, progress=None) -> None:
        self.corpus = corpus
        self.progress = progress
        self._engine: ProductsEngine | None = None

    def engine(self) -> ProductsEngine:
        if self._engine is None:
            self._engine = ProductsEngine(self.corpus, wait_for_index=True)
        return self._engine

    def salt(self) -> str:
        import hashlib

        digest = hashlib.sha256()
        files = [self.corpus] if self.corpus.is_file() else sorted(p for p in self.corpus.rglob("*") if p.is_file())
        for path in files:
            digest.update(path.name.encode() + path.read_bytes())
        return digest.hexdigest()[:16]

    def factories(self) -> dict[str, Callable[[], Ranker]]:
        return {name: (lambda name=name: self._ranker(name)) for name in CONFIGS}

    def _ranker(self, name: str) -> Ranker:
        engine = self.engine()
        if name in ("knn", "hybrid_rrf", "hybrid_rrf_rules"):
            engine.build_index(progress=self.progress)  # the vectors, once, before any request is timed
        configs = Configs(engine)

        def rank(text: str):
            positions, labels, flags = configs.run(name, text)
            extras: dict = {}
            if labels is not None:
                extras["labels"] = labels
            if flags:
                extras["flags"] = flags
            return [engine.products[i].id for i in positions[:SEEN]], extras

        return rank

    def score(self, outcome: Outcome, request: Request) -> dict:
        engine = self.engine()
        products = [engine.products[engine.catalogue.by_id[i]] for i in outcome.ranked if i in engine.catalogue.by_id]
        return score(products, request.spec, outcome.extras.get("labels"))

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()


def by_ids_suite(dataset: str, data: Path, heldout: Path, progress, queries: Path | None = None) -> Suite:
    """``fineli`` (the wholesale file) or ``food_fisv`` (the demo catalogue): requests judged by product id."""
    corpus = data / "fineli-wholesale" / "tuotteet.csv" if dataset == "fineli" else fixtures_dir() / "products"
    need(corpus)
    if queries is not None:
        need(queries)
    asked = id_requests(dataset, DEV[dataset], queries if queries is not None else heldout / HELDOUT[dataset])
    setup = IdConfigs(corpus, progress=progress)

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        engine = setup.engine()
        labels = extras.get("labels") or []
        out = []
        for n, product_id in enumerate(ranked):
            p = engine.products[engine.catalogue.by_id[product_id]]
            broke = bool(request.spec.claims or request.spec.avoid) and not keeps_rules(p, request.spec)
            out.append(Verdict(p.id, p.name, None, is_right(p, request.spec), broke,
                               labels[n] if n < len(labels) else None))
        return out

    return Suite("products", dataset, asked, setup.factories(), COLUMNS, verdicts, score_outcome=setup.score,
                 summed=frozenset({"dropped"}), percent=frozenset(c for c in COLUMNS if "right" in c or "top3" in c),
                 salt=f"{corpus.resolve()}|{setup.salt()}", close=setup.close, setup=setup)
