"""Reader gaps (issue 58, engines/products/reader_gaps.py): a kind's alias said in the plural ("rice drinks"),
and a compound on a three-letter kind word ("jasminris") that never cuts a short rest ("paris"). Each case
on a small catalogue written here."""

from __future__ import annotations

import pytest
from tests.engines.written_shop import NO_VECTORS, written_shop


CATALOGUE = ("Artikelnr;Benämning;Varugrupp;Förpackning\n"
             "1;Rice drink;Drinks;1 l\n"
             "2;Long grain rice;Dry goods;1 kg\n"
             "3;Jasmine rice;Dry goods;1 kg\n"
             "4;Oat porridge;Breakfast;500 g\n"
             "5;Granola bar;Snacks;40 g\n"
             "6;Granola;Breakfast;500 g\n")


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with written_shop(tmp_path_factory, CATALOGUE) as engine:
        yield engine


def answer(engine, text):
    found = engine.answer(text, limit=10, sources=NO_VECTORS)
    return found, [(h.title.split(" (")[0], h.extras["label"]) for h in found.hits]


@pytest.mark.parametrize("text, kind, first", [("rice drinks", "plant_drink", "Rice drink"),
                                               ("granola bars", "snack_bar", "Granola bar")])
def test_a_kind_alias_said_in_the_plural_is_the_alias(shop, text, kind, first):
    found, rows = answer(shop, text)
    assert found.extras["understood"]["kinds"] == [kind]  # not rice (or granola) narrowed by "drinks"
    assert rows[0] == (first, "exact")
    assert any("as 'drink'" in n or "as 'bar'" in n for n in found.extras["understood"]["notes"])


def test_a_compound_on_a_three_letter_kind_word_is_that_kind_narrowed_by_the_rest(shop):
    found, rows = answer(shop, "jasminris")
    assert found.extras["understood"]["kinds"] == ["rice"]
    assert rows[0] == ("Jasmine rice", "exact")
    assert dict(rows)["Long grain rice"] == "variant"


@pytest.mark.parametrize("text", ["paris", "kris", "graham"])
def test_a_short_rest_before_a_three_letter_kind_word_is_no_compound(shop, text):
    found, _ = answer(shop, text)
    assert found.extras["understood"].get("kinds", []) == []  # no rice, no ham: a word of its own


def test_a_compound_of_known_parts_is_never_cut_at_a_three_letter_kind_word(shop):
    found, _ = answer(shop, "kycklingbröst")  # kyckling + bröst (breast), never "kycklingbr" + ost (cheese)
    assert "cheese" not in found.extras["understood"].get("kinds", [])


def test_a_longer_known_tail_is_the_head_not_the_three_letter_kind_word_inside_it(shop):
    found, _ = answer(shop, "ankbröst")  # "ank" is in no lexicon, "bröst" is: never "ankbr" + ost (cheese)
    assert "cheese" not in found.extras["understood"].get("kinds", [])


def test_two_words_written_as_one_kind_alias_are_that_kind_and_both_accounted(shop):
    found, rows = answer(shop, "oat meal")  # oatmeal, a kind's alias: no ready meal narrowed by oat
    assert found.extras["understood"]["kinds"] == ["oat_flakes"]
    assert [w["as"] for w in found.extras["understood"]["words"]] == ["kind", "kind"]
