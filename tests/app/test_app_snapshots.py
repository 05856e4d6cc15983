"""The workbench's demos, pinned as SVG snapshots (tests/app/__snapshots__/test_app_snapshots/).

Each runs the real notes engine and the real model on the demo notebook, in a cache of its own.
Regenerate after a deliberate change with `pytest tests/app/test_app_snapshots.py --snapshot-update`,
then look at the SVGs. Besides the picture, each test asserts what the picture is meant to show.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from engines.notes.engine import NotesEngine
from olai_tui.ui.compare import CompareScreen
from tests.snapshot_app import (DEMO, SIZE, HeldEmbedder, index_ready, notes_engine, settle, shared_embedder,
                                type_query, wait_until, workbench)


def shown(pilot) -> dict:
    pane = pilot.app.active_pane
    return {"hits": list(pane.table.hits), "answer": pane.answer}


@pytest.fixture(autouse=True)
def _colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)  # the pictures are in colour whatever the shell says


def test_notes_pane_shows_exact_rows_then_resemblance_rows(snap_compare, tmp_path):
    engine = notes_engine(tmp_path / "cache")
    app = workbench(engine)
    seen = {}

    async def run_before(pilot):
        await index_ready(pilot, engine)
        await type_query(pilot, "seedlings")
        seen.update(shown(pilot))

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()
    markers = [hit.marker for hit in seen["hits"]]
    assert markers[0] == "" and "≈" in markers
    assert markers == sorted(markers), "exact rows (no marker) come first, then ≈ rows"
    statuses = {t.name: t.status for t in seen["answer"].tiers}
    # the word-fill tier finds nothing exact did not: every note holding "seedlings" is an exact match
    assert statuses == {"exact": "answered", "words": "empty", "semantic": "answered"}


def test_footer_during_indexing_says_done_of_with_a_bar(snap_compare, tmp_path):
    held = HeldEmbedder(shared_embedder(), batches=1)
    engine = notes_engine(tmp_path / "cache", embedder=held)
    app = workbench(engine)
    seen = {}

    async def run_before(pilot):
        await wait_until(pilot, held.held.is_set)
        await pilot.app.active_pane.poll_live()
        await type_query(pilot, "knives")  # 2 exact rows; 2 ≈ rows among the 14 notes indexed so far
        seen.update(shown(pilot))

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
        semantic = seen["answer"].tier("semantic")
        state = engine.semantic.state()
        assert semantic.status == "indexing"
        assert (semantic.done, semantic.of) == (state.done, state.of) and 0 < state.done < state.of
        assert semantic.count > 0, "the part of the index built so far answers already"
    finally:
        held.release.set()
        engine.close()


def test_semantic_unavailable_says_why_and_how_to_enable(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("OLAI_EMBED_MODEL", "/nonexistent/olai-tui/all-MiniLM-L6-v2.Q8_0.gguf")
    engine = NotesEngine(DEMO, cache_dir=str(tmp_path / "cache"))  # the default embedder, pointed nowhere
    app = workbench(engine)
    seen = {}

    async def run_before(pilot):
        await index_ready(pilot, engine)
        await type_query(pilot, "slugs")
        seen.update(shown(pilot))

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()
    semantic = seen["answer"].tier("semantic")
    assert semantic.status == "unavailable" and "no model file" in semantic.reason and "make" in semantic.enable
    assert seen["hits"] and {hit.tier for hit in seen["hits"]} == {"exact"}


def test_palette_lists_the_workbench_commands(snap_compare, tmp_path):
    engine = notes_engine(tmp_path / "cache")
    app = workbench(engine)

    async def run_before(pilot):
        await index_ready(pilot, engine)
        await type_query(pilot, "slugs")
        await pilot.press("ctrl+p")
        await pilot.pause()
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.press(*"tier")
        await pilot.pause(0.5)  # the palette's providers answer
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()


def test_compare_screen_shows_each_tier_in_its_own_column(snap_compare, tmp_path):
    engine = notes_engine(tmp_path / "cache")
    app = workbench(engine)
    seen = {}

    async def run_before(pilot):
        await index_ready(pilot, engine)
        await type_query(pilot, "seedlings")
        await pilot.press("ctrl+j")  # the key compare shows: every terminal and multiplexer sends it
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                         and all(r.answer is not None for r in pilot.app.screen.results))
        await settle(pilot)
        seen["results"] = pilot.app.screen.results

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()
    exact, words, semantic, merged = seen["results"]
    assert [r.column.label for r in seen["results"]] == ["exact", "words", "semantic", "merged"]
    assert {h.tier for h in exact.answer.hits} == {"exact"} and {h.tier for h in semantic.answer.hits} == {"semantic"}
    assert merged.ids[: len(exact.ids)] == exact.ids


def test_a_weak_guess_shows_as_such_only_when_no_evidence_answered(snap_compare, tmp_path):
    engine = notes_engine(tmp_path / "cache")
    app = workbench(engine)
    seen = {}

    async def run_before(pilot):
        await index_ready(pilot, engine)
        await type_query(pilot, "a bread recipe")  # no note holds its words, none is close enough to be sure
        seen.update(shown(pilot))
        seen["marker_width"] = pilot.app.active_pane.table.marker_width

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()
    hits = seen["hits"]
    assert hits and {h.marker for h in hits} == {"≈?"} and {h.extras.get("strength") for h in hits} == {"weak"}
    assert seen["answer"].tier("semantic").reason.startswith("no confident match")
    assert seen["marker_width"] == 2, "the marker column widens to show ≈? whole"
