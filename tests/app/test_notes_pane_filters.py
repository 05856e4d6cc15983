"""The notes pane with filters: the footer shows the active ones, the palette offers them."""

from __future__ import annotations

from pathlib import Path

import pytest

from olai_tui.ui.palette import workbench_commands
from tests.snapshot_app import index_ready, notes_engine, settle, type_query, workbench

pytestmark = pytest.mark.anyio
VAULT = Path(__file__).resolve().parents[1] / "data" / "vault"


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_the_footer_shows_the_active_filters_and_a_word_that_only_looked_like_one(tmp_path):
    engine = notes_engine(tmp_path / "cache", root=VAULT)
    app = workbench(engine, label="vault")
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await index_ready(pilot, engine)
            await type_query(pilot, "in:kitchen bread after:2024-01-01")
            pane = app.active_pane
            footer = str(pane.query_one("#tiers").render())
            assert "filters in:kitchen · after:2024-01-01" in footer
            assert {h.id for h in pane.table.hits} <= {"kitchen/bread.md", "kitchen/broken-front.md"}
            await type_query(pilot, "slugs after:soon")
            footer = str(pane.query_one("#tiers").render())
            assert "filters" not in footer and "'after:soon' searched as a word: not a date" in footer
    finally:
        engine.close()


async def test_the_palette_offers_the_notebooks_tags_folders_and_dates_as_filters(tmp_path):
    engine = notes_engine(tmp_path / "cache", root=VAULT)
    app = workbench(engine, label="vault")
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            offered = {c.text: c for c in workbench_commands(app)}
            assert {"Filter notes: #garden", "Filter notes: #kitchen", "Filter notes: in:kitchen"} <= set(offered)
            assert any(t.startswith("Filter notes: after:") for t in offered)
            offered["Filter notes: #garden"].run()
            await pilot.pause(0.15)
            await settle(pilot)
            pane = app.active_pane
            assert pane.input.value == "#garden"
            assert {h.id for h in pane.table.hits} == {"garden/slug-patrol.md", "garden/cold-frame.md",
                                                      "garden/companion-planting.md"}
    finally:
        engine.close()
