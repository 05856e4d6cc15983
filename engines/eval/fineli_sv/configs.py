"""The products configurations over ``fineli_sv``: right first, "not sold" when it is due, per language.

A request for a food the catalogue carries is right first when the first row is one of its ids (for
``smart``, only a row it calls a match counts); ``false_not_sold`` counts those answered "we do not sell
that" (the costliest wrong answer a wholesaler's search box gives). A request for a food not carried is
right when ``smart`` says "not sold" (a baseline cannot say it, so it is never right there);
``not_sold_right`` counts those. Per language: ``right_first_sv`` ... and ``not_sold_ok_sv`` ... (a
not-sold request answered so, a carried one not answered so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from engines.eval.fineli.configs import IdConfigs, first_and_top3
from engines.eval.fineli_sv.load import CATALOGUE, DEV, LANGS, SwedishRequest, load_swedish_requests
from engines.eval.runner import Outcome, Request
from engines.eval.suite import Suite, Verdict, need
from engines.products.catalogue import Product

COLUMNS = ("right_first", "in_top3", "false_not_sold", "not_sold_right",
           *(f"{m}_{lang}" for lang in LANGS for m in ("right_first", "not_sold_ok")), "p50_ms", "p90_ms")
SUMMED = frozenset({"false_not_sold", "not_sold_right"})  # counts of requests, never rates


def score(products: list[Product], spec: SwedishRequest, labels, flags) -> dict:
    right = [p.id in spec.right for p in products]
    said_not_sold = bool(flags and "not_sold" in flags)
    if spec.not_sold:
        first = top3 = said_not_sold
    else:
        first, top3 = first_and_top3(right, labels)
    ok = said_not_sold == spec.not_sold
    out: dict = {"right_first": float(first), "in_top3": float(top3),
                 "false_not_sold": float(said_not_sold and not spec.not_sold),
                 "not_sold_right": float(said_not_sold) if spec.not_sold else None}
    for lang in LANGS:
        out[f"right_first_{lang}"] = float(first) if spec.lang == lang else None
        out[f"not_sold_ok_{lang}"] = float(ok) if spec.lang == lang else None
    return out


class SwedishConfigs(IdConfigs):
    def score(self, outcome: Outcome, request: Request) -> dict:
        engine = self.engine()
        products = [engine.products[engine.catalogue.by_id[i]] for i in outcome.ranked if i in engine.catalogue.by_id]
        return score(products, request.spec, outcome.extras.get("labels"), outcome.extras.get("flags"))


def swedish_suite(progress, queries: Path | None = None, corpus: Path = CATALOGUE, dev: Path = DEV) -> Suite:
    return requests_suite("fineli_sv", corpus, dev, progress, queries)


def requests_suite(name: str, corpus: Path, dev: Path, progress, queries: Path | None = None,
                   configs: type[SwedishConfigs] = SwedishConfigs, columns: tuple = COLUMNS,
                   summed: frozenset = SUMMED) -> Suite:
    """A suite of requests in this set's shape (load_swedish_requests) over ``corpus``, scored by ``configs``
    (fineli_sv's own, and the ``words`` sets' with a count more: engines/eval/words/configs.py)."""
    need(corpus)
    asked = [Request(f"{name}-{n}", r.text, {i: 1.0 for i in r.right}, "dev", spec=r)
             for n, r in enumerate(load_swedish_requests(dev), start=1)]
    if queries is not None:  # read to report, never to tune
        need(queries)
        asked += [Request(f"{name}-heldout-{n}", r.text, {i: 1.0 for i in r.right}, "heldout", spec=r)
                  for n, r in enumerate(load_swedish_requests(queries), start=1)]
    setup = configs(corpus, progress=progress)

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        engine = setup.engine()
        labels = extras.get("labels") or []
        return [Verdict(pid, engine.products[engine.catalogue.by_id[pid]].name, None, pid in request.spec.right,
                        False, labels[n] if n < len(labels) else None) for n, pid in enumerate(ranked)]

    return Suite("products", name, asked, setup.factories(), columns, verdicts, score_outcome=setup.score,
                 summed=summed, percent=frozenset(c for c in columns if c not in summed and "ms" not in c),
                 salt=f"{corpus.resolve()}|{setup.salt()}", close=setup.close, setup=setup)
