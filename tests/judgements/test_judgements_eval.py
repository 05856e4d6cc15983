"""`olai-tui eval ENGINE --judged`: a person's grades scored as the public datasets are, runs kept and
compared (issue 47). The figures of a four-note corpus are worked out by hand below."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from engines.eval.judgements.store import Judgements
from olai_tui.cli import main

NOTES = {"copper.md": "# Copper tape\n\nCopper tape around the pots keeps slugs off.\n",
         "lettuce.md": "# Lettuce lost\n\nThe slugs ate the lettuce again.\n",
         "beer.md": "# Beer traps\n\nBeer traps catch slugs and snails overnight.\n",
         "sourdough.md": "# Sourdough\n\nFeed the starter twice a day.\n"}
GRADES = [("slugs", "lettuce.md", 3, "Lettuce lost"), ("slugs", "copper.md", 2, "Copper tape"),
          ("slugs", "beer.md", 0, "Beer traps"),
          ("slugs snails", "beer.md", 3, "Beer traps"), ("slugs snails", "sourdough.md", 0, "Sourdough"),
          ("slugs snails", "lettuce.md", 1, "Lettuce lost"),
          ("traps", "copper.md", 3, "Copper tape")]


@pytest.fixture
def graded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")  # the exact and words tiers alone: no model, the same order every run
    corpus = tmp_path / "notes"
    corpus.mkdir()
    for name, text in NOTES.items():
        (corpus / name).write_text(text)
    Judgements("notes", corpus).write([(q, item, g, title, item) for q, item, g, title in GRADES])
    return corpus


def evaluated(capsys, *args) -> dict:
    assert main(["eval", "notes", "--judged", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_exact_tier_on_hand_graded_queries_scores_as_worked_out_by_hand(graded, capsys):
    out = evaluated(capsys, "--corpus", str(graded), "--configs", "exact")
    rows = {r["query"]: r["configs"]["exact"] for r in out["requests"]}
    # "slugs": the exact tier finds its three notes, equal, in path order: beer (0), copper (2), lettuce (3).
    assert rows["slugs"]["top"] == ["beer.md", "copper.md", "lettuce.md"]
    dcg = 0 + 2 / math.log2(3) + 3 / math.log2(4)
    ideal = 3 + 2 / math.log2(3)
    assert rows["slugs"]["ndcg@10"] == pytest.approx(dcg / ideal, abs=1e-4)  # 0.6480
    assert rows["slugs"]["right_first"] == 0.0 and rows["slugs"]["good_recall@10"] == 1.0
    # "slugs snails": beer alone (3); lettuce (1) is not found: 3 / (3 + 1 / log2 3).
    assert rows["slugs snails"]["top"] == ["beer.md"]
    assert rows["slugs snails"]["ndcg@10"] == pytest.approx(3 / (3 + 1 / math.log2(3)), abs=1e-4)  # 0.8262
    assert rows["slugs snails"]["right_first"] == 1.0
    # "traps": beer, which nobody graded for it: unrated, and the one right note (copper) not found.
    assert rows["traps"]["top"] == ["beer.md"]
    assert (rows["traps"]["ndcg@10"], rows["traps"]["right_first"], rows["traps"]["unrated@10"]) == (0.0, 0.0, 1)
    figures = out["configs"]["exact"]["metrics"]
    assert figures["ndcg@10"] == pytest.approx((dcg / ideal + 3 / (3 + 1 / math.log2(3)) + 0) / 3, abs=1e-4)
    assert figures["right_first"] == pytest.approx(1 / 3, abs=1e-4)
    assert figures["good_recall@10"] == pytest.approx(2 / 3, abs=1e-4)
    assert figures["unrated@10"] == 1
    assert set(out["run"]) == {"id", "path", "pruned"} and out["corpus"] == str(graded.resolve())


def test_every_configuration_of_the_engine_is_scored_and_the_table_lists_unrated_rows(graded, capsys):
    assert main(["eval", "notes", "--judged", "--corpus", str(graded)]) == 0
    printed = capsys.readouterr()
    for config in ("| exact |", "| words |", "| semantic |", "| answer |"):
        assert config in printed.out
    assert "notes · your grades ·" in printed.out
    assert "'traps': Beer traps (beer.md)" in printed.out
    assert "run kept as" in printed.err


def test_a_moved_note_keeps_its_grades_and_a_deleted_one_is_named_once(graded, capsys):
    (graded / "garden").mkdir()
    shutil.move(graded / "lettuce.md", graded / "garden" / "lettuce.md")
    (graded / "sourdough.md").unlink()
    out = evaluated(capsys, "--corpus", str(graded), "--configs", "exact")
    said = [n for n in out["notes"] if "sourdough.md" in n or "lettuce.md" in n]
    assert any("lettuce.md is now garden/lettuce.md" in n for n in said)
    assert len([n for n in said if "no longer in the corpus (sourdough.md)" in n]) == 1
    assert Judgements("notes", graded).of_query("slugs")["garden/lettuce.md"] == 3
    rows = {r["query"]: r["configs"]["exact"] for r in out["requests"]}
    assert rows["slugs"]["top"] == ["beer.md", "copper.md", "garden/lettuce.md"]
    assert rows["slugs"]["ndcg@10"] == pytest.approx(0.6480, abs=1e-4)  # the same as before the move


def test_two_runs_compared_after_a_setting_changed_list_the_queries_that_moved(graded, capsys, monkeypatch):
    first = evaluated(capsys, "--corpus", str(graded), "--configs", "exact,answer")
    Judgements("notes", graded).grade("traps", "beer.md", 1)  # the grades stay; what the engine does changes:
    monkeypatch.delenv("OLAI_RECALL")  # meaning on: its rows join the answer
    args = ["eval", "notes", "--judged", "--json", "--corpus", str(graded), "--configs", "exact,answer",
            "--against", first["run"]["id"]]
    assert main(args) == 2  # the grades changed: refused, saying how (issue 57)
    assert "the grades differ" in capsys.readouterr().err
    second = evaluated(capsys, *args[4:], "--force")
    compared = second["against"]
    assert "settings OLAI_RECALL: off → (empty)" in compared["changed"]  # the setting that changed, named
    assert compared["before"] == first["run"]["id"] and compared["after"] == second["run"]["id"]
    answer = compared["configs"]["answer"]
    moved = {q["query"] for q in answer["better"] + answer["worse"]}
    entered = {r["query"]: r["entered"] for r in answer["rows"]}
    assert moved and entered, answer
    assert "traps" in moved  # beer graded 1 since: that query's figure moved with the same rows
    assert answer["paired"]["queries"] == 3 and answer["paired"]["verdict"].startswith("not tested (under 10 queries")
    assert 0.0 <= answer["jaccard@10"] < 1.0
    exact = compared["configs"]["exact"]
    assert exact["rows"] == [] and exact["jaccard@10"] == 1.0  # the exact tier does not use the setting


def test_against_names_a_missing_run_in_one_line(graded, capsys):
    assert main(["eval", "notes", "--judged", "--corpus", str(graded), "--against", "20990101T000000Z"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such run file or run id" in err


def test_judged_and_dataset_together_are_a_bad_argument(graded, capsys):
    assert main(["eval", "notes", "--judged", "--dataset", "vaswani"]) == 2
    assert main(["eval", "notes"]) == 2
    assert main(["eval", "notes", "--dataset", "vaswani", "--against", "last"]) == 2
    assert "only eval --judged" in capsys.readouterr().err


def test_a_judgement_file_scores_as_the_kept_grades_do(graded, capsys, tmp_path):
    kept = evaluated(capsys, "--corpus", str(graded), "--configs", "exact")
    assert main(["judgements", "export", "notes", str(tmp_path / "grades.csv"), "--corpus", str(graded)]) == 0
    with open(tmp_path / "grades.csv", "a") as fh:
        fh.write("slugs,copper.md,seven\n")
    capsys.readouterr()
    assert main(["eval", "notes", "--judgements", str(tmp_path / "grades.csv"), "--corpus", str(graded),
                 "--configs", "exact", "--json"]) == 0
    printed = capsys.readouterr()
    from_file = json.loads(printed.out)
    assert from_file["configs"]["exact"]["metrics"] | {"p50_ms": 0, "p90_ms": 0} == \
        kept["configs"]["exact"]["metrics"] | {"p50_ms": 0, "p90_ms": 0}
    assert from_file["graded_by"] == str(tmp_path / "grades.csv")
    assert f"{tmp_path / 'grades.csv'}:9: grade 'seven' is not a number; skipped" in printed.err
