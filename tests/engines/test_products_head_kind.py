"""The kind the words end on (issue 58, engines/products/head_kind.py): "fruit yogurt" is a yogurt, "chocolate
cake" a cake; a row of the kind the narrowing word names is at most a stand-in saying why. Found on
food_words dev ("fruit yogurt" led with fruit snacks). Each case on a small catalogue written here."""

from __future__ import annotations

import pytest

from engines.products.engine import ProductsEngine

NO_VECTORS = ("code", "lexical", "typo", "words", "standard", "translated", "kinds")

CATALOGUE = ("Artikelnr;Benämning;Varugrupp;Förpackning\n"
             "1;Fruit snacks;Fruit;100 g\n"
             "2;Strawberry yogurt;Dairy;500 g\n"
             "3;Plain yogurt;Dairy;500 g\n"
             "4;Chocolate cake;Bakery;400 g\n"
             "5;Sponge cake;Bakery;300 g\n"
             "6;Dark chocolate 70 %;Sweets;100 g\n"
             "7;Sardines in oil;Fish;120 g\n"
             "8;Rapeseed oil;Oils;1 l\n"
             "9;White wine vinegar;Condiments;500 ml\n"
             "10;Red wine Cabernet;Wine;75 cl\n")


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    path = tmp_path_factory.mktemp("heads") / "shop.csv"
    path.write_text(CATALOGUE, encoding="utf-8")
    engine = ProductsEngine(path)
    yield engine
    engine.close()


def answer(engine, text):
    found = engine.answer(text, limit=10, sources=NO_VECTORS)
    return found, [(h.title.split(" (")[0], h.extras["label"], h.extras["why"]) for h in found.hits]


def matches(rows):
    return [r[0] for r in rows if r[1] in ("exact", "variant")]


def test_a_fruit_said_before_the_kind_is_its_flavour_and_the_fruit_a_standin(shop):
    found, rows = answer(shop, "fruit yogurt")
    assert found.extras["understood"]["kinds"] == ["fresh_fruit", "yogurt"]  # the reader hears both kinds
    assert matches(rows)[0] == "Strawberry yogurt" and rows[0][1] == "exact"  # a strawberry yogurt is a fruit one
    snacks = next(r for r in rows if r[0] == "Fruit snacks")
    assert snacks[1] == "standin" and "ask for a yogurt" in snacks[2]


def test_the_head_kind_lacking_the_narrowing_word_is_a_variant_after_the_one_carrying_it(shop):
    found, rows = answer(shop, "chocolate cake")
    assert matches(rows)[:2] == ["Chocolate cake", "Sponge cake"]
    assert dict((r[0], r[1]) for r in rows)["Sponge cake"] == "variant"
    chocolate = next(r for r in rows if r[0].startswith("Dark chocolate"))
    assert chocolate[1] == "standin" and "ask for a cake" in chocolate[2]


def test_a_kind_after_in_is_no_head(shop):
    found, rows = answer(shop, "sardines in oil")  # what a sardine is packed in: "oil" ends the words, heads nothing
    assert rows[0][:2] == ("Sardines in oil", "exact")
    assert "ask for" not in " ".join(r[2] for r in rows)


def test_two_kinds_neither_carrying_every_word_is_not_sold(shop):
    found, rows = answer(shop, "red wine vinegar")
    assert "not_sold" in found.extras["flags"] and not matches(rows)
    wine = next(r for r in rows if r[0].startswith("Red wine"))
    assert wine[1] == "standin" and "ask for a vinegar" in wine[2]
