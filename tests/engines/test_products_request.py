"""Reading the words: kinds, claims (misspelt ones too), allergens to avoid, uses, brand, pack, code."""

from __future__ import annotations

import pytest

from engines.products.product import Quantity
from engines.products.knowledge import KnowledgeMap
from engines.products.request import RequestReader


@pytest.fixture(scope="module")
def reader():
    return RequestReader(KnowledgeMap.load(), brands=["Barilla", "Free", "Granarolo", "Kerrygold"],
                         vocabulary={"latte", "milk", "pasta", "spaghetti"})


def test_finnish_lactose_free_milk_with_a_pack_size(reader):
    r = reader.read("laktoositon maito 1 l")
    assert r.kinds == ("milk",) and r.claims == ("lactose_free",) and r.pack == Quantity(1000, "ml")
    assert "read 'laktoositon' as lactose-free" in r.notes


@pytest.mark.parametrize("misspelt", ["laktositon", "laktoosition", "laktoositn"])
def test_a_misspelt_claim_is_read_as_the_claim_with_a_note(reader, misspelt):
    r = reader.read(f"{misspelt} maito")
    assert r.claims == ("lactose_free",)
    assert any(note.startswith(f"read '{misspelt}' as lactose-free") for note in r.notes)


def test_a_word_far_from_every_claim_is_never_read_as_one(reader):
    assert reader.read("lactate maito").claims == ()


@pytest.mark.parametrize("text, avoid", [
    ("oat drink without soy", {"soy"}), ("kasvijuoma ilman soijaa", {"soy"}), ("växtdryck utan soja", {"soy"}),
    ("nut-free chocolate", {"nuts", "peanuts"}), ("pähkinätön suklaa", {"nuts", "peanuts"}),
    ("choklad utan nötter", {"nuts", "peanuts"}), ("sojafri yoghurt", {"soy"}), ("maidoton keksi", {"milk"}),
    ("egg-free pasta", {"eggs"}), ("sinapiton majoneesi", {"mustard"}),
])
def test_allergens_to_avoid_in_three_languages(reader, text, avoid):
    assert reader.read(text).avoid == avoid


def test_without_gluten_asks_for_gluten_free_too(reader):
    r = reader.read("crackers utan gluten")
    assert r.avoid == {"gluten"} and "gluten_free" in r.claims


def test_uses_brand_and_compounds(reader):
    assert reader.read("something to whip for a cake").uses == ("whipping", "baking")
    assert reader.read("jotain kahviin").uses == ("coffee",)
    r = reader.read("Barilla pasta")
    assert r.brand == "Barilla" and r.kinds == ("pasta",)
    eggs = reader.read("luomumunat")
    assert eggs.kinds == ("eggs",) and eggs.claims == ("organic",)
    assert reader.read("vegan butter").claims == ("vegan",)  # a kind alias that holds a claim keeps it


def test_a_brand_that_is_an_everyday_word_is_not_a_brand(reader):
    assert reader.read("gluten free pasta").brand is None  # "Free" is a brand, "gluten free" a claim


def test_a_code_said_outright_is_a_code(reader):
    r = reader.read("8009310001679")
    assert r.code == "8009310001679" and r.kinds == ()


def test_contradictory_words_are_noted(reader):
    r = reader.read("vegan whey protein")
    assert r.contradiction and any("contradict" in n for n in r.notes)


def test_empty_stopwords_and_very_long_requests_read_without_error(reader):
    assert reader.read("").empty and reader.read("   ").empty
    assert reader.read("the and for with").empty
    long = reader.read("milk " * 400)
    assert long.kinds == ("milk",) and any("first 300" in n for n in long.notes)
