"""Every fault's outcome in the workbench footer (issues 7 and 8): the engine's notices (a vector cache
discarded and rebuilt, running without persistence, an endpoint ignored) and which recall backend
answered when it fell back, each said once, in words, as plain text (never markup), under NO_COLOR too.

The footer is read as the pane renders it (the TierFooter widget's text), not rebuilt from the pane's state.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from engines.answer import Answer
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine
from engines import registry
from olai_tui.ui.footer import TierFooter, footer_text
from olai_tui.ui.generic_adapter import EngineAdapter
from tests.snapshot_app import (DEMO, PRODUCTS_DEMO, SIZE, SnapshotWorkbench, index_ready, shared_embedder,
                                type_query, wait_until)

pytestmark = pytest.mark.anyio
SLUGS = "garden/cold-frames/slugs.md"


def footer_plain(pane) -> str:
    return pane.query_one(TierFooter).render().plain


def small_notebook(folder: Path) -> Path:
    (folder / "garden" / "cold-frames").mkdir(parents=True)
    shutil.copy(DEMO / SLUGS, folder / SLUGS)
    shutil.copy(DEMO / "garden" / "compost.md", folder / "garden" / "compost.md")
    return folder


def closed_loopback_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: bound, then closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_a_corrupt_vector_cache_is_said_once_in_the_notes_footer(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    corpus = small_notebook(tmp_path / "notes")
    first = NotesEngine(corpus, embedder=shared_embedder(), wait_for_index=True)
    assert first.build_index().state == "ready"
    first.close()
    (vec,) = (tmp_path / "cache" / "olai-tui" / "vectors").glob("*.vec")
    vec.write_bytes(b"[bold red]not a vector cache[/]\x1b[31m" * 50)

    engine = NotesEngine(corpus, embedder=shared_embedder())
    app = SnapshotWorkbench([EngineAdapter(engine, label="notes")])
    try:
        async with app.run_test(size=SIZE) as pilot:
            pane = app.active_pane
            await index_ready(pilot, engine)
            assert engine.semantic.state().state == "ready"
            (notice,) = engine.semantic.notices()
            assert "discarded" in notice and "rebuilding" in notice, notice
            footer = footer_plain(pane)
            assert footer.count("notice: ") == 1 and "discarded" in footer and "rebuilding" in footer, footer
            await type_query(pilot, "slugs")  # an answer keeps the notice, still once
            footer = footer_plain(pane)
            assert "exact answered" in footer and footer.count("discarded") == 1, footer
    finally:
        engine.close()


async def test_a_milvus_that_does_not_answer_falls_back_to_memory_and_the_footer_says_why(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "olai-tui").mkdir(parents=True)
    port = closed_loopback_port()
    (config / "olai-tui" / "config.toml").write_text(
        f'[products.recall]\nbackend = "milvus"\nuri = "http://127.0.0.1:{port}"\ndeadline_ms = 300\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # Opened as the workbench opens it (the registry: config.toml's judge and recall backend).
    adapter = EngineAdapter(lambda: registry.open_engine("products", PRODUCTS_DEMO), "products", "fixtures/products",
                            ProductsEngine)
    app = SnapshotWorkbench([adapter])
    try:
        async with app.run_test(size=SIZE) as pilot:
            pane = app.active_pane
            await wait_until(pilot, lambda: adapter.made, timeout=10)
            assert adapter.engine.router.backend == "milvus", "the pane's router is built from config.toml"
            await type_query(pilot, "dark chocolate")
            extras = pane.answer.extras
            assert extras["recall_backend"] == "memory" and extras["recall_fallback"].startswith("milvus: "), extras
            assert pane.table.hits, "memory answered"
            footer = footer_plain(pane)
            assert f"recall via memory ({extras['recall_fallback']})" in footer, footer
            assert footer.count("recall via") == 1, footer
    finally:
        adapter.close()


async def test_the_default_memory_recall_adds_nothing_to_the_products_footer(monkeypatch):
    adapter = EngineAdapter(ProductsEngine(PRODUCTS_DEMO, embedder=_NoModel()), label="fixtures/products")
    app = SnapshotWorkbench([adapter])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await type_query(pilot, "dark chocolate")
            pane = app.active_pane
            assert pane.answer.extras["recall_backend"] == "memory" and pane.answer.extras["recall_fallback"] is None
            footer = footer_plain(pane)
            assert "recall via" not in footer and "notice" not in footer and "\n" not in footer.strip(), footer
    finally:
        adapter.close()


async def test_the_code_engines_ignored_endpoint_is_said_in_the_code_footer_as_plain_text():
    from engines.code.engine import CodeEngine
    from tests.snapshot_app import CODE_DEMO

    endpoint = "http://127.0.0.1:9/[bold]embed[/]"
    adapter = EngineAdapter(lambda: CodeEngine(CODE_DEMO, embedder=_NoModel(), remote_endpoint=endpoint), "code", "code",
                            CodeEngine)
    app = SnapshotWorkbench([adapter])
    try:
        async with app.run_test(size=SIZE) as pilot:
            pane = app.active_pane
            await type_query(pilot, "throttle")
            await pane.poll_live()
            footer = footer_plain(pane)
            assert footer.count("notice: ") == 1 and f"endpoint {endpoint} is ignored here" in footer, footer
    finally:
        adapter.close()


def test_a_notice_is_plain_text_once_and_on_its_own_line():
    hostile = "endpoint [bold]ignored[/] \x1b[2J here"
    text = footer_text(("exact",), Answer(engine="code", query="q"), {}, False, notices=[hostile, hostile, ""])
    lines = text.plain.splitlines()
    assert len(lines) == 2 and lines[1] == "notice: endpoint [bold]ignored[/] \u241b[2J here", lines
    assert "\x1b" not in text.plain


class _NoModel:
    """The products tests here never switch meaning on: the model must not be asked."""

    def info(self):
        raise AssertionError("the model was asked for")

    def embed(self, texts, kind):
        raise AssertionError("the model was asked for")
