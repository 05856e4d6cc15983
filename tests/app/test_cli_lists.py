"""Long lists in command-line output are cut to the terminal's width with a count of what was left out:
`olai-tui eval ENGINE --judged` lists each query's unrated rows (it printed one line of 1,500 characters)."""

from __future__ import annotations

import json

import pytest

from engines.eval.judgements.store import Judgements
from olai_tui.cli import main
from olai_tui.judging import listed_within


def test_a_list_keeps_the_whole_items_that_fit_and_counts_the_rest():
    items = [f"Slug note {n} (slugs-{n}.md)" for n in range(1, 9)]
    line = listed_within("  'slugs': ", items, 80)
    assert len(line) <= 80 and line.endswith(" more")
    kept = line.removeprefix("  'slugs': ").rsplit(" … +", 1)[0].split("; ")
    assert kept == items[: len(kept)] and line.endswith(f"+{len(items) - len(kept)} more")
    assert listed_within("  'slugs': ", items[:2], 80) == "  'slugs': " + "; ".join(items[:2])  # all fit: no count
    # one item longer than the line: its words that fit, then the count
    alone = listed_within("  'q': ", ["a title of many many words " * 5, "b"], 50)
    assert len(alone) <= 50 and alone.endswith("… +1 more") and "  'q': a title of" in alone


def test_eval_judged_cuts_each_querys_unrated_rows_to_the_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")  # the exact tier alone: no model
    monkeypatch.setenv("COLUMNS", "72")
    corpus = tmp_path / "notes"
    corpus.mkdir()
    for n in range(12):
        (corpus / f"slugs-{n:02}.md").write_text(f"# Slugs in bed {n}\n\nThe slugs came back to bed {n} tonight.\n")
    Judgements("notes", corpus).write([("slugs", "slugs-00.md", 3, "Slugs in bed 0", "slugs-00.md")])
    assert main(["eval", "notes", "--judged", "--corpus", str(corpus), "--configs", "exact"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  'slugs': ")]
    assert len(listed) == 1 and len(listed[0]) <= 72 and listed[0].endswith(" more")
    shown = listed[0].count("(slugs-") + int(listed[0].rsplit("+", 1)[1].split()[0])
    assert shown == 9, "every unrated row of the top 10 is either listed or counted"
    assert main(["eval", "notes", "--judged", "--corpus", str(corpus), "--configs", "exact", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["requests"][0]["configs"]["exact"]
    assert row["unrated@10"] == 9 and len(row["top"]) == 10  # --json keeps them all
