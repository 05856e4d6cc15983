"""Scoring the ``words`` sets: right first, "not sold" when due, and no stand-in labelled exact.

Built on the fineli_sv scoring (engines/eval/fineli_sv/configs.py: ``right_first``, ``in_top3``,
``false_not_sold``, ``not_sold_right`` and per language), with one count more: ``standin_exact``,
requests whose answer calls a stand-in the thing asked for (``standin_exact`` below).
"""

from __future__ import annotations

from pathlib import Path

from engines.eval.fineli_sv.configs import SwedishConfigs, requests_suite
from engines.eval.fineli_sv.configs import score as id_score
from engines.eval.fineli_sv.load import LANGS
from engines.eval.runner import Outcome, Request
from engines.eval.suite import Suite
from engines.locations import fixtures_dir

HERE = Path(__file__).resolve().parent
DEV = {"words": HERE / "dev-demo.jsonl", "words_fineli": HERE / "dev-fineli.jsonl"}
COLUMNS = ("right_first", "in_top3", "not_sold_right", "false_not_sold", "standin_exact",
           *(f"right_first_{lang}" for lang in LANGS), "p50_ms", "p90_ms")
SUMMED = frozenset({"false_not_sold", "not_sold_right", "standin_exact"})


def corpus_of(name: str, data: Path | None) -> Path:
    if name == "words":
        return fixtures_dir() / "products"
    return Path(data) / "products" / "fineli-wholesale" / "tuotteet.csv"


def standin_exact(ids: list[str], spec, labels) -> bool:
    """For a food not carried, a row labelled exact in the top 3; for one carried, a first row labelled
    exact that is not one of its ids (the lists name the rows a buyer takes as the thing first, not
    every one: a third row labelled exact and missing from them is no stand-in for sure)."""
    if labels is None or not ids:
        return False
    if spec.not_sold:
        return any(label == "exact" for label in labels[:3])
    return labels[0] == "exact" and ids[0] not in spec.right


class WordsConfigs(SwedishConfigs):
    def score(self, outcome: Outcome, request: Request) -> dict:
        engine = self.engine()
        products = [engine.products[engine.catalogue.by_id[i]] for i in outcome.ranked if i in engine.catalogue.by_id]
        labels = outcome.extras.get("labels")
        out = id_score(products, request.spec, labels, outcome.extras.get("flags"))
        out["standin_exact"] = float(standin_exact([p.id for p in products], request.spec, labels))
        return {c: out.get(c) for c in COLUMNS if c not in ("p50_ms", "p90_ms")}


def words_suite(name: str, data: Path | None, progress, queries: Path | None = None) -> Suite:
    return requests_suite(name, corpus_of(name, data), DEV[name], progress, queries, configs=WordsConfigs,
                          columns=COLUMNS, summed=SUMMED)
