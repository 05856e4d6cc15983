"""The code and products panes' demos, pinned as SVG snapshots (tests/app/__snapshots__/test_app_panes_snapshots/).

Each runs the real engines on the demo corpora (fixtures/code, fixtures/products); the code pane's
embedding tier runs the real model, in a cache of its own. Regenerate after a deliberate change with
`pytest tests/app/test_app_panes_snapshots.py --snapshot-update`, then look at the SVGs. Besides the
picture, each test asserts what the picture is meant to show.
"""

from __future__ import annotations

import pytest

from engines.code.engine import CodeEngine
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine
from olai_tui.ui.compare import CompareScreen
from tests.snapshot_app import (CODE_DEMO, DEMO, PRODUCTS_DEMO, SIZE, all_panes, settle, shared_embedder, type_query,
                                wait_until)

THROTTLE = "where do we throttle requests"


@pytest.fixture(autouse=True)
def _colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)  # the pictures are in colour whatever the shell says


@pytest.fixture(scope="module")
def notes():
    engine = NotesEngine(DEMO, embedder=shared_embedder())  # the session's cache: embedded once
    yield engine
    engine.close()


def code_engine(tmp_path, contextual: bool = True) -> CodeEngine:
    """The demo tree; ``contextual``: MiniLM's vectors asked for (else only the trained table's, the default)."""
    return CodeEngine(CODE_DEMO, embedder=shared_embedder(), cache_dir=str(tmp_path / "cache"), contextual=contextual)


def products_engine(tmp_path) -> ProductsEngine:
    return ProductsEngine(PRODUCTS_DEMO, embedder=shared_embedder(), cache_dir=str(tmp_path / "cache"))


async def contextual_ready(pilot, engine: CodeEngine) -> None:
    """Wait for MiniLM's index, which the pane started with its default tiers."""
    await wait_until(pilot, lambda: engine._vectors is not None
                     and engine.semantic.state().state in ("ready", "unavailable", "failed"))
    await pilot.app.active_pane.poll_live()
    await settle(pilot)


def shown(pilot) -> dict:
    """What the pane shows, read while the app runs (its widgets are gone after)."""
    pane = pilot.app.active_pane
    return {"hits": list(pane.table.hits), "answer": pane.answer,
            "summary": pane.query_one("#summary").render().plain}


def test_code_pane_answers_with_the_trained_tables_meaning_and_the_source_as_preview(snap_compare, notes, tmp_path):
    engine = code_engine(tmp_path, contextual=False)
    engine.reread_budget_s = None  # MiniLM re-reads every first row of the question, however loaded the machine
    app = all_panes(notes, code=engine, start_pane="code")
    seen = {}

    async def run_before(pilot):
        await type_query(pilot, THROTTLE)
        seen.update(shown(pilot))

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
        assert seen["hits"][0].title == "RateLimiter" and seen["hits"][0].tier == "lexical"
        assert seen["answer"].tier("embedding").status == "answered"
        assert seen["answer"].tier("embedding").vectors == {"static": 1.0}
        assert seen["answer"].tier("embedding").reason == "meaning re-read the first 8 rows contextually (MiniLM)"
        assert engine._vectors is None, "the default never builds the contextual model's index"
    finally:
        engine.close()


def test_code_pane_with_contextual_vectors_merges_both(snap_compare, notes, tmp_path):
    engine = code_engine(tmp_path)
    app = all_panes(notes, code=engine, start_pane="code")
    seen = {}

    async def run_before(pilot):
        await contextual_ready(pilot, engine)
        await type_query(pilot, THROTTLE)
        seen["answer"] = pilot.app.active_pane.answer

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
        answer = seen["answer"]
        assert [(t.name, t.status) for t in answer.tiers] == [("lexical", "answered"), ("embedding", "answered")]
        assert answer.tier("embedding").vectors is None  # MiniLM's for every symbol
        assert answer.extras.get("merge") == "fused"
        assert any("RateLimiter" in hit.title for hit in answer.hits[:3])
    finally:
        engine.close()


def test_code_compare_screen_shows_lexical_embedding_merged(snap_compare, notes, tmp_path):
    engine = code_engine(tmp_path)
    app = all_panes(notes, code=engine, start_pane="code")
    seen = {}

    async def run_before(pilot):
        await type_query(pilot, THROTTLE)
        await pilot.press("ctrl+j")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                         and all(r.answer is not None for r in pilot.app.screen.results))
        await settle(pilot)
        seen["results"] = pilot.app.screen.results

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        engine.close()
    lexical, embedding, merged = seen["results"]
    assert [r.column.label for r in seen["results"]] == ["lexical", "embedding", "merged"]
    assert {h.tier for h in lexical.answer.hits} == {"lexical"} and {h.tier for h in embedding.answer.hits} == {"embedding"}
    assert set(merged.ids) <= set(lexical.ids) | set(embedding.ids)


def test_products_pane_shows_badges_and_the_words_as_read(snap_compare, notes, tmp_path):
    engine = products_engine(tmp_path)
    app = all_panes(notes, products=engine, start_pane="products")
    seen = {}

    async def run_before(pilot):
        await type_query(pilot, "laktoositon maito 1 l")
        seen.update(shown(pilot))

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
        assert seen["hits"][0].extras["label"] == "exact"
        assert "lactose-free" in seen["hits"][0].extras["claims"]
        assert "read 'laktoositon' as lactose-free" in seen["summary"]
        assert engine._vectors is None, "the vectors tier is off: the model is never opened"
    finally:
        engine.close()


def test_products_pane_says_we_do_not_sell_that(snap_compare, notes, tmp_path):
    engine = products_engine(tmp_path)
    app = all_panes(notes, products=engine, start_pane="products")
    seen = {}

    async def run_before(pilot):
        await type_query(pilot, "vegan butter")
        seen.update(shown(pilot))

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
        assert "not_sold" in seen["answer"].extras["flags"] and not seen["hits"]
        assert seen["summary"].startswith("we do not sell that")
    finally:
        engine.close()
