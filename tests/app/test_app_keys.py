"""Every palette command is reachable from a key shown on screen or in the palette, and that key does what
the command does: driven here key by key, as a person would, on two panes over the demo notebook."""

from __future__ import annotations

import re

import pytest

from olai_tui.ui.compare import CompareScreen
from olai_tui.ui.evaluation import EvaluationScreen
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.opener import RowScreen
from olai_tui.ui.palette import workbench_commands
from engines.notes.engine import NotesEngine
from tests.snapshot_app import DEMO, SIZE, SnapshotWorkbench, settle, shared_embedder, type_query, wait_until

pytestmark = pytest.mark.anyio
# Commands that are the palette's own (ctrl+p, shown in every footer): what they do has no single key
PALETTE_ONLY = re.compile(r"^(Switch to the \w+ pane|Search \w+ for the current query|Turn the \w+ tier (on|off) for"
                          r"|Filter \w+:)")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def engine():
    engine = NotesEngine(DEMO, embedder=shared_embedder())  # the session's cache: embedded once a run
    assert engine.build_index().state == "ready"
    yield engine
    engine.close()


def shown_key(help_text: str) -> str | None:
    """The key a command's help names last, in parentheses: ``(ctrl+j)``, ``(from compare: e)``."""
    found = re.search(r"\((?:from compare: )?([^()]+)\)$", help_text)
    return found.group(1) if found else None


def footer_keys(app) -> dict[str, str]:
    """Key -> label of every binding the footer shows now."""
    return {key: b.binding.description for key, b in app.screen.active_bindings.items() if b.binding.show}


async def test_every_palette_command_is_driven_by_its_shown_key(engine, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = SnapshotWorkbench([EngineAdapter(engine), EngineAdapter(engine, name="journal")])
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "seedlings")
        pane = app.active_pane
        commands = {c.text: c for c in workbench_commands(app)}
        keyed = {text: shown_key(c.help) for text, c in commands.items() if not PALETTE_ONLY.match(text)}
        assert all(keyed.values()), f"a command with no key shown: {[t for t, k in keyed.items() if not k]}"
        assert "ctrl+p" in footer_keys(app) or app.ENABLE_COMMAND_PALETTE  # the palette's own key, in every footer
        assert footer_keys(app)["ctrl+pagedown"] == "Next pane" and footer_keys(app)["ctrl+j"] == "Compare"
        assert footer_keys(app)["ctrl+t"] == "Exact only"
        driven = set()

        async def press(text: str) -> None:
            await pilot.press(keyed[text])
            await pilot.pause()
            driven.add(text)

        await press("Next pane")
        assert app.active_pane.adapter.name == "journal"
        await press("Previous pane")
        assert app.active_pane is pane

        await press("Exact only for notes")
        assert pane.switched_off == {"words", "semantic"} and footer_keys(app)["ctrl+t"] == "Every tier"
        assert "Every tier for notes" in {c.text for c in workbench_commands(app)}
        await pilot.press("ctrl+t")
        assert pane.switched_off == set() and footer_keys(app)["ctrl+t"] == "Exact only"
        await settle(pilot)

        await press("Compare tiers for the current query")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await press("Evaluate configurations on a dataset")
        assert isinstance(app.screen, EvaluationScreen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]

        await press("Rebuild the notes index")
        await wait_until(pilot, lambda: any("re-read" in n for n in app.notified))
        await settle(pilot)

        pane.input.focus()
        await pilot.press("down")  # to the rows, where a row's keys are shown
        await pilot.pause()
        row = pane.table.current
        await press("Copy the highlighted row's path")
        assert any(n.startswith("Copied ") and n.endswith(row.id) for n in app.notified)
        await press("Open the highlighted row")
        assert isinstance(app.screen, RowScreen)
        await pilot.press("escape")
        await pilot.pause()

        for n in (3, 2, 1, 0):  # a grade key, as the palette's command does it; again clears it
            text = next(t for t in keyed if t.startswith(f"Grade row {n}:"))
            await press(text)
            assert (pane.table.grades or {}).get(row.id) == n
            await pilot.press(keyed[text])
            await pilot.pause()
            assert (pane.table.grades or {}).get(row.id) is None

        assert driven == set(keyed), f"not driven: {set(keyed) - driven}"
