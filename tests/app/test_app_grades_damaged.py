"""The pane's grade key on a journal a crash cut mid-line, with a damaged line before it (issue 57): the
grade is kept on a line of its own, the cut line and the damaged one are named (FILE:LINE) and set
aside beside the journal, and every grade kept before stays. No model: recall is off."""

from __future__ import annotations

import json

import pytest

from engines.eval.judgements.store import Judgements
from engines.notes.engine import NotesEngine
from tests.snapshot_app import DEMO, SIZE, settle, type_query, workbench

pytestmark = pytest.mark.anyio


class NoModel:
    def info(self):
        raise AssertionError("the model was asked for")

    def embed(self, texts, kind):
        raise AssertionError("the model was asked for")


async def test_a_grade_key_after_a_cut_line_keeps_the_grade_and_names_and_sets_aside_the_damage(tmp_path,
                                                                                             monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")
    engine = NotesEngine(DEMO, embedder=NoModel(), cache_dir=str(tmp_path / "cache"))
    app = workbench(engine)
    said: list[str] = []
    shown = app.notify
    app.notify = lambda message, **kw: (said.append(str(message)), shown(message, **kw))[1]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.active_pane
        await type_query(pilot, "slugs")
        first, second = pane.table.hits[0].id, pane.table.hits[1].id
        store = Judgements("notes", DEMO)
        store.grade("Slugs", first, 3)  # graded before, as typed then
        with open(store.path, "ab") as fh:
            fh.write(b'{"query": 5, "item": "x.md", "grade": 1}\n')  # line 3: a number for a query
            fh.write(b'{"query": "slugs", "item": "' + second.encode() + b'", "gra')  # line 4: cut by a crash
        await pilot.press("down", "down", "2")  # the second row graded 2
        await pilot.pause()
        assert pane.table.grades == {first: 3, second: 2}
    app.shutdown()
    assert {j.item: j.grade for j in Judgements("notes", DEMO).all().values()} == {first: 3, second: 2}
    aside = [json.loads(line) for line in store.path.with_name(store.path.stem + ".damaged.jsonl").open()]
    assert [a["from"] for a in aside] == [f"{store.path}:3", f"{store.path}:4"]
    assert aside[1]["line"].endswith('"gra') and aside[1]["why"] == "cut short: a write stopped midway"
    named = "\n".join(said)
    assert f"{store.path}:3: not a grade (query is a number, not text)" in named
    assert f"{store.path}:4: not a grade (cut short: a write stopped midway); skipped, moved to" in named
    assert "Could not keep the grade" not in named
