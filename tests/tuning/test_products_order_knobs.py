"""The products knobs that order an answer after recall (issue 62): the judge's lifts and recall's weight
against the judge's confidence reach the order, through the corpus's own settings and a tried value."""

from __future__ import annotations

import pytest

from engines import registry
from engines.knobs import adopt, trying
from engines.products.judge import Judgement
from engines.products.knobs import KNOBS as PRODUCTS
from engines.products.order import order
from engines.products.request import Request

HEADER = ("code\tproduct_name\tgeneric_name\tbrands\tquantity\tcategories_tags\tlabels_tags\tallergens_tags\t"
          "traces_tags\tingredients_text\tcountries_tags\tsource\n")
SHOP = (HEADER + "1\tPeanut Butter\t\tAcme\t500 g\ten:spreads,en:peanut-butters\t\t\t\t\t\tt\n"
        + "2\tCrunchy Peanut Butter\t\tJif\t340 g\ten:spreads,en:peanut-butters\t\t\t\t\t\tt\n"
        + "3\tSmooth peanut butter spread\t\tAcme\t1 kg\ten:spreads,en:peanut-butters\t\t\t\t\t\tt\n")
NO_VECTORS = ("code", "lexical", "typo", "words", "standard", "translated", "kinds")


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "config" / "olai-tui").mkdir(parents=True)


def test_a_corpus_brand_lift_moves_the_named_brand_and_the_default_restores_it(config, tmp_path):
    shop = tmp_path / "shop.tsv"
    shop.write_text(SHOP, encoding="utf-8")

    def shown(query, scores=False):
        engine = registry.open_engine("products", shop)
        try:
            hits = engine.answer(query, limit=5, sources=NO_VECTORS).hits
            return [h.score for h in hits] if scores else [h.id for h in hits]
        finally:
            engine.close()

    assert shown("jif peanut butter")[0] == "2"  # the brand said leads (brand_lift 0.15)
    adopt(PRODUCTS, shop, {"brand_lift": 0.0})
    assert shown("jif peanut butter")[0] == "1"  # without it, the name that is the words said leads
    adopt(PRODUCTS, shop, {"brand_lift": 0.15})
    assert shown("jif peanut butter")[0] == "2"
    today = shown("peanut butter", scores=True)
    adopt(PRODUCTS, shop, {"recall_weight": 0.3})  # the engine hands recall's fused scores to the order
    assert shown("peanut butter", scores=True)[0] == pytest.approx(today[0] + 0.3)


def test_recall_weight_lets_recall_speak_among_matches_and_zero_is_ties_only():
    request = Request(text="peanut butter")
    judged = [Judgement("exact", 0.90), Judgement("exact", 0.95), Judgement("variant", 0.7)]
    fused = [0.05, 0.02, 0.04]  # the first is recall's best; the second the judge's

    def placed():
        return [p.position for p in order(request, [None] * 3, [0, 1, 2], judged, fused)]

    assert placed() == [1, 0, 2]  # today: the judge's confidence, recall only breaks ties
    with trying(PRODUCTS, {"recall_weight": 0.3}):
        assert placed() == [0, 1, 2]  # 0.90 + 0.3 over 0.95 + 0.12; a variant stays after every match
