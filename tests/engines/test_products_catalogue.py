"""The catalogue: Open Food Facts and Icecat loaders, pack sizes, the knowledge map, the default fixture."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engines.products.catalogue import CatalogueError, load_catalogue
from engines.products.product import Quantity, parse_quantity
from engines.products.knowledge import KnowledgeMap

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "products"
HEADER = ["code", "product_name", "brands", "quantity", "categories_tags", "labels_tags", "allergens_tags",
          "traces_tags", "ingredients_text"]


def write_tsv(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("\n".join("\t".join(r) for r in [HEADER, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("text, expected", [
    ("1 l", Quantity(1000, "ml")), ("500 g", Quantity(500, "g")), ("6 x 330 ml", Quantity(330, "ml", 6)),
    ("1lt", Quantity(1000, "ml")), ("Half Gallon (1.89 L)", Quantity(1890, "ml")), ("2,5 kg", Quantity(2500, "g")),
    ("70 cl", Quantity(700, "ml")), ("", None), ("a bag", None),
])
def test_pack_sizes_are_read_into_base_units(text, expected):
    assert parse_quantity(text) == expected


def test_a_litre_matches_1000_ml_but_not_half_a_litre():
    assert Quantity(1000, "ml").matches(parse_quantity("1 l"))
    assert not Quantity(500, "ml").matches(parse_quantity("1 l"))
    assert not Quantity(330, "ml", 6).matches(parse_quantity("330 ml"))


def test_off_loader_keeps_good_lines_and_names_the_bad_ones(tmp_path):
    tsv = write_tsv(tmp_path / "shop.tsv", [
        ["111", 'Latte "fresco" senza lattosio', "Granarolo", "1 l", "en:dairies,en:milks", "en:no-lactose",
         "en:milk", "", "latte"],
        ["222", "Soy drink", "Alpro", "1 l", "en:plant-milks", "", "", "en:nuts", "water, soya beans"],
        ["333", "too", "few"],
        ["444", "", "NoName", "", "", "", "", "", ""],
        ["555", "Crackers", "Acme", "200 g", "en:crackers", "", "", "", ""],
    ])
    cat = load_catalogue(tsv)
    assert [p.id for p in cat.products] == ["111", "222", "555"]
    assert sorted(str(p) for p in cat.problems) == [f"{tsv}:4: 3 fields where the header has 9",
                                                    f"{tsv}:5: product 444 has no name"]
    milk, soy, crackers = cat.products
    assert milk.name == 'Latte "fresco" senza lattosio'  # QUOTE_NONE: quotes are text, not quoting
    assert milk.kinds[0] == "milk" and milk.quantity == Quantity(1000, "ml")
    assert milk.claims["lactose_free"] == "label en:no-lactose"
    assert soy.allergens == {"soy"} and soy.traces == {"nuts"}  # soy read from the ingredients list
    assert not crackers.allergen_data  # nothing stated at all: unknown, not "free of everything"


def test_a_catalogue_with_no_readable_product_is_one_clear_error(tmp_path):
    with pytest.raises(CatalogueError, match="no readable products"):
        load_catalogue(write_tsv(tmp_path / "empty.tsv", [["1", ""]]))
    with pytest.raises(CatalogueError, match="no such file"):
        load_catalogue(tmp_path / "missing")


def test_icecat_zip_loader_reads_brand_codes_and_attributes(tmp_path):
    items = [{"id": "9", "title": "Logitech M185 mouse", "name": "910-002238", "ean": ["5099206027275"],
              "supplier": "Logitech", "short_description": "Wireless mouse", "attr_t_colour": "grey"},
             {"id": "", "title": "no id"}]
    path = tmp_path / "products_1.json.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("1.json", json.dumps(items))
    cat = load_catalogue(path)
    (mouse,) = cat.products
    assert mouse.brand == "Logitech" and "5099206027275" in mouse.codes and mouse.attributes["colour"] == "grey"
    assert cat.find_code("05099206027275") == 0  # leading zeros do not matter
    assert len(cat.problems) == 1 and "no id" in cat.problems[0].cause


def test_knowledge_map_has_three_languages_and_valid_stand_ins():
    km = KnowledgeMap.load()
    for kind in km.kinds.values():
        assert {"en", "fi", "sv"} <= set(kind.labels), kind.id
        assert all(s in km.kinds for s in kind.standins), kind.id
        assert all(u in km.uses for u in kind.uses), kind.id
    assert km.kind_phrases[("maito",)] == ["milk"] and km.kind_phrases[("kaurajuoma",)] == ["plant_drink"]


def test_categories_decide_the_kind_and_the_name_only_when_they_are_silent():
    km = KnowledgeMap.load()
    assert km.kinds_of(["en:beverages", "en:plant-milks", "en:almond-milks"], ["Almond milk"])[0][0] == "plant_drink"
    assert km.kinds_of([], ["Butter Beans"])[0][0] == "beans"  # English heads come last


def test_the_default_food_catalogue_loads_whole_with_its_attribution():
    cat = load_catalogue(FIXTURE)
    assert len(cat) > 800 and cat.problems == []
    assert all(p.kinds for p in cat.products)
    assert "Open Food Facts contributors" in (FIXTURE / "README.md").read_text(encoding="utf-8")
