"""Comparisons that refuse to mislead (issue 57): runs over different grades or queries refused (or,
with --force, warned), every setting that differs named, off tiers said off, no significance test
below ten queries, the first `--against last` keeping itself, runs pruned to a stated number."""

from __future__ import annotations

import json

import pytest

from engines.eval.judgements import compare, runs
from engines.eval.judgements.store import Judgements
from olai_tui.cli import main

NOTES = {"lettuce.md": "# Lettuce lost\n\nThe slugs ate the lettuce again.\n",
         "beer.md": "# Beer traps\n\nBeer traps catch slugs and snails overnight.\n"}


@pytest.fixture
def graded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")
    corpus = tmp_path / "notes"
    corpus.mkdir()
    for name, text in NOTES.items():
        (corpus / name).write_text(text)
    Judgements("notes", corpus).write([("slugs", "lettuce.md", 3, "", ""), ("slugs", "beer.md", 1, "", ""),
                                       ("snails", "beer.md", 3, "", ""), ("traps", "beer.md", 2, "", ""),
                                       ("lettuce", "lettuce.md", 3, "", "")])
    return corpus


def evaluate(capsys, corpus, *args) -> tuple[int, str, str]:
    code = main(["eval", "notes", "--corpus", str(corpus), "--configs", "exact,semantic", *args])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def test_the_first_run_against_last_keeps_itself(graded, capsys):
    code, out, err = evaluate(capsys, graded, "--judged", "--against", "last")
    assert code == 0, err
    assert "no earlier run is kept: this run is kept as the first" in err and "run kept as" in err
    assert len(runs.runs_of("notes", str(graded))) == 1


def test_runs_over_other_grades_are_refused_and_forced_comparisons_warn(graded, capsys, tmp_path):
    mine = tmp_path / "mine.csv"
    mine.write_text("query,id,grade\nslugs,lettuce.md,3\nSlugs ,beer.md,1\nslugs,gone.md,2\n")  # one query
    code, out, err = evaluate(capsys, graded, "--judgements", str(mine))
    assert code == 0 and f"{mine}: 1 graded id is not in the corpus (gone.md): scored as not found" in err
    code, out, err = evaluate(capsys, graded, "--judged", "--against", "last")
    assert code == 2 and err.count("\n") == 1, err
    assert "the grades differ" in err and "was scored on 3 grades of 1 queries" in err and "on 5 grades of 4" in err
    assert "queries only in this run: 'lettuce', 'snails', 'traps'" in err and "--force" in err
    kept = len(runs.runs_of("notes", str(graded)))
    code, out, err = evaluate(capsys, graded, "--judged", "--against", "last", "--force")
    assert code == 0 and "--force: the grades differ" in err
    assert "exact: " in out and len(runs.runs_of("notes", str(graded))) == kept + 1


def test_the_comparison_names_what_changed_and_says_off_tiers_are_off(graded, capsys, monkeypatch):
    assert evaluate(capsys, graded, "--judged")[0] == 0
    monkeypatch.setenv("OLAI_EMBED_MODEL", "none-such")
    code, out, err = evaluate(capsys, graded, "--judged", "--against", "last")
    assert code == 0, err
    assert "changed: settings OLAI_EMBED_MODEL: (empty) → none-such" in out
    assert "semantic: off in the earlier run; off in this run: its figures there are of no answer" in out
    assert "semantic: off when this ran: its figures are of no answer" in out
    assert "| semantic | off | off | off | off | off |" in out  # not 0.000
    assert "ndcg@10 over 4 queries: no difference" in out or "not tested (under 10 queries" in out


def _run(run_id: str, scores: list[float]) -> dict:
    queries = {f"q{n}": {"ndcg@10": s, "top": []} for n, s in enumerate(scores)}
    return {"id": run_id, "configs": {"answer": {"metrics": {"ndcg@10": sum(scores) / len(scores)}, "queries": queries}}}


def test_the_paired_test_runs_from_ten_queries_and_not_below():
    few = compare.compare(_run("a", [0.2, 0.3, 0.4]), _run("b", [0.9, 0.95, 0.99]))["configs"]["answer"]["paired"]
    assert few["p"] is None and few["verdict"].startswith("not tested (under 10 queries")
    before = [0.1 * (n % 5) for n in range(12)]
    many = compare.compare(_run("a", before), _run("b", [s + 0.2 + 0.01 * n for n, s in enumerate(before)]))
    assert many["configs"]["answer"]["paired"]["verdict"] == "more than noise"
    assert many["configs"]["answer"]["paired"]["p"] < 0.05


def test_runs_past_the_kept_number_are_pruned_oldest_first_and_said(graded, capsys, monkeypatch):
    monkeypatch.setattr(runs, "KEEP", 2)
    for _ in range(3):
        code, out, err = evaluate(capsys, graded, "--judged", "--json")
        assert code == 0
    ids = [p.stem for p in runs.runs_of("notes", str(graded))]
    assert len(ids) == 2 and json.loads(out)["run"]["id"] == ids[-1]
    assert json.loads(out)["run"]["pruned"] and "the 1 oldest runs removed" in err and "the latest 2 are kept" in err
