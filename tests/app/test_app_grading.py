"""Grades in every pane (issue 47): 0-3 on the highlighted row, again to clear, kept as the person's data
for the pane's corpus, back after the workbench is closed and opened again; rows of a graded query
without a grade say "unrated"; the footer counts the graded rows. No model: recall is off."""

from __future__ import annotations

import pytest

from engines.code.engine import CodeEngine
from engines.eval.judgements.store import Judgements
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine
from tests.snapshot_app import CODE_DEMO, DEMO, PRODUCTS_DEMO, SIZE, all_panes, settle, type_query

pytestmark = pytest.mark.anyio
QUERIES = {"notes": "slugs", "products": "laktoositon maito 1 l", "code": "where do we throttle requests"}


class NoModel:
    def info(self):
        raise AssertionError("the model was asked for")

    def embed(self, texts, kind):
        raise AssertionError("the model was asked for")


def workbench(tmp_path):
    notes = NotesEngine(DEMO, embedder=NoModel(), cache_dir=str(tmp_path / "cache"))
    return all_panes(notes, lambda: ProductsEngine(PRODUCTS_DEMO, embedder=NoModel()),
                     lambda: CodeEngine(CODE_DEMO, embedder=NoModel()))


def cells(pane, row: int) -> list[str]:
    return [c.plain.strip() for c in pane.table.get_row_at(row)]


@pytest.fixture
def graded_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")
    return tmp_path


async def test_grades_given_in_each_pane_are_back_after_the_workbench_reopens(graded_home):
    given: dict[str, dict[str, int]] = {}
    app = workbench(graded_home)
    async with app.run_test(size=SIZE) as pilot:
        for name, query in QUERIES.items():
            app.switch_to(name)
            await settle(pilot)
            pane = app.active_pane
            await type_query(pilot, query)
            assert len(pane.table.hits) >= 3, f"{name}: {query!r} answers with at least three rows"
            assert pane.table.grades is None and "grade" not in pane.table.columns  # no grades: no column
            await pilot.press("down")  # from the search box to the rows
            await pilot.press("3")
            await pilot.press("down", "1", "1")  # the same key again clears it
            await pilot.press("0")
            await pilot.pause()
            first, second = pane.table.hits[0].id, pane.table.hits[1].id
            given[name] = {first: 3, second: 0}
            assert pane.table.grades == given[name]
            assert "3 exact" in cells(pane, 0) and "0 no" in cells(pane, 1) and "unrated" in cells(pane, 2)
            rows = len(pane.table.hits)
            assert f"graded 2 of {rows} rows of this query" in str(pane.query_one("#tiers").render())
    app.shutdown()
    for name in QUERIES:  # kept per engine and corpus, each in its own journal
        assert {item: g for (q, item), j in _kept(name).items() for g in [j.grade]} == given[name]

    again = workbench(graded_home)
    async with again.run_test(size=SIZE) as pilot:
        for name, query in QUERIES.items():
            again.switch_to(name)
            await settle(pilot)
            await type_query(pilot, query)
            pane = again.active_pane
            assert pane.table.grades == given[name], f"{name}: the grades are back"
            assert "3 exact" in cells(pane, pane.table.hits.index(next(h for h in pane.table.hits
                                                                        if given[name].get(h.id) == 3)))
    again.shutdown()


def _kept(name: str):
    corpus = {"notes": DEMO, "products": PRODUCTS_DEMO, "code": CODE_DEMO}[name]
    return Judgements(name, corpus).all()


async def test_the_grade_keys_are_in_the_palette_and_remappable(graded_home):
    from olai_tui.ui.keys import KeyConfig
    from olai_tui.ui.palette import workbench_commands
    from olai_tui.workbench import build_workbench
    from tests.snapshot_app import SnapshotWorkbench

    notes = NotesEngine(DEMO, embedder=NoModel(), cache_dir=str(graded_home / "cache"))
    app = build_workbench(engines={"notes": notes}, keys=KeyConfig(keymap={"grade-3": "f3"}),
                          app_class=SnapshotWorkbench, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "slugs")
        pane = app.active_pane
        texts = [c.text for c in workbench_commands(app)]
        assert [t for t in texts if t.startswith("Grade row")] == [
            "Grade row 3: exactly right", "Grade row 2: good or a stand-in", "Grade row 1: related",
            "Grade row 0: irrelevant"]
        await pilot.press("down", "f3")
        await pilot.pause()
        assert pane.table.grades == {pane.table.hits[0].id: 3}
        next(c for c in workbench_commands(app) if c.text == "Grade row 1: related").run()
        await pilot.pause()
        assert pane.table.grades == {pane.table.hits[0].id: 1}
    app.shutdown()
