"""The workbench as the snapshot tests run it: nothing on screen that moves between runs.

Cursor blink off, animations off, one theme, notifications recorded instead of shown as toasts,
and timings frozen ("·· ms"): the tier chips still say that a time is there, never which. Engines
get a cache folder of their own, so no snapshot depends on a warm cache.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import suppress
from pathlib import Path
from typing import Sequence

import numpy as np
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from engines.embed.llama import LlamaEmbedder
from engines.notes.engine import NotesEngine
from olai_tui.app import WorkbenchApp
from olai_tui.workbench import build_workbench
from engines.locations import demo_corpus as default_corpus
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.keys import KeyConfig

SIZE = (110, 30)
DEMO = default_corpus("notes")
FROZEN_MS = "·· ms"


class RememberingEmbedder(LlamaEmbedder):
    """The real model, which embeds each (kind, text) once per test process and gives the same vector
    again after. Engines under test get a cache folder of their own, so each test used to embed the demo
    vault anew: one test worker embedded it 22 times in a run, 136 s of its embedding (the suite's
    `embed` calls logged by test and text, 2026-12-06). What each test checks of its engine (its cache,
    its progress, its counts) is unchanged: the engine still asks for every vector it lacks."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: dict[tuple[str, str], np.ndarray] = {}
        self._seen_lock = threading.Lock()

    def embed(self, texts, kind):
        if not texts:
            return super().embed(texts, kind)
        with self._seen_lock:
            missing = list(dict.fromkeys(t for t in texts if (kind, t) not in self._seen))
        if missing:
            fresh = super().embed(missing, kind)
            with self._seen_lock:
                self._seen.update(((kind, t), v) for t, v in zip(missing, fresh))
        with self._seen_lock:
            return np.stack([self._seen[(kind, t)] for t in texts])


_embedder: LlamaEmbedder | None = None


def shared_embedder() -> LlamaEmbedder:
    """One loaded model for the whole test run (loading it is most of a cold start), remembering what it
    embedded."""
    global _embedder
    if _embedder is None:
        _embedder = RememberingEmbedder()
    return _embedder


class SnapshotWorkbench(WorkbenchApp):
    cursor_blink = False
    format_ms = staticmethod(lambda ms: "" if ms is None else FROZEN_MS)

    def __init__(self, adapters: Sequence[EngineAdapter], keys: KeyConfig | None = None,
                 notices: Sequence[str] = (), start_pane: str | None = None) -> None:
        super().__init__(adapters, keys, notices, start_pane=start_pane)
        self.animation_level = "none"
        self.theme = "textual-dark"
        self.notified: list[str] = []

    def notify(self, message: str, *, title: str = "", severity="information", timeout=None, markup=True) -> None:
        self.notified.append(message)


class HeldEmbedder:
    """The real embedder, holding the index build once ``batches`` document batches went through.

    Queries pass straight through, so a search during the hold is answered from the part of the
    index built so far: the footer says ``indexing done/of`` with the same numbers every run.
    """

    def __init__(self, inner: LlamaEmbedder, batches: int = 1) -> None:
        self.inner = inner
        self.batches = batches
        self.passed = 0
        self.held = threading.Event()
        self.release = threading.Event()

    def info(self):
        return self.inner.info()

    def embed(self, texts, kind) -> np.ndarray:
        if kind == "document":
            if self.passed >= self.batches:
                self.held.set()
                self.release.wait()
            self.passed += 1
        return self.inner.embed(texts, kind)


def notes_engine(cache_dir: Path, root: Path = DEMO, embedder=None) -> NotesEngine:
    return NotesEngine(root, embedder=embedder or shared_embedder(), cache_dir=str(cache_dir))


def workbench(engine: NotesEngine, keys: KeyConfig | None = None, label: str = "fixtures/notes") -> SnapshotWorkbench:
    """The notes pane alone, built by the factory `olai-tui` uses (olai_tui/workbench.py)."""
    return build_workbench(engines={"notes": engine}, labels={"notes": label}, keys=keys or KeyConfig(),
                           app_class=SnapshotWorkbench, watch=False)


async def settle(pilot: Pilot) -> None:
    """Wait until every search worker is done and the screen shows it."""
    for _ in range(3):
        with suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def wait_until(pilot: Pilot, condition, timeout: float = 60.0, step: float = 0.05) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {condition}")
        await pilot.pause(step)


async def index_ready(pilot: Pilot, engine: NotesEngine) -> None:
    await wait_until(pilot, lambda: engine.semantic.state().state in ("ready", "unavailable", "failed"))
    pane = pilot.app.active_pane
    await pane.poll_live()  # the footer learns it now, not at the next tick
    # ... unless the timer's poll was already in flight (poll_live then returns at once) with a reading
    # from before: that one lands stale, and the next tick mends it. A loaded machine widens the window
    # (seen once: the footer still said "semantic indexing 0/2" with the index ready).
    await wait_until(pilot, lambda: getattr(pane.live.get("semantic"), "status", None) != "indexing")


async def type_query(pilot: Pilot, query: str) -> None:
    pane = pilot.app.active_pane
    pane.input.focus()
    if pane.input.value:
        await pilot.press("ctrl+u")  # clear the box, as a person would
    await pilot.press(*query)  # one key per character, as a person types
    assert pane.input.value == query
    await pilot.pause(0.15)  # past the debounce
    await settle(pilot)


# ---- the code and products panes (tests/test_app_panes*.py) -----------------------------------

CODE_DEMO = default_corpus("code")
PRODUCTS_DEMO = default_corpus("products")


def all_panes(notes: NotesEngine, products=None, code=None, start_pane: str | None = None) -> SnapshotWorkbench:
    """notes | products | code, as ``olai-tui`` opens them; products and code are engines or factories
    (a factory is called when its pane is first shown, as in the app)."""
    engines = {"notes": notes, "products": products, "code": code}
    return build_workbench(engines={k: v for k, v in engines.items() if v is not None}, pane=start_pane,
                           labels={"notes": "fixtures/notes", "products": "fixtures/products", "code": "fixtures/code"},
                           keys=KeyConfig(), app_class=SnapshotWorkbench, watch=False)
