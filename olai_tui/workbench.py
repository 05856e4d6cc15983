"""The one factory that builds the workbench: ``run_app`` (``olai-tui``, ``make run``) and the snapshot
tests all call :func:`build_workbench`, so what the tests see is what a person gets.

Panes come from the engine registry, left to right in the order registered, each the one adapter
(olai_tui/ui/generic_adapter.py) over what its engine declares. Each engine is opened lazily (its pane
first shown) where its spec names its class, except the first pane's, whose open starts at once: one
that fails within ``OPEN_WAIT_S`` (a path that is not there, a folder with no catalogue) is said in one
line before the app starts; a longer one (a 100,000-note vault read back in ~2 s) goes on while the
app draws, its footer saying how far it has come. Every engine opened is watched live (an edited file
shows on the next query).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable, Mapping

from engines import registry
from engines.contract import Engine, WaitProgress
from olai_tui.ui.keys import KeyConfig, load_keys

# How long the app waits for the first pane's engine before it draws: a bad corpus fails well
# within it (measured 2026-12-03, the engine's module imported as build_workbench imports it first: a
# missing path 0.1-0.2 ms for each engine, a products folder with no catalogue 10-20 ms), and the
# app's own first paint takes ~0.45 s of the 1 s startup target (docs/bench-workbench.md). 0.25 s
# left the vault's startup at 1.04 s. It ends sooner once the open says it is under way: the notes
# engine says so before it reads back a vault it has an index of.
OPEN_WAIT_S = 0.15


class Watchers:
    """The watchers of the engines opened so far, stopped together when the app ends."""

    def __init__(self) -> None:
        self._started: list = []
        self._lock = threading.Lock()
        self._stopped = False

    def follow(self, engine: Engine) -> Engine:
        watcher = engine.watch()
        if watcher is not None:
            with self._lock:
                stopped = self._stopped
                if not stopped:
                    self._started.append(watcher)
            if stopped:  # an engine whose open outlasted the app: nothing is followed after the end
                watcher.stop()
        return engine

    def stop(self) -> None:
        with self._lock:
            started, self._started, self._stopped = self._started, [], True
        for watcher in started:
            watcher.stop()


class OpeningProgress:
    """How the first pane's open moves (``WaitProgress``): drawn on the terminal's wait line until the
    app takes the terminal (``detach``), and kept for the pane's footer all along.

    The open's first report (it is under way: the app need not wait for it) also holds the open until
    the app has drawn (``drawn``), at most HOLD_S: what an open does next is Python that would share
    the interpreter with the app's first paint. The notes engine reports just before it reads a
    vault's index back (1.1 s of Python at 100,000 notes; its walk goes on in another process): the
    first paint took 830-1,086 ms beside that read and 392-435 ms with it held, and the open ended
    no later (2.7-3.4 s against 3.0-3.3; alternated four times, 2026-12-03 14:08)."""

    HOLD_S = 2.0  # an app that never draws (a test's, one that failed) holds an open no longer

    def __init__(self, line: WaitProgress | None) -> None:
        self._line = line
        self._lock = threading.Lock()
        self.now: tuple[int, int, str] | None = None
        self.under_way = threading.Event()  # the engine said how far it is: its corpus is there and readable
        self.drawn = threading.Event()  # the app's first paint is done

    def __call__(self, done: int, of: int, what: str) -> None:
        self.now = (done, of, what)
        first = not self.under_way.is_set()
        self.under_way.set()
        with self._lock:  # never drawn once detached: the line is wiped right after
            if self._line is not None:
                self._line(done, of, what)
        if first:
            self.drawn.wait(self.HOLD_S)

    def detach(self) -> None:
        with self._lock:
            self._line = None


def build_workbench(corpora: Mapping[str, Path | None] | None = None, pane: str | None = None, *,
                    engines: Mapping[str, Engine | Callable[[], Engine]] | None = None,
                    keys: KeyConfig | None = None, app_class=None, watch: bool = True,
                    notices: list[str] | None = None, labels: Mapping[str, str] | None = None,
                    loading: WaitProgress | None = None, open_wait_s: float | None = None, **app_options):
    """The workbench app over every registered engine.

    ``corpora``: an engine's corpus (missing: its demo corpus). ``engines``: engines (or factories)
    made by the caller (tests: a cache folder and a shared model of their own); when given, only those
    engines (and those in ``corpora``) get panes; otherwise every registered engine does, opened from
    the registry. ``labels``: how a pane names its corpus (default: the corpus path as people say it).
    ``pane``: the pane selected at start (default: the first), whose open starts now and is told to
    ``loading(done, of, what)`` until the app starts (run_app: a line on the terminal, as a search's);
    the app waits ``open_wait_s`` for it (None: the whole open, as the tests have it; run_app:
    OPEN_WAIT_S). BadInput (one line) when the selected pane's corpus fails within that time.
    ``app.shutdown()`` stops the watchers and closes every engine.
    """
    from olai_tui.app import WorkbenchApp
    from olai_tui.ui.adapters import short_path
    from olai_tui.ui.generic_adapter import EngineAdapter

    corpora = dict(corpora or {})
    given = dict(engines or {})
    watchers = Watchers()
    specs = [s for s in registry.specs() if engines is None or s.name in given or s.name in corpora]
    pane = pane or (specs[0].name if specs else None)
    opening = OpeningProgress(loading)
    adapters = []
    for spec in specs:
        corpus = corpora.get(spec.name) or spec.default_corpus()
        label = (labels or {}).get(spec.name) or (short_path(corpus) if corpus is not None else spec.name)

        def opener(spec=spec, corpus=corpus):
            made = given.get(spec.name)
            if made is None:
                told = opening if spec.name == pane else None  # the others open while the app runs
                engine = registry.open_engine(spec.name, corpus, progress=told)
                engine.progress = None  # nothing may draw on the terminal once the app has it
            else:
                engine = made() if callable(made) and not isinstance(made, Engine) else made
            return watchers.follow(engine) if watch else engine

        made = given.get(spec.name)
        kind = type(made) if isinstance(made, Engine) else spec.engine_class() if spec.engine_class else None
        # An engine whose class is not known until it is open is opened now: its tiers are the pane's.
        adapters.append(EngineAdapter(opener if kind is not None else opener(), spec.name, label, kind, corpus))
    first = next((a for a in adapters if a.name == pane), None)
    if first is not None:
        first.opening = lambda: opening.now
        if open_wait_s is None:
            first.load()
        else:
            # yours, named on the command line: a bad one is said now, in one line. What the engine can
            # refuse without reading is checked here, not raced against the wait (a loaded machine once
            # let the empty products folder's refusal arrive after it, and the app drew with no terminal);
            # the wait ends as soon as the open says it is under way (a warm vault's read-back) or ends
            check = registry.spec(pane).check
            if check is not None and first.corpus is not None:
                check(first.corpus)
            first.open_for(open_wait_s, until=opening.under_way)
    opening.detach()  # the terminal is the app's from here
    said = list(notices or [])
    for adapter in adapters:
        said += adapter.problem_lines()
    app = (app_class or WorkbenchApp)(adapters, keys if keys is not None else load_keys(), said,
                                      start_pane=pane, **app_options)
    app.watchers = watchers
    app.after_first_paint.append(opening.drawn.set)
    return app


def run_app(corpora: Mapping[str, Path | None] | None = None, pane: str = "notes") -> int:
    """Open the workbench with ``pane`` selected; 0 on a normal quit, 2 (one line on stderr) for a bad corpus."""
    import sys

    from engines.errors import BadInput
    from olai_tui.progress import WaitLine

    waiting = WaitLine(pane)  # a large tree is read before the workbench draws: say so meanwhile
    try:
        try:
            app = build_workbench(corpora, pane, freeze_after_paint=True, loading=waiting, open_wait_s=OPEN_WAIT_S)
        finally:
            waiting.close()  # wiped before any error line; and the terminal is the app's from here
    except BadInput as exc:
        print(f"olai-tui: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # a malformed knowledge map beside a catalogue, an unreadable file
        print(f"olai-tui: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    try:
        app.run()
    finally:
        app.shutdown()
    return app.return_code or 0
