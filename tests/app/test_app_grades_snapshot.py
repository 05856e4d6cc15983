"""The evaluation view over a person's own grades (issue 47): rows graded in the pane, "your grades" chosen
beside the public datasets, run, and a graded query opened: each configuration's rows with their
grades, the rows nobody graded marked unrated. No model: recall is off."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList, Select

from engines.notes.engine import NotesEngine
from olai_tui.ui.evaluation import EvaluationScreen
from olai_tui.ui.palette import workbench_commands
from olai_tui.ui.request_view import RequestScreen
from tests.snapshot_app import DEMO, SIZE, settle, type_query, wait_until, workbench


class NoModel:
    def info(self):
        raise AssertionError("the model was asked for")

    def embed(self, texts, kind):
        raise AssertionError("the model was asked for")


@pytest.fixture
def graded_notes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")
    monkeypatch.delenv("NO_COLOR", raising=False)
    engine = NotesEngine(DEMO, embedder=NoModel(), cache_dir=str(tmp_path / "cache"))
    yield engine
    engine.close()


async def grade_and_open(pilot) -> None:
    app = pilot.app
    await type_query(pilot, "slugs")
    await pilot.press("down", "3", "down", "down", "0")  # the first row exactly right, the third irrelevant
    await pilot.pause()
    next(c for c in workbench_commands(app) if c.text == "Evaluate configurations on a dataset").run()
    await wait_until(pilot, lambda: isinstance(app.screen, EvaluationScreen))
    screen = app.screen
    await pilot.pause()
    screen.query_one("#dataset", Select).value = "notes/judged"
    await pilot.pause()
    await pilot.press("r")
    await wait_until(pilot, lambda: not screen.busy and screen.evaluated is not None, timeout=30)
    await settle(pilot)
    requests = screen.query_one("#requests", OptionList)
    requests.focus()
    requests.highlighted = 0
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, RequestScreen))
    await settle(pilot)


def test_a_graded_query_shows_each_configuration_s_rows_graded_and_the_unrated_marked(snap_compare, graded_notes):
    app = workbench(graded_notes)
    assert snap_compare(app, terminal_size=SIZE, run_before=grade_and_open)


@pytest.mark.anyio
async def test_your_grades_are_offered_beside_the_public_datasets_and_graded_there_as_in_the_pane(graded_notes):
    app = workbench(graded_notes)
    async with app.run_test(size=SIZE) as pilot:
        await grade_and_open(pilot)
        evaluation = app.screen_stack[-2]
        shown = [text for text, _value in evaluation.choices()]
        assert shown[-1] == "notes · your grades (fixtures/notes)" and "notes · vaswani" in shown
        table = evaluation.evaluated.tables[0]
        assert set(table.metrics) == {"exact", "words", "semantic", "answer"}
        assert table.metrics["exact"]["unrated@10"] == 1  # the second row: graded neither 3 nor 0
        request = app.screen
        exact = request.verdicts["exact"]
        assert [v.unrated for v in exact] == [False, True, False] and exact[0].gain == 3
        await pilot.press("down", "2")  # the unrated row, graded here as in the pane
        await pilot.pause()
        assert request.verdicts["exact"][1].gain == 2 and not request.verdicts["exact"][1].unrated
        assert request.verdicts["answer"][1].gain == 2  # every column shows it
        await pilot.press("escape")  # back to the evaluation view: run again, against the run just kept
        await wait_until(pilot, lambda: app.screen is evaluation)
        assert "the next run is compared with it" in str(evaluation.query_one("#against").render())
        evaluation.evaluated = None
        await pilot.press("r")
        await wait_until(pilot, lambda: not evaluation.busy and evaluation.evaluated is not None, timeout=30)
        await settle(pilot)
        against = str(evaluation.query_one("#against").render())
        assert "against run" in against and "exact: unrated@10 1 → 0" in against
        await pilot.press("escape")
        await pilot.pause()
        pane = app.active_pane
        pane.run_query("slugs", debounce=False)  # the pane reads the journal again: the grade is there
        await settle(pilot)
        assert pane.table.grades == {exact[0].id: 3, exact[1].id: 2, exact[2].id: 0}
        assert pane.adapter.engine.read(exact[0].id).title  # the pane's engine stayed open
