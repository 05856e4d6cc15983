"""Requests of words alone (no kind the map knows, no hard rule) on a catalogue of free-text products.

A tiny catalogue in Icecat's own format, read by the real loader, searched by the real engine (every
source but the vectors, so no model loads): the standard BM25 leg takes part in the fusion, the
rules judge matches a said word by its stem, never drops a product merely for lacking the said words
when no hard rule is stated, and a partial name match is a variant only when the product's data
holds the other words. The exact tier answers from names folded once, at build time.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engines.products.engine import ProductsEngine
from engines.products.recall import SOURCES

SOURCES_NO_VECTORS = tuple(s for s in SOURCES if s != "vectors")
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "products"

PRODUCTS = [
    {"id": "1", "title": "Sony WH-CH510 Wireless Headphones", "name": "WHCH510B", "supplier": "Sony",
     "short_description": "wireless headphones, 35 hours of battery"},
    {"id": "2", "title": "Philips Notebook headset SHM3100U/10", "name": "SHM3100U/10", "supplier": "Philips",
     "short_description": "in-ear earbuds with a microphone for notebooks; wireless headphones alternative"},
    {"id": "3", "title": "Verbatim AA Alkaline Battery", "name": "49921", "supplier": "Verbatim",
     "short_description": "long lasting"},
    {"id": "4", "title": "Sony PlayStation 4 Pro 1TB", "name": "CUH-7216B", "supplier": "Sony",
     "short_description": "the PS4 Pro console, 4K"},
    {"id": "5", "title": "HP Pro 3015 Microtower PC", "name": "VW185EA", "supplier": "HP",
     "short_description": "a desktop for the office"},
    {"id": "6", "title": "Logitech Pro Gaming Mouse", "name": "910-005440", "supplier": "Logitech",
     "short_description": "a mouse for ps4 and pc gamers"},
    {"id": "7", "title": "Huawei GT 2e Smartwatch AMOLED", "name": "55025278", "supplier": "Huawei"},
    {"id": "8", "title": "APC Smart-UPS Smart Battery Smart Kit", "name": "SUA48", "supplier": "APC",
     "short_description": "smart, smart, smart"},
    {"id": "9", "title": "Case Logic TBC-312 Black", "name": "TBC-312", "supplier": "Case Logic",
     "short_description": "a compact camera bag with a shoulder strap"},
    {"id": "10", "title": "Canon Gadget Bag 2400", "name": "2400", "supplier": "Canon",
     "short_description": "holds lenses and flashes"},
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("icecat")
    with zipfile.ZipFile(folder / "products_1.json.zip", "w") as archive:
        archive.writestr("products_1.json", json.dumps(PRODUCTS))
    e = ProductsEngine(folder)
    yield e
    e.close()


def ask(engine, text, limit=10):
    return engine.answer(text, limit=limit, sources=SOURCES_NO_VECTORS)


def labels(answer) -> dict[str, str]:
    return {h.id: h.extras["label"] for h in answer.hits}


def test_a_product_lacking_the_said_words_is_kept_after_the_matches_when_no_rule_is_stated(engine):
    a = ask(engine, "wireless headphones")
    assert [h.id for h in a.hits][:2] == ["1", "2"]
    assert labels(a)["1"] == "exact"
    # the headset is named otherwise; its description says what it is: shown, as something instead
    assert labels(a)["2"] == "standin"
    assert "description" in a.hits[1].extras["why"]
    assert a.extras["path"] == "judged" and "not_sold" not in a.extras["flags"]


def test_a_stand_in_whose_data_holds_every_word_said_comes_before_other_stand_ins(engine):
    # neither is named "camera bag"; the Case Logic's description says it is one, the Canon's does not
    fused = [h.id for h in engine.answer("camera bag", sources=SOURCES_NO_VECTORS, tiers="exact,recall").hits]
    assert fused.index("10") < fused.index("9")  # the fused order alone would show the Canon first
    a = ask(engine, "camera bag")
    assert labels(a)["9"] == "standin" and labels(a)["10"] == "standin"
    assert [h.id for h in a.hits][:2] == ["9", "10"]
    assert a.hits[0].extras["why"] == "not named by the words said; every one is in its description or data"
    assert "not_sold" in a.extras["flags"]  # still a stand-in: nothing is named by the words


def test_nothing_named_by_the_words_is_still_not_sold(engine):
    a = ask(engine, "earbuds")
    assert [h.id for h in a.hits] == ["2"] and labels(a) == {"2": "standin"}
    assert a.extras["flags"][:2] == ["not_sold", "only_standins"]


def test_a_said_word_matches_a_name_by_its_stem(engine):
    a = ask(engine, "batteries")
    assert a.hits[0].id == "3" and a.hits[0].extras["label"] == "exact"
    assert a.hits[0].extras["why"] == "every word said is in its name"
    # the standard BM25 leg found it by its stem; the plain words source (no stemming) did not
    assert a.hits[0].extras["sources"].get("standard") == 1 and "words" not in a.hits[0].extras["sources"]


def test_a_partial_name_match_is_a_variant_only_when_its_data_holds_the_other_words(engine):
    a = ask(engine, "ps4 pro")
    got = labels(a)
    assert got["4"] == "variant" and got["6"] == "variant"  # "Pro" in the name, "PS4" in the description
    assert got["5"] == "standin"  # "Pro" in the name, no PS4 anywhere: not shown as the thing
    assert [h.id for h in a.hits].index("5") > max([h.id for h in a.hits].index(i) for i in ("4", "6"))


def test_two_words_a_product_writes_as_one_find_it_and_match_its_name(engine):
    assert engine.index.joined(engine.understand("smart watch").said) == ("smartwatch",)
    a = ask(engine, "smart watch")
    assert a.hits[0].id == "7" and a.hits[0].extras["label"] == "exact"
    assert {"lexical", "standard"} <= set(a.hits[0].extras["sources"])
    assert labels(a)["8"] == "standin"  # "smart" thrice, no watch


def test_the_exact_tier_answers_from_names_folded_once(engine):
    assert engine._names["hp pro 3015 microtower pc"] == [4]
    first = next(engine.search("  hp PRO 3015   microtower pc ", tiers="exact"))
    assert [h.id for h in first.hits] == ["5"] and first.hits[0].tier == "exact"


def test_explain_shows_the_standard_leg_beside_the_others(engine):
    out = engine.explain("batteries", sources=SOURCES_NO_VECTORS)
    # three hold "battery" (the headphones in their description); the plain words source, unstemmed, none
    assert out["sources"]["standard"][0] == "3" and set(out["sources"]["standard"]) == {"1", "3", "8"}
    assert out["sources"]["words"] == []
    assert out["fused"][0] == "3"


def test_with_a_hard_rule_stated_a_product_lacking_the_words_is_still_dropped():
    e = ProductsEngine(FIXTURE)
    try:
        # "gluten-free" is a hard rule: recall finds gluten-free products, none is called "dog"
        assert e.understand("gluten-free dog").claims == ("gluten_free",)
        assert len(e.answer("gluten-free dog", sources=SOURCES_NO_VECTORS, tiers="exact,recall").hits) == 10
        a = ask(e, "gluten-free dog", limit=40)
        assert a.hits == [] and a.extras["flags"] == ["not_sold"]
    finally:
        e.close()


def test_the_standard_leg_takes_no_part_where_the_map_names_a_kind():
    e = ProductsEngine(FIXTURE)
    try:
        assert e.understand("oat drink").kinds  # a kind: the kinds list holds the aisle
        found = e.recall(e.understand("oat drink"), SOURCES_NO_VECTORS)
        assert found.lists["standard"]  # computed, and shown by explain
        assert not any("standard" in ranks for _, _, ranks in found.fused)
        words_only = e.recall(e.understand("dog food"), SOURCES_NO_VECTORS)
        assert not e.understand("dog food").kinds and any("standard" in ranks for _, _, ranks in words_only.fused)
    finally:
        e.close()
