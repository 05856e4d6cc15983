"""A wholesaler's own exports: any delimiter, quoting and encoding, Finnish/Swedish/English headers, bad rows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engines.products.catalogue import CatalogueError, load_catalogue
from engines.products.knowledge import KnowledgeMap
from tests.engines.spreadsheets import write_ods, write_xlsx

ROOT = Path(__file__).resolve().parents[2]
KNOWLEDGE = KnowledgeMap.for_catalogue(ROOT / "fixtures" / "products")

FINNISH = ("Tuotenumero;Tuotenimi;Tuotenimi ruotsiksi;Merkki;Pakkauskoko;Allergeenit;Saattaa sisältää\n"
           "100;KAURAJUOMA;HAVREDRYCK;Oatly;1 l;kaura;\n"
           "101;Maapähkinävoi;Jordnötssmör;Acme;350 g;maapähkinä;hasselpähkinä\n"
           "102;Appelsiinimehu;Apelsinjuice;Valio;1 l;;\n"
           "103;Omenamehu;Äppeljuice;Valio;1 l;ei;\n")


def load(path: Path):
    return load_catalogue(path, KNOWLEDGE)


def folder_listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("delimiter", [";", ",", "\t", "|"])
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-8", "cp1252"])
def test_a_finnish_export_opens_with_any_delimiter_and_encoding(tmp_path, delimiter, encoding):
    text = FINNISH.replace(";", delimiter)
    path = tmp_path / "tuotteet.csv"
    path.write_bytes(text.encode(encoding))
    cat = load(path)
    assert [p.id for p in cat.products] == ["100", "101", "102", "103"]
    oat, butter, orange, apple = cat.products
    assert oat.names == {"fi": "KAURAJUOMA", "sv": "HAVREDRYCK"}  # Finnish headers: the main name is Finnish
    assert butter.names["sv"] == "Jordnötssmör"  # the accents survived the encoding guess
    assert oat.brand == "Oatly" and str(oat.quantity) == "1 l"
    assert oat.allergens == {"gluten"} and oat.allergen_data
    assert butter.allergens == {"peanuts"} and butter.traces == {"nuts"}  # "maapähkinä" is not a tree nut
    assert not orange.allergen_data  # an empty allergen cell is unknown, never "free of everything"
    assert apple.allergen_data and not apple.allergens  # "ei": known, none
    said = {"utf-8-sig": "UTF-8 with BOM", "utf-8": "UTF-8", "cp1252": "cp1252"}[encoding]
    assert cat.readings[0].how.startswith(said)
    assert not cat.problems


def test_swedish_and_english_headers_map_too(tmp_path):
    path = tmp_path / "artiklar.csv"
    path.write_text('Artikelnummer,Benämning,Namn på finska,Varumärke,Förpackningsstorlek,Allergener,Märkning\n'
                    '7,"Havredryck, ekologisk",Kaurajuoma,Oatly,1 l,"havre, soja","ekologisk, vegansk"\n',
                    encoding="utf-8")
    (product,) = load(path).products
    assert product.names == {"sv": "Havredryck, ekologisk", "fi": "Kaurajuoma"}  # a quoted comma stays text
    assert product.allergens == {"gluten", "soy"}
    assert set(product.claims) >= {"organic", "vegan", "vegetarian"}
    path = tmp_path / "items.jsonl"
    path.write_text('{"sku": "1", "product name": "Oat drink", "allergens": ["oats"]}\nnot json\n'
                    '{"sku": "2", "product name": "Milk"}\n', encoding="utf-8")
    cat = load(path)
    assert [(p.id, p.names) for p in cat.products] == [("1", {"en": "Oat drink"}), ("2", {"en": "Milk"})]
    assert [str(p) for p in cat.problems] == [f"{path}:2: bad JSON (Expecting value)"]


def test_bad_rows_are_named_by_line_and_every_good_row_is_read(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    path = corpus / "tuotteet.csv"
    lines = FINNISH.splitlines()
    broken = [lines[0], lines[1], "200;too;few", '201;"Unclosed quote;x;y;1 l;;', lines[2],
              "202;Kaurajuoma;Havredryck;X;1 l;;"]
    data = ("\n".join(broken) + "\n").encode("utf-8") + "203;Leipä;Bröd;X;1 kg;vehnä;\n".encode("cp1252")
    path.write_bytes(data + "204;Ruisleipä;Rågbröd;X;500 g;ruis;\n".encode("utf-8"))
    before = folder_listing(corpus)
    cat = load(corpus)
    assert [p.id for p in cat.products] == ["100", "101", "202", "204"]
    assert [str(p) for p in cat.problems] == [
        f"{path}:3: 3 fields where the header has 7",
        f"{path}:4: unclosed quote: row skipped",
        f"{path}:7: not UTF-8 like the rest of the file (byte 0xe4): row skipped",
    ]
    assert folder_listing(corpus) == before  # nothing written into what is searched


def test_a_missing_name_column_is_asked_for_in_one_line(tmp_path):
    path = tmp_path / "tuotteet.csv"
    path.write_text("Tuote-ID;Hinta\n1;2,50\n", encoding="utf-8")
    with pytest.raises(CatalogueError) as caught:
        load(path)
    assert str(caught.value) == (f"{path}: no name column among Tuote-ID, Hinta; "
                                 f"say which in catalogue.toml ([columns] name = \"...\")")
    (tmp_path / "catalogue.toml").write_text('language = "fi"\n[columns]\nname = "Tuote-ID"\n', encoding="utf-8")
    assert load(path).products[0].names == {"fi": "1"}


def test_a_binary_file_is_one_line(tmp_path):
    path = tmp_path / "tuotteet.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(64))
    with pytest.raises(CatalogueError) as caught:
        load(path)
    assert "\n" not in str(caught.value) and "a binary file, not a text table" in str(caught.value)


def test_a_folder_of_exports_opens_and_passes_over_tables_that_are_not_catalogues(tmp_path):
    (tmp_path / "tuotteet.csv").write_text(FINNISH, encoding="utf-8")
    (tmp_path / "ratings-dev.csv").write_text("query,docid,rating\nmilk,100,3\n", encoding="utf-8")
    cat = load(tmp_path)
    assert len(cat) == 4 and not cat.problems


SWEDISH_SHEET = [
    ["Artikelregister, Grossist Ab", "", "", "", ""],  # title rows above the header, as exports have
    ["Utskriven 2026-11-30", "", "", "", ""],
    ["", "", "", "", ""],
    ["Artikelnummer", "Benämning", "Namn på finska", "Förpackningsstorlek", "Allergener"],
    ["6410000000001", "Havredryck", "Kaurajuoma", "1 l", "havre"],
    ["6410000000002", "Sojadryck", "Soijajuoma", "1 l", "soja"],
    ["6410000000003", "Apelsinjuice", "Appelsiinimehu", "1 l", ""],
]


@pytest.mark.parametrize("writer, suffix", [(write_xlsx, ".xlsx"), (write_ods, ".ods")])
def test_a_spreadsheet_with_swedish_headers_below_title_rows_opens(tmp_path, writer, suffix):
    path = writer(tmp_path / f"artiklar{suffix}", SWEDISH_SHEET)
    cat = load(path)
    assert [p.id for p in cat.products] == ["6410000000001", "6410000000002", "6410000000003"]
    oat = cat.products[0]
    assert oat.names == {"sv": "Havredryck", "fi": "Kaurajuoma"}  # Swedish headers: the main name is Swedish
    assert oat.allergens == {"gluten"} and str(oat.quantity) == "1 l"
    assert not cat.products[2].allergen_data
    assert cat.readings[0].how.endswith("header on row 4")
    assert [p.source for p in cat.products] == [f"{path}:{n}" for n in (5, 6, 7)]  # sheet rows, as the user sees them


def test_a_broken_spreadsheet_is_one_line(tmp_path):
    path = tmp_path / "tuotteet.xlsx"
    path.write_bytes(b"PK\x03\x04 not really a workbook")
    with pytest.raises(CatalogueError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: not a readable spreadsheet (") and "\n" not in str(caught.value)


def test_an_edited_export_is_read_again_while_the_engine_is_open(tmp_path):
    import time

    from engines.products.engine import ProductsEngine

    path = tmp_path / "tuotteet.csv"
    path.write_text(FINNISH, encoding="utf-8")
    engine = ProductsEngine(path, knowledge=KNOWLEDGE)
    watcher = engine.watch()
    try:
        time.sleep(0.3)  # the watch is set up
        path.write_text(FINNISH + "104;Mantelijuoma;Mandeldryck;Alpro;1 l;manteli;\n", encoding="utf-8")
        deadline = time.monotonic() + 10
        while "104" not in engine.catalogue.by_id and time.monotonic() < deadline:
            time.sleep(0.05)
        assert engine.catalogue.products[engine.catalogue.by_id["104"]].allergens == {"nuts"}
        assert watcher.changes_seen == 1
        answer = engine.search("mantelijuoma", 3, sources=("code", "lexical", "typo", "words", "standard", "kinds"))
        assert any(hit.id == "104" for batch in answer for hit in batch.hits)
        path.write_text(FINNISH + "104;Mantelijuoma;Mandeldryck;Alpro;1 l;manteli;\n", encoding="utf-8")
        time.sleep(0.5)
        assert watcher.changes_seen == 1  # the same rows saved again: nothing rebuilt
    finally:
        watcher.stop()
        engine.close()


def test_index_products_prints_the_mapping_encoding_rows_read_and_skipped(tmp_path, capsys):
    from olai_tui.cli import main

    path = tmp_path / "tuotteet.csv"
    path.write_bytes((FINNISH + "200;too;few\n").encode("cp1252"))
    assert main(["index", "products", "--corpus", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:11] == [
        f"{path}: cp1252 (Windows Latin-1), ';'-separated",
        "  columns (guessed from the headers; main names in Finnish):",
        "    Tuotenumero -> code",
        "    Tuotenimi -> name (fi)",
        "    Tuotenimi ruotsiksi -> name (sv)",
        "    Merkki -> brand",
        "    Pakkauskoko -> size",
        "    Allergeenit -> allergens",
        "    Saattaa sisältää -> traces",
        f"  4 rows read, 1 skipped; rows hash {load(path).readings[0].rows_hash}",
        "    line 6: 3 fields where the header has 7",
    ]


def test_title_lines_above_a_csv_header_are_passed_over(tmp_path):
    path = tmp_path / "tuotteet.csv"
    path.write_text("Tuoteluettelo 2026;;;;;;\nTulostettu 30.11.2026\n\n" + FINNISH, encoding="utf-8")
    cat = load(path)
    assert [p.id for p in cat.products] == ["100", "101", "102", "103"] and not cat.problems
    assert cat.products[0].source == f"{path}:5"


def test_config_toml_names_the_columns_when_no_catalogue_toml_does(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "olai-tui").mkdir(parents=True)
    (config / "olai-tui" / "config.toml").write_text('[products.columns]\nname = "Kuvaus"\ncode = "Nro"\n'
                                                     '[products.catalogue]\nlanguage = "fi"\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    path = tmp_path / "data" / "export.csv"
    path.parent.mkdir()
    path.write_text("Nro,Kuvaus,Hinta\n1,Kaurajuoma 1 l,1.99\n", encoding="utf-8")
    cat = load(path)
    (product,) = cat.products
    assert product.id == "1" and product.names == {"fi": "Kaurajuoma 1 l"} and str(product.quantity) == "1 l"
    assert product.attributes == {"Hinta": "1.99"}
    assert cat.readings[0].overridden_by == "config.toml [products.columns]"


def test_an_export_of_any_text_or_bytes_loads_as_products_or_one_line():
    import tempfile

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    lines = FINNISH.splitlines()
    cell = st.one_of(st.text(max_size=20), st.sampled_from(['"', '";', "maito", "\r", "ei", "1 l", "\x00"]))
    row = st.one_of(st.lists(cell, max_size=9).map(";".join), st.sampled_from(lines), st.text(max_size=80))

    @settings(max_examples=int(os.environ.get("OLAI_FUZZ_EXPORTS", "60")), deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(rows=st.lists(row, min_size=1, max_size=8), raw=st.binary(max_size=200),
           suffix=st.sampled_from([".csv", ".tsv", ".jsonl", ".xlsx"]), encoding=st.sampled_from(["utf-8", "cp1252"]))
    def check(rows, raw, suffix, encoding):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "tuotteet" + suffix)
            path.write_bytes("\n".join(rows).encode(encoding, "replace") + raw)
            try:
                cat = load(path)
            except CatalogueError as exc:
                assert "\n" not in str(exc)
                return
            assert all(p.name and "\n" not in str(problem) for p in cat.products for problem in cat.problems)

    check()


@pytest.mark.parametrize("cell, expected", [
    ("maito, vehnä, kananmuna", {"milk", "gluten", "eggs"}),
    ("mjölk, vete, ägg", {"milk", "gluten", "eggs"}),
    ("milk, wheat, egg", {"milk", "gluten", "eggs"}),
    ("täysmaitojauhe, ruisjauho, ohra", {"milk", "gluten"}),
    ("maapähkinä", {"peanuts"}), ("jordnötter", {"peanuts"}), ("peanuts", {"peanuts"}),
    ("hasselpähkinä, manteli", {"nuts"}), ("hasselnötter, mandel", {"nuts"}), ("cashew nuts", {"nuts"}),
    ("kala, katkarapu, simpukka", {"fish", "crustaceans", "molluscs"}),
    ("fisk, räkor, musslor", {"fish", "crustaceans", "molluscs"}),
    ("soija, selleri, sinappi, seesaminsiemen", {"soy", "celery", "mustard", "sesame"}),
    ("soja, selleri, senap, sesamfrön", {"soy", "celery", "mustard", "sesame"}),
    ("rikkidioksidi ja sulfiitit, lupiini", {"sulphites", "lupin"}),
    ("svaveldioxid och sulfiter, lupin", {"sulphites", "lupin"}),
    ("kookosmaito", {"coconut"}), ("kaakaovoi", set()), ("tattari", set()),
])
def test_allergen_cells_in_three_languages_map_to_the_eu_fourteen(cell, expected):
    from engines.products.allergen_words import allergens_in

    assert allergens_in(cell) == expected


def test_catalogue_toml_can_say_the_encoding_and_delimiter(tmp_path):
    path = tmp_path / "tuotteet.tsv"
    path.write_bytes(FINNISH.replace(";", "\t").encode("latin-1"))
    (tmp_path / "catalogue.toml").write_text('encoding = "latin-1"\ndelimiter = "\\t"\n', encoding="utf-8")
    cat = load(path)
    assert cat.products[1].names["sv"] == "Jordnötssmör" and cat.readings[0].how == "latin-1, tab-separated"
