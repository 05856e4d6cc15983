"""Every pane's engine is followed on disk: in the workbench built as `olai-tui` builds it, a function
added to a file of the code tree shows on the code pane's next query, as an edited note does."""

from __future__ import annotations

import shutil
import time

import pytest

from olai_tui.workbench import build_workbench
from tests.snapshot_app import CODE_DEMO, SIZE, SnapshotWorkbench, settle, type_query

pytestmark = pytest.mark.anyio
NEW_FUNCTION = '''

def compost_turner_schedule(days: int) -> list[int]:
    """When to turn the heap: every third day."""
    return list(range(0, days, 3))
'''


async def test_a_function_added_to_a_file_shows_on_the_code_panes_next_query(tmp_path):
    tree = tmp_path / "code"
    shutil.copytree(CODE_DEMO, tree)
    app = build_workbench({"code": tree}, pane="code", app_class=SnapshotWorkbench)
    try:
        async with app.run_test(size=SIZE) as pilot:
            pane = app.active_pane
            assert pane.adapter.name == "code"
            await type_query(pilot, "compost turner schedule")
            assert not [h for h in pane.table.hits if "compost_turner_schedule" in h.id]
            with open(tree / "shopfront" / "orders.py", "a", encoding="utf-8") as fh:
                fh.write(NEW_FUNCTION)
            written = time.monotonic()
            found = []
            while time.monotonic() - written < 2.0:  # the bound: on the next query within 2 s
                await pilot.pause(0.1)
                pane.run_query(pane.query_text, debounce=False)
                await settle(pilot)
                found = [h for h in pane.table.hits if "compost_turner_schedule" in h.id]
                if found:
                    break
            assert found, "the new function never reached the code pane"
            assert found[0].where.startswith("shopfront/orders.py:")
    finally:
        app.shutdown()


async def test_the_selected_panes_tree_is_read_before_the_app_draws_and_says_how_it_moves(tmp_path):
    tree = tmp_path / "code"
    shutil.copytree(CODE_DEMO, tree)
    told = []
    app = build_workbench({"code": tree}, pane="code", app_class=SnapshotWorkbench, watch=False,
                          loading=lambda done, of, what: told.append((done, of, what)))
    try:
        engine = next(a for a in app.adapters if a.name == "code").engine
        assert told and told[-1] == (engine.files, engine.files, "reading files")
        assert {what for _, _, what in told} == {"reading files"}  # the other panes are not read yet
        assert engine.progress is None, "nothing may draw on the terminal once the app has it"
    finally:
        app.shutdown()
