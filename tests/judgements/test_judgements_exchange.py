"""Judgement lists in and out: TREC qrels with a queries file, and CSV query,id,grade (Quepid's shape)."""

from __future__ import annotations

import pytest

from engines.errors import BadInput
from engines.eval.judgements import exchange
from engines.eval.judgements.store import Judgements
from olai_tui.cli import main

GRADES = [("slugs in the cold frame", "garden/slugs.md", 3), ("slugs in the cold frame", "garden/sowing.md", 0),
          ('bread, "sourdough" starter', "kitchen/bread.md", 2), ("wiring", "workshop/socket.md", 1)]


def test_csv_and_qrels_written_then_read_give_the_same_grades(tmp_path):
    exchange.write_csv(tmp_path / "grades.csv", GRADES)
    exchange.write_qrels(tmp_path / "grades.qrels", tmp_path / "queries.tsv", GRADES)
    assert (tmp_path / "grades.qrels").read_text().splitlines()[0] == "q1 0 garden/slugs.md 3"
    from_csv = exchange.read_file(tmp_path / "grades.csv")
    from_qrels = exchange.read_file(tmp_path / "grades.qrels", tmp_path / "queries.tsv")
    assert from_csv.grades == from_qrels.grades == GRADES
    assert from_csv.problems == from_qrels.problems == []


def test_a_malformed_line_is_named_with_its_number_and_the_rest_kept(tmp_path):
    csv_file = tmp_path / "ratings.csv"
    csv_file.write_text("query,docid,rating\nslugs,garden/slugs.md,3\nslugs,garden/a.md,high\n"
                        "just one field\nwiring,workshop/socket.md,1\n")
    read = exchange.read_file(csv_file)
    assert read.grades == [("slugs", "garden/slugs.md", 3), ("wiring", "workshop/socket.md", 1)]
    assert read.problems == [f"{csv_file}:3: grade 'high' is not a number; skipped",
                             f"{csv_file}:4: 1 fields where query, id and grade were expected; skipped"]
    qrels, queries = tmp_path / "q.qrels", tmp_path / "q.tsv"
    queries.write_text("1\tslugs\n2\twiring\n")
    qrels.write_text("1 0 garden/slugs.md 3\n1 0 garden/a.md 9\n7 0 x.md 1\n7 0 y.md 1\n2 0 workshop/socket.md 1\n")
    read = exchange.read_file(qrels, queries)
    assert read.grades == [("slugs", "garden/slugs.md", 3), ("wiring", "workshop/socket.md", 1)]
    assert read.problems == [f"{qrels}:2: grade '9' is not 0, 1, 2 or 3; skipped",
                             f"{qrels}:3: query '7' is not in q.tsv; its lines skipped"]


def test_qrels_without_their_queries_file_say_so(tmp_path):
    (tmp_path / "g.qrels").write_text("1 0 a 1\n")
    with pytest.raises(BadInput, match="give the queries file too"):
        exchange.read_file(tmp_path / "g.qrels")


def test_export_then_import_through_the_command_line_keeps_every_grade(tmp_path, capsys):
    corpus = tmp_path / "notes"
    corpus.mkdir()
    store = Judgements("notes", corpus)
    store.write([(q, i, g, "", "") for q, i, g in GRADES])
    assert main(["judgements", "export", "notes", str(tmp_path / "out.qrels"), "--queries",
                 str(tmp_path / "out.tsv"), "--corpus", str(corpus)]) == 0
    assert main(["judgements", "export", "notes", str(tmp_path / "out.csv"), "--corpus", str(corpus)]) == 0
    other = tmp_path / "other"
    other.mkdir()
    assert main(["judgements", "import", "notes", str(tmp_path / "out.qrels"), "--queries", str(tmp_path / "out.tsv"),
                 "--corpus", str(other)]) == 0
    assert Judgements("notes", other).by_query() == store.by_query()
    again = tmp_path / "again"
    again.mkdir()
    assert main(["judgements", "import", "notes", str(tmp_path / "out.csv"), "--corpus", str(again)]) == 0
    assert Judgements("notes", again).by_query() == store.by_query()
    assert main(["judgements", "export", "notes", str(tmp_path / "x.qrels"), "--corpus", str(corpus)]) == 2
    assert "--queries FILE" in capsys.readouterr().err


def test_a_file_that_cannot_be_written_or_read_is_one_line_and_exit_2(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["judgements", "export", "notes", str(blocker / "out.csv")]) == 2
    assert main(["judgements", "import", "notes", str(tmp_path / "missing.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "missing.csv: no such file" in err
