"""The thing asked for, or honestly not (issue 58): a word that distinguishes within a kind (a source, an
animal or part, a property, a form, plain against flavoured) is carried by the row or the row is at most
a stand-in with the reason; "not sold" exactly when no row of the kind carries every such word; every
word of the request accounted for. Each class on a small catalogue written here."""

from __future__ import annotations

import pytest

from engines.products.engine import ProductsEngine
from engines.products.languages import LemmaTable, default_words
from tests.engines.written_shop import NO_VECTORS, written_shop

CATALOGUE = ("Artikelnr;Benämning;Varugrupp;Förpackning\n"
             "1;Almond milk unsweetened;Drycker;1 l\n"
             "2;Soy milk;Drycker;1 l\n"
             "3;Chocolate almond milk;Drycker;1 l\n"
             "4;Plain yogurt;Mejeri;500 g\n"
             "5;Strawberry yogurt;Mejeri;500 g\n"
             "6;Vanilla yogurt;Mejeri;500 g\n"
             "7;Fil, 1 % fett, laktosfri;Mejeri;1 l\n"
             "8;Turkey breast;Kött;300 g\n"
             "9;Salmon fillet;Fisk;400 g\n"
             "10;Salmon, smoked, whole;Fisk;1 kg\n"
             "11;Rolled oats;Spannmål;1 kg\n")  # the shop names oats: a row's lacking "oat" says something


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with written_shop(tmp_path_factory, CATALOGUE) as engine:
        yield engine


def answer(engine, text):
    found = engine.answer(text, limit=10, sources=NO_VECTORS)
    return found, [(h.title, h.extras["label"], h.extras["why"]) for h in found.hits]


def test_a_source_not_carried_is_not_sold_and_every_plant_drink_a_standin_saying_why(shop):
    found, rows = answer(shop, "oat milk")
    assert "not_sold" in found.extras["flags"]
    assert not [r for r in rows if r[1] in ("exact", "variant")]
    almond = next(r for r in rows if r[0].startswith("Almond milk"))
    assert almond[1] == "standin" and almond[2].startswith("no oat")


def test_a_source_carried_answers_it_exact_first_and_the_flavoured_one_after(shop):
    found, rows = answer(shop, "almond milk")
    assert rows[0][:2] == ("Almond milk unsweetened", "exact")
    assert dict((r[0], r[1]) for r in rows)["Chocolate almond milk"] == "variant"  # no flavour asked: after
    assert dict((r[0], r[1]) for r in rows).get("Soy milk") in (None, "standin")
    assert "not_sold" not in found.extras["flags"]


def test_an_animal_not_carried_is_not_sold(shop):
    found, rows = answer(shop, "chicken breast")
    assert "not_sold" in found.extras["flags"]
    assert ("Turkey breast", "exact") not in [r[:2] for r in rows]


def test_a_form_said_puts_the_row_carrying_it_first(shop):
    found, rows = answer(shop, "salmon fillet")
    assert rows[0][:2] == ("Salmon fillet", "exact")
    assert dict((r[0], r[1]) for r in rows)["Salmon, smoked, whole"] == "standin"


def test_a_property_is_read_from_the_rows_own_data_whatever_its_word_order(shop):
    found, rows = answer(shop, "laktosfri fil")
    assert rows[0][0] == "Fil, 1 % fett, laktosfri" and rows[0][1] in ("exact", "variant")
    assert "not_sold" not in found.extras["flags"]


def test_plain_asked_plain_first_and_flavoured_rows_are_standins(shop):
    found, rows = answer(shop, "plain yogurt")
    assert rows[0][:2] == ("Plain yogurt", "exact")
    labels = dict((r[0], r[1]) for r in rows)
    assert labels["Strawberry yogurt"] == "standin" and labels["Vanilla yogurt"] == "standin"


def test_no_flavour_asked_the_plain_row_leads_and_flavoured_ones_are_variants(shop):
    found, rows = answer(shop, "yogurt")
    assert rows[0][:2] == ("Plain yogurt", "exact")
    assert dict((r[0], r[1]) for r in rows)["Vanilla yogurt"] == "variant"


def test_plain_asked_where_only_flavoured_is_carried_is_not_sold(tmp_path):
    path = tmp_path / "flavoured.csv"
    path.write_text("Artikelnr;Benämning;Varugrupp;Förpackning\n1;Strawberry yogurt;Mejeri;500 g\n", encoding="utf-8")
    engine = ProductsEngine(path)
    try:
        found, rows = answer(engine, "maustamaton jogurtti")
    finally:
        engine.close()
    assert "not_sold" in found.extras["flags"]
    assert rows and rows[0][1] == "standin" and "plain" in rows[0][2]


def test_understood_lists_every_word_and_what_it_became(shop):
    found, _ = answer(shop, "the oat milk 1 l")
    said = [(w["word"], w["as"]) for w in found.extras["understood"]["words"]]
    assert said == [("the", "not used"), ("oat", "source"), ("milk", "kind"), ("1", "pack"), ("l", "pack")]


def test_base_forms_come_from_the_shipped_table_without_simplemmas_dictionaries():
    assert LemmaTable().get_dictionary("fi").get("mustikoita") == "mustikka"
    assert LemmaTable().get_dictionary("sv").get("köttbullar") == "köttbulle"
    assert LemmaTable().get_dictionary("fi").get("zzzz") is None
    assert default_words().base("kaurajuomaa") == "kaurajuoma"  # simplemma's affix rule over the table


WORDS_IN_OTHER_FORMS = ("Artikelnr;Benämning;Varugrupp;Förpackning\n"
                        "1;Lohifilee;Kala;400 g\n"
                        "2;Lohi, savustettu;Kala;200 g\n"
                        "3;Riisijuoma, mantelinmakuinen;Kasvijuomat;1 l\n"
                        "4;Kaurajuoma;Juomat;1 l\n"
                        "5;Jauheliha, lampaan;Liha;400 g\n"
                        "6;Jauheliha, naudan;Liha;400 g\n"
                        "7;Macaroni and cheese;Valmisruoka;200 g\n"
                        "8;Dark chocolate 70% cacao;Makeiset;100 g\n"
                        "9;Maito;Meijeri;1 l\n"
                        "10;Petto di pollo;Liha;300 g\n"
                        "11;Kanan koipi;Liha;300 g\n"
                        "12;Manteli, kuorittu;Pähkinät;200 g\n")  # the shop names almonds: "manteli" is checkable


@pytest.fixture(scope="module")
def forms_shop(tmp_path_factory):
    path = tmp_path_factory.mktemp("forms") / "shop.csv"
    path.write_text(WORDS_IN_OTHER_FORMS, encoding="utf-8")
    engine = ProductsEngine(path)
    yield engine
    engine.close()


@pytest.mark.parametrize("text, first", [
    ("laxfilé", "Lohifilee"),  # a compound Fineli's names hold whole, read by its parts: lax (salmon) + filé
    ("lammasfärs", "Jauheliha, lampaan"),  # Finnish lammas + Swedish färs: simplemma's "lammas" is no base form of it
    ("mac and cheese", "Macaroni and cheese"),  # "mac" starts "macaroni"
    ("dark chocolate", "Dark chocolate 70% cacao"),  # cacao is no flavour of a chocolate
    ("kycklingbröst", "Petto di pollo"),  # bröst and petto are one form (modifiers.FORMS), kyckling and pollo one animal
])
def test_a_word_carried_in_another_form_keeps_the_row_the_thing(forms_shop, text, first):
    found, rows = answer(forms_shop, text)
    assert "not_sold" not in found.extras["flags"]
    assert rows[0][0] == first and rows[0][1] in ("exact", "variant")


def test_a_row_led_by_another_sources_name_is_a_standin_and_not_sold_is_said(forms_shop):
    found, rows = answer(forms_shop, "mantelijuoma")
    assert "not_sold" in found.extras["flags"]
    rice = next(r for r in rows if r[0].startswith("Riisijuoma"))
    assert rice[1] == "standin" and "only its flavour" in rice[2]


def test_an_animal_no_row_names_in_any_language_is_not_sold(forms_shop):
    found, rows = answer(forms_shop, "goat milk")
    assert "not_sold" in found.extras["flags"]
    assert ("Maito", "standin") in [r[:2] for r in rows]


# Words that describe, present or put a kind to use, against words that name what it is made of (issue 58:
# food held out fell from 98.8 to 94.2 % when such words made every row a stand-in; food_words dev found them)
DESCRIBED = ("Artikelnr;Benämning;Varugrupp;Förpackning\n"
             "1;Milk 1.5 %;Dairy;1 l\n"
             "2;Whole milk;Dairy;1 l\n"
             "3;Sourdough bread;Bakery;500 g\n"
             "4;Rye bread;Bakery;500 g\n"
             "5;Sliced Cheddar cheese;Dairy;200 g\n"
             "6;Cheddar cheese;Dairy;400 g\n"
             "7;Rapeseed oil;Oils;1 l\n"
             "8;Dark chocolate 70 %;Sweets;100 g\n"
             "9;White chocolate macadamia cookies, vegan;Biscuits;200 g\n"
             "10;Almond drink unsweetened;Drinks;1 l\n"
             "11;Rice drink;Drinks;1 l\n"
             "12;Fresh vegetables mix;Vegetables;300 g\n"
             "13;Dried apricots;Dried fruit;200 g\n"
             "14;Rolled oats;Cereals;1 kg\n"  # the shop names oats: a drink lacking "oat" says something
             "15;Beef steak;Meat;400 g\n"  # and steak and salad: "stek", "salad" are words it can check
             "16;Salad dressing;Sauces;250 ml\n"
             "17;Soy milk, unsweetened;Drinks;1 l\n"
             "18;Soija, rouhe;Dry goods;150 g\n")  # soija: "soya" is a word the shop can check


@pytest.fixture(scope="module")
def described(tmp_path_factory):
    path = tmp_path_factory.mktemp("described") / "shop.csv"
    path.write_text(DESCRIBED, encoding="utf-8")
    engine = ProductsEngine(path)
    yield engine
    engine.close()


@pytest.mark.parametrize("text, first, why", [
    ("fresh milk", "Milk", "fresh"),  # "fresh" is a word of "fresh vegetables", no food of its own
    ("sliced bread", "bread", "sliced"),  # a form no bread states: the breads are variants, not stand-ins
    ("white bread", "bread", "white"),  # a colour no bread states
    ("stekolja", "Rapeseed oil", None),  # a use (steka, stekning) in a compound: the oil is the thing
    ("salad oil", "Rapeseed oil", None),  # a use: "for salad"
])
def test_a_word_the_kinds_rows_never_state_or_a_use_is_no_reason_for_not_sold(described, text, first, why):
    found, rows = answer(described, text)
    assert "not_sold" not in found.extras["flags"]
    assert first in rows[0][0] and rows[0][1] in ("exact", "variant")
    if why:  # the row says what it was not found to carry
        assert rows[0][1] == "variant" and why in rows[0][2]


def test_a_form_the_kinds_rows_state_is_still_strict(described):
    found, rows = answer(described, "sliced cheese")
    assert rows[0][:2] == ("Sliced Cheddar cheese", "exact")
    assert dict((r[0], r[1]) for r in rows)["Cheddar cheese"] == "standin"  # "Sliced Cheddar" states the form


def test_a_source_no_row_carries_is_still_not_sold(described):
    found, rows = answer(described, "oat drink")
    assert "not_sold" in found.extras["flags"]
    assert not [r for r in rows if r[1] in ("exact", "variant")]


OFF_HEADER = ("code\tproduct_name\tgeneric_name\tbrands\tquantity\tcategories_tags\tlabels_tags\tallergens_tags\t"
              "traces_tags\tingredients_text\tcountries_tags\tsource\n")


def test_another_kind_carrying_the_kinds_word_as_its_flavour_lifts_no_not_sold(tmp_path):
    # Open Food Facts rows, kinds from their categories: the cookie is a biscuit that says chocolate
    path = tmp_path / "off.tsv"
    path.write_text(OFF_HEADER
                    + "1\tDark Chocolate 73%\t\tX\t100 g\ten:chocolates,en:dark-chocolates\t\t\t\t\t\tt\n"
                    + "2\tWhite chocolate macadamia\t\tY\t200 g\ten:biscuits,en:cookies\ten:vegan\t\t\t\t\tt\n",
                    encoding="utf-8")
    engine = ProductsEngine(path)
    try:
        found, rows = answer(engine, "vegan chocolate")
        _, plain_rows = answer(engine, "chocolate")
    finally:
        engine.close()
    assert "not_sold" in found.extras["flags"]
    assert not [r for r in rows if r[1] in ("exact", "variant")]
    assert plain_rows[0][0].startswith("Dark Chocolate 73%") and plain_rows[0][1] == "exact"


def test_a_name_saying_unsweetened_keeps_a_no_sugar_rule(described):
    found, rows = answer(described, "almond drink without sugar")
    assert rows[0][:2] == ("Almond drink unsweetened", "exact")
    assert "not_sold" not in found.extras["flags"]


def test_a_flavour_said_by_a_meats_name_is_the_flavour_the_row_names(tmp_path):
    path = tmp_path / "noodles.csv"
    path.write_text("Artikelnr;Benämning;Varugrupp;Förpackning\n1;Cup noodles chicken flavor;Noodles;60 g\n"
                    "2;Instant noodles beef flavour;Noodles;60 g\n3;Rice noodles;Noodles;200 g\n", encoding="utf-8")
    engine = ProductsEngine(path)
    try:
        _, rows = answer(engine, "chicken noodles")
        flavour, flavour_rows = answer(engine, "chicken flavour noodles")
    finally:
        engine.close()
    labels = dict((r[0], r[1]) for r in rows)
    assert labels["Cup noodles chicken flavor"] == "exact"  # "chicken flavor": the flavour asked
    assert labels["Instant noodles beef flavour"] != "exact"  # beef is no chicken
    assert "not_sold" not in flavour.extras["flags"]  # "flavor" carries "flavour"
    assert flavour_rows[0][0] == "Cup noodles chicken flavor"


@pytest.mark.parametrize("text", ["täysjyväriisi", "wholegrain rice", "whole grain rice"])
def test_a_property_the_rows_state_in_another_language_is_carried(tmp_path, text):
    path = tmp_path / "rice.csv"
    path.write_text("Artikelnr;Benämning;Varugrupp;Förpackning\n1;Jasmine rice;Rice;1 kg\n2;Riso integrale;Rice;1 kg\n"
                    "3;Whole wheat flour;Flour;1 kg\n", encoding="utf-8")  # the shop says whole: checkable
    engine = ProductsEngine(path)
    try:
        found, rows = answer(engine, text)
    finally:
        engine.close()
    assert "not_sold" not in found.extras["flags"]
    assert rows[0][0] == "Riso integrale" and rows[0][1] in ("exact", "variant")


@pytest.mark.parametrize("text", ["peanutbutter", "maapähkinävoita"])
def test_a_compound_whose_parts_name_another_kind_is_that_kind(tmp_path, text):
    path = tmp_path / "spreads.csv"
    path.write_text("Artikelnr;Benämning;Varugrupp;Förpackning\n1;Butter unsalted;Dairy;500 g\n"
                    "2;Peanut butter crunchy;Spreads;350 g\n", encoding="utf-8")
    engine = ProductsEngine(path)
    try:
        found, rows = answer(engine, text)
    finally:
        engine.close()
    assert found.extras["understood"]["kinds"] == ["peanut_butter"]  # peanut + butter, never butter narrowed by peanut
    assert "not_sold" not in found.extras["flags"] and rows[0][0] == "Peanut butter crunchy"


def test_a_source_said_another_way_lifts_the_row_carrying_it(described):
    found, rows = answer(described, "soya milk")  # soya pairs with soija, which is soy: no "not sold"
    assert "not_sold" not in found.extras["flags"]
    soy = next(r for r in rows if r[0].startswith("Soy milk"))
    assert soy[1] == "variant" and "carries every part" in soy[2]
    assert [r[0] for r in rows if r[1] in ("exact", "variant")] == ["Soy milk, unsweetened"]  # cow's milk lacks soya


@pytest.mark.parametrize("text", ["pähkinäsuklaa", "nut chocolate"])
def test_a_nut_is_carried_by_a_row_declaring_nuts(tmp_path, text):
    path = tmp_path / "off.tsv"
    path.write_text(OFF_HEADER
                    + "1\tDark Chocolate 73%\t\tX\t100 g\ten:chocolates,en:dark-chocolates\t\t\t\t\t\tt\n"
                    + "2\tMilk Chocolate with Almonds\t\tY\t100 g\ten:chocolates\t\ten:nuts,en:milk\t\t\t\tt\n"
                    + "3\tMixed nuts\t\tZ\t200 g\ten:nuts\t\ten:nuts\t\t\t\tt\n",  # pähkinä, nut: words it checks
                    encoding="utf-8")
    engine = ProductsEngine(path)
    try:
        found, rows = answer(engine, text)
    finally:
        engine.close()
    assert "not_sold" not in found.extras["flags"]
    assert rows[0][0].startswith("Milk Chocolate with Almonds") and rows[0][1] in ("exact", "variant")
    assert dict((r[0].split(" (")[0], r[1]) for r in rows)["Dark Chocolate 73%"] == "standin"  # declares no nut


def test_understood_says_of_each_word_what_a_row_lacking_it_becomes(shop):
    """As check_words applies it: a form some row of the kind states ("smoked" salmon) makes a row lacking
    it a stand-in, and is said so; one no row of the kind states ("ground" turkey) leaves it a variant,
    and `understood` says that, not "at most a stand-in"."""
    found, rows = answer(shop, "smoked salmon")
    said = {w["word"]: w["detail"] for w in found.extras["understood"]["words"]}
    assert "at most a stand-in" in said["smoked"]
    assert next(r for r in rows if r[0] == "Salmon fillet")[1] == "standin"
    found, rows = answer(shop, "ground turkey")
    said = {w["word"]: w["detail"] for w in found.extras["understood"]["words"]}
    assert "at most a variant" in said["ground"] and "stand-in" not in said["ground"]
    assert next(r for r in rows if r[0] == "Turkey breast")[1] == "variant"
