"""Salt (issue 58): "unsalted" and "low-sodium" are two claims read from product data (OFF label tags,
a labels column, the maker's name) and from the buyer's words in en/fi/sv; a stand-in is never called
exact for them ("suolaton voi" once called Salted Butter exact: Fineli translates "suolaton" as "salt",
found inside "Salted" and "Unsalted"). Each case on a small catalogue written here."""

from __future__ import annotations

import pytest

from engines.products.off import claims_of
from engines.products.vocabulary import negated_inside
from tests.engines.written_shop import NO_VECTORS, written_shop

CATALOGUE = ("Artikelnr;Benämning;Varugrupp;Förpackning;Märkning\n"
             "1;Salted Butter;Dairy;500 g;\n"
             "2;Unsalted Butter;Dairy;500 g;\n"
             "3;Smör osaltat;Mejeri;500 g;\n"
             "4;Vegetable broth low sodium;Soups;1 l;\n"
             "5;Chicken broth;Soups;1 l;\n"
             "6;Pinto beans;Canned;400 g;no salt added\n"
             "7;Kidney beans;Canned;400 g;\n")


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with written_shop(tmp_path_factory, CATALOGUE) as engine:
        yield engine


def answer(engine, text):
    found = engine.answer(text, limit=10, sources=NO_VECTORS)
    return found, {h.title.split(" (")[0]: h.extras["label"] for h in found.hits}


def said_as(found, word):
    return next(w for w in found.extras["understood"]["words"] if w["word"] == word)


@pytest.mark.parametrize("text, salt_word", [("suolaton voi", "suolaton"), ("osaltat smör", "osaltat"),
                                             ("unsalted butter", "unsalted")])
def test_unsalted_said_in_any_language_never_calls_a_salted_butter_exact(shop, text, salt_word):
    found, rows = answer(shop, text)
    assert rows.get("Unsalted Butter") == "exact" and rows.get("Smör osaltat") == "exact"
    assert rows.get("Salted Butter") not in ("exact", "variant")
    assert found.extras["understood"]["claims"] == ["unsalted"]
    assert said_as(found, salt_word) == {"word": salt_word, "as": "claim", "detail": "unsalted"}


def test_salted_said_is_not_carried_inside_unsalted(shop):
    found, rows = answer(shop, "salted butter")
    assert rows["Salted Butter"] == "exact"
    assert rows["Unsalted Butter"] == "standin" and rows["Smör osaltat"] == "standin"


@pytest.mark.parametrize("text", ["low sodium broth", "vähäsuolainen liemi", "saltreducerad buljong"])
def test_low_sodium_answers_the_rows_that_state_it_and_nothing_else(shop, text):
    found, rows = answer(shop, text)
    assert found.extras["understood"]["claims"] == ["low-sodium"]
    assert list(rows) == ["Vegetable broth low sodium"] and rows["Vegetable broth low sodium"] in ("exact", "variant")


def test_a_low_sodium_row_is_never_called_unsalted_but_an_unsalted_one_is_low_in_salt(shop):
    found, rows = answer(shop, "unsalted broth")
    assert found.extras.get("not_sold") and not any(v in ("exact", "variant") for v in rows.values())
    found, rows = answer(shop, "reduced sodium beans")  # a labels cell saying "no salt added"
    assert rows.get("Pinto beans") == "exact" and "Kidney beans" not in rows


@pytest.mark.parametrize("text", ["saltat smör", "saltad smör", "suolattu voi"])
def test_salted_is_never_read_as_unsalted_by_its_nearest_spelling(shop, text):
    found, rows = answer(shop, text)
    assert "unsalted" not in found.extras["understood"].get("claims", [])
    assert rows.get("Unsalted Butter") != "exact" and rows.get("Smör osaltat") != "exact"


def test_off_tags_and_names_carry_the_two_claims_apart():
    assert set(claims_of(("en:no-salt-added",), (), "Pinto beans")) == {"unsalted", "low_sodium"}
    assert set(claims_of((), ("en:unsalted-butter",), "Challenge Butter")) == {"unsalted", "low_sodium"}
    assert set(claims_of(("en:low-sodium",), (), "Sweet potato chips")) == {"low_sodium"}
    assert set(claims_of((), (), "Turkey Breast Reduced Sodium")) == {"low_sodium"}
    assert claims_of((), ("en:salted-butters",), "Butter Salted") == {}


def test_a_word_inside_a_longer_one_that_says_it_is_absent_is_not_there():
    assert negated_inside("salted", "unsalted") and negated_inside("salt", "osaltat")
    assert negated_inside("suola", "suolaton") and negated_inside("salt", "saltfri")
    assert not negated_inside("salt", "saltad") and not negated_inside("kaura", "kaurajuoma")
