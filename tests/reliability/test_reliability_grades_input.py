"""Bad grades named, the rest kept (issue 57): a damaged journal line of each kind named FILE:LINE by
export and eval (the workbench: tests/app/test_app_grades_damaged.py) and left as it was by them; an
imported file's bad cells (overflowing numbers, true, a byte that is not UTF-8, a huge field, a NUL, an
unknown id) one line each; CSV formula cells neutralised on export and read back exactly; a query the
same whatever its case and spacing. Real files, the real command line; never a traceback."""

from __future__ import annotations

import csv
import json

import pytest

from engines.eval.judgements.store import Judgements
from olai_tui.cli import main

NOTES = {"slugs.md": "# Slugs\n\nSlugs eat the lettuce.\n", "beer.md": "# Beer traps\n\nBeer traps catch slugs.\n"}
DAMAGED = {  # line number in the journal -> (the line, why it is named)
    3: (b'{"query": 5, "item": "beer.md", "grade": 1}\n', "query is a number, not text"),
    4: (b'{"query": "sl\xffugs", "item": "beer.md", "grade": 1}\n', "not UTF-8 (byte 0xff at column 14)"),
    5: (b'{"query": "slugs", "item": "beer.md", "grade": 1e309}\n', "1e309 overflows"),
    6: (b'{"query": "slugs", "item": "beer.md", "grade": true}\n', "grade true is not 0, 1, 2 or 3"),
    7: (b'{"query": "' + b"x" * 200_000 + b'", "item": "beer.md", "grade": 1}\n', "a line of 200,044 bytes (over 65,536)"),
    8: (b'{"query": "slugs", "item": ["beer.md"], "grade": 1}\n', "item is a list, not text"),
    10: (b'{"query": "slugs", "item": "be', "cut short: a write stopped midway"),
}


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")
    return folder


def damaged_journal(corpus):
    store = Judgements("notes", corpus)
    store.grade("slugs", "slugs.md", 3)  # line 1 the header, 2 this grade
    with open(store.path, "ab") as fh:
        fh.writelines(DAMAGED[n][0] for n in (3, 4, 5, 6, 7, 8))
        fh.write(b'{"query": "Slugs ", "item": "beer.md", "grade": 2}\n')  # line 9: the same query as line 2
        fh.write(DAMAGED[10][0])
    return store.path


def test_each_kind_of_damaged_line_is_named_by_export_and_eval_and_the_rest_are_read(corpus, tmp_path, capsys):
    journal = damaged_journal(corpus)
    before = journal.read_bytes()
    out = tmp_path / "out.csv"
    assert main(["judgements", "export", "notes", str(out), "--corpus", str(corpus)]) == 0
    err = capsys.readouterr().err
    for number, (_, why) in DAMAGED.items():
        said = [line for line in err.splitlines() if line.startswith(f"olai-tui: {journal}:{number}: not a grade (")]
        assert len(said) == 1 and why in said[0] and said[0].endswith("skipped, kept in the file"), (number, err)
    assert list(csv.reader(out.open())) == [["query", "id", "grade"], ["slugs", "slugs.md", "3"],
                                            ["slugs", "beer.md", "2"]]
    assert main(["eval", "notes", "--judged", "--corpus", str(corpus), "--configs", "exact", "--json"]) == 0
    printed = capsys.readouterr()
    notes = json.loads(printed.out)["notes"]
    assert all(any(n.startswith(f"{journal}:{number}: ") for n in notes) for number in DAMAGED), notes
    assert json.loads(printed.out)["configs"]["exact"]["metrics"]["requests"] == 1
    assert "Traceback" not in printed.err
    assert journal.read_bytes() == before  # readers only name: nothing rewritten, nothing set aside
    assert not journal.with_name(journal.stem + ".damaged.jsonl").exists()


BAD_CSV = ("query,id,grade\n"
           "slugs,slugs.md,3\n"          # 2: good
           "slugs,beer.md,inf\n"         # 3
           "slugs,beer.md,1e309\n"       # 4
           "slugs,beer.md,nan\n"         # 5
           "slugs,beer.md,true\n"        # 6
           "slugs,beer.md,-1\n"          # 7
           "sl\udcffugs,beer.md,1\n"     # 8: a byte that is not UTF-8
           f"{'y' * 200_000},beer.md,1\n"  # 9: a field past the csv module's limit
           "slugs,be\0er.md,1\n"         # 10: a NUL
           "slugs,beer.md\n"             # 11
           "Beer  traps,beer.md,2\n"     # 12: good
           "slugs,never-was.md,1\n")     # 13: an id the corpus never held


def test_every_bad_cell_of_an_import_is_one_line_and_the_rest_are_imported(corpus, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(BAD_CSV.encode("utf-8", "surrogateescape"))
    assert main(["judgements", "import", "notes", str(bad), "--corpus", str(corpus)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for number, why in {3: "grade 'inf' is not 0, 1, 2 or 3 (it overflows)", 4: "(it overflows)",
                        5: "grade 'nan'", 6: "grade 'true' is not a number", 7: "grade '-1' is not 0, 1, 2 or 3",
                        8: "the query is not UTF-8 (byte 0xff)", 9: "the query is 200,000 characters (over 4,096)",
                        10: "the id holds a NUL byte", 11: "2 fields where query, id and grade were expected",
                        13: "id 'never-was.md' is not in notes's corpus now"}.items():
        said = [line for line in err.splitlines() if line.startswith(f"olai-tui: {bad}:{number}: ")]
        assert len(said) == 1 and why in said[0], (number, err)
    assert {(j.query, j.item, j.grade) for j in Judgements("notes", corpus).all().values()} == \
        {("slugs", "slugs.md", 3), ("Beer traps", "beer.md", 2), ("slugs", "never-was.md", 1)}


FORMULAS = [("=HYPERLINK(\"http://evil.invalid\",\"click\")", "slugs.md", 3),
            ("slugs", "=cmd|' /C calc'!A0.md", 2), ("+1 slugs", "@SUM(A1).md", 1), ("-slugs", "-2.md", 0),
            ("'quoted", "''=twice.md", 3), ("@beer", "beer.md", 2)]


def test_formula_cells_are_exported_neutralised_and_imported_back_exactly(corpus, tmp_path, capsys):
    Judgements("notes", corpus).write([(q, i, g, "", "") for q, i, g in FORMULAS])
    out = tmp_path / "grades.csv"
    assert main(["judgements", "export", "notes", str(out), "--corpus", str(corpus)]) == 0
    cells = [cell for row in list(csv.reader(out.open()))[1:] for cell in row[:2]]
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells), cells
    assert "'=HYPERLINK(\"http://evil.invalid\",\"click\")" in cells and "'''=twice.md" in cells
    other = tmp_path / "other"
    other.mkdir()
    for name, text in NOTES.items():
        (other / name).write_text(text)
    assert main(["judgements", "import", "notes", str(out), "--corpus", str(other)]) == 0
    assert {(j.query, j.item, j.grade) for j in Judgements("notes", other).all().values()} == set(FORMULAS)


def test_a_query_is_the_same_whatever_its_case_and_spacing(corpus):
    store = Judgements("notes", corpus)
    store.grade("Seedlings", "slugs.md", 3)
    store.grade("  seedlings ", "beer.md", 1)
    store.grade("SEEDLINGS", "slugs.md", 2)  # the latest grade of the same row wins
    assert store.by_query() == {"Seedlings": {"slugs.md": 2, "beer.md": 1}}
    assert store.of_query("seedlings") == {"slugs.md": 2, "beer.md": 1}
