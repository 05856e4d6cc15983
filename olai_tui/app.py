"""The workbench: a tab per engine, each a search pane whose rows arrive tier by tier.

``olai-tui`` opens it on the demo corpora (fixtures/), ``olai-tui ENGINE PATH`` on yours with that
pane selected. One pane per registered engine, each an adapter over one generic pane; the app is
built by olai_tui/workbench.py (``build_workbench``). Only the first pane's engine is opened before
the first paint; the others open when their pane is first shown (or first searched from the palette).
"""

from __future__ import annotations

import asyncio
import gc
import signal
from typing import Callable, Sequence

from textual import on
from textual.app import App
from textual.widgets import Footer, TabbedContent, TabPane

from olai_tui import terminal
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.compare import CompareScreen
from olai_tui.ui.footer import format_ms
from olai_tui.ui.keys import DEFAULT_KEYS, KeyConfig, binding
from olai_tui.ui.opener import copy_row, open_row
from olai_tui.ui.palette import WorkbenchCommands
from olai_tui.ui.pane import LIMIT, SearchPane

PANE_ACTIONS = {"compare", "exact_only", "rebuild_index", "next_pane", "previous_pane"}


class WorkbenchApp(App):
    TITLE = "olai-tui"
    COMMANDS = App.COMMANDS | {WorkbenchCommands}  # Textual's own (theme, keys, quit) stay
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (90, "-wide")]  # under 90 cells the preview goes below
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]  # under 20 lines there is no room for it
    BINDINGS = [
        binding("compare", "compare", "Compare", priority=True),
        # exact-only is each pane's own (SearchPane.only_binding): its label names the pane's first tier
        binding("rebuild-index", "rebuild_index", "Reindex", priority=True),
        # priority: Textual's Input and scroll views bind ctrl+pagedown/pageup to sideways paging, which
        # took the footer's slot (so "Next pane" showed nowhere) and the key whenever a pane had the focus
        binding("next-pane", "next_pane", "Next pane", priority=True),
        binding("previous-pane", "previous_pane", "Previous pane", show=False, priority=True),
    ]
    CSS = """
    TabbedContent, TabPane { height: 1fr; }
    TabPane { padding: 0; }
    Screen.-short Tabs { display: none; }
    """ + SearchPane.RESPONSIVE_CSS

    cursor_blink = True  # the snapshot app turns it off
    format_ms = staticmethod(format_ms)  # the snapshot app freezes it

    def __init__(self, adapters: Sequence[EngineAdapter], keys: KeyConfig | None = None,
                 notices: Sequence[str] = (), freeze_after_paint: bool = False, start_pane: str | None = None) -> None:
        super().__init__()
        self.watchers = None  # olai_tui/workbench.py's: every opened engine followed on disk
        self.start_pane = start_pane
        self.adapters = list(adapters)
        self.keys = keys if keys is not None else KeyConfig()
        self.notices = list(notices)
        self.freeze_after_paint = freeze_after_paint
        self.after_first_paint: list[Callable[[], None]] = []  # the workbench's: an open held until then

    def compose(self):
        initial = f"tab-{self.start_pane}" if self.start_pane else ""
        with TabbedContent(id="panes", initial=initial):
            for adapter in self.adapters:
                with TabPane(adapter.name, id=f"tab-{adapter.name}"):
                    yield SearchPane(adapter, cursor_blink=self.cursor_blink, id=f"pane-{adapter.name}")
        yield Footer(compact=True)  # one space between keys: at 80 columns every key shown fits, rows focused too

    def on_mount(self) -> None:
        if self.keys.keymap:
            self.set_keymap(self.keys.keymap)
        for warning in self.keys.warnings:
            self.notify(warning, title="config.toml", severity="warning", timeout=10, markup=False)
        for notice in self.notices:
            self.notify(notice, severity="warning", timeout=8, markup=False)
        if self.active_pane is not None:
            self.active_pane.activate()
            self.active_pane.focus_search()
        if self.freeze_after_paint:
            self.call_after_refresh(_freeze_startup_objects)
        for then in self.after_first_paint:
            self.call_after_refresh(then)
        self._follow_the_terminal()

    def _follow_the_terminal(self) -> None:
        """Leave when the terminal goes (olai_tui/terminal.py): checked every second, and on SIGHUP."""
        fd = None if self.is_headless else terminal.terminal_fd()
        if fd is None:
            return
        self.set_interval(terminal.CHECK_EVERY_S, lambda: terminal.hung_up(fd) and self._terminal_gone())
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._terminal_gone)
        except (NotImplementedError, RuntimeError, ValueError):  # no signals here (not the main thread)
            pass

    def _terminal_gone(self) -> None:
        self.exit(return_code=terminal.GONE_RETURN_CODE)

    def opened(self) -> None:
        """A pane's engine finished opening while the app ran: its corpus lives as long as the app too."""
        if self.freeze_after_paint:
            gc.freeze()  # no gc.collect() first: a full collection over a large vault is the stall to avoid

    def shutdown(self) -> None:
        """Stop following the corpora and close every engine (after ``run()`` returns)."""
        if self.watchers is not None:
            self.watchers.stop()
        for adapter in self.adapters:
            adapter.close()

    def key_for(self, key_id: str) -> str:
        """The first key bound to a binding id, as remapped in config.toml: for hints in the text."""
        return self.keys.keymap.get(key_id, DEFAULT_KEYS[key_id][0]).split(",")[0]

    # -- panes ---------------------------------------------------------------------------------
    @property
    def panes(self) -> list[SearchPane]:
        return list(self.query(SearchPane))

    @property
    def active_pane(self) -> SearchPane | None:
        tabs = self.query_one("#panes", TabbedContent)
        for pane in self.panes:
            if f"tab-{pane.adapter.name}" == tabs.active:
                return pane
        return None

    @on(TabbedContent.TabActivated, "#panes")
    def _pane_shown(self) -> None:
        if self.active_pane is not None:
            self.active_pane.activate()

    def switch_to(self, name: str) -> None:
        self.query_one("#panes", TabbedContent).active = f"tab-{name}"
        self.call_after_refresh(lambda: self.active_pane and self.active_pane.focus_search())

    def search_in(self, name: str, query: str) -> None:
        self.switch_to(name)
        pane = self.query_one(f"#pane-{name}", SearchPane)
        pane.activate()
        pane.input.value = query  # Input.Changed starts the search
        pane.focus_search()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_pane", "previous_pane") and len(self.adapters) < 2:
            return False  # one pane: nothing to go to, so not shown
        if action in PANE_ACTIONS:  # not over the palette, the compare screen or an open note
            return self.screen is self.screen_stack[0]
        return True

    def action_next_pane(self, step: int = 1) -> None:
        names = [pane.adapter.name for pane in self.panes]
        current = self.active_pane
        if current is None or len(names) < 2:
            return
        self.switch_to(names[(names.index(current.adapter.name) + step) % len(names)])

    def action_previous_pane(self) -> None:
        self.action_next_pane(-1)

    # -- what the bindings and the palette do --------------------------------------------------
    def action_compare(self) -> None:
        pane = self.active_pane
        if pane is None:
            return
        if not pane.query_text.strip():
            self.notify("Type a query first: compare runs it through each tier.", severity="warning")
            return
        self.push_screen(CompareScreen(pane.adapter, pane.query_text, LIMIT))

    def action_exact_only(self) -> None:
        if self.active_pane is not None:
            self.active_pane.toggle_exact_only()

    async def action_rebuild_index(self) -> None:
        pane = self.active_pane
        if pane is None:
            return
        self.notify(f"Re-reading the {pane.adapter.name} corpus…", markup=False)
        try:
            said = await asyncio.to_thread(pane.adapter.rebuild)  # a big folder takes seconds to read
        except Exception as exc:  # noqa: BLE001 - a folder gone since start: say so, keep the old index
            self.notify(f"Could not re-read the corpus: {exc}", severity="error", markup=False)
            return
        self.notify(said, markup=False)
        pane.run_query(pane.query_text, debounce=False)

    def open_highlighted(self) -> None:
        if self.active_pane is not None:
            open_row(self.active_pane, self.active_pane.table.current)

    def copy_highlighted(self) -> None:
        if self.active_pane is not None:
            copy_row(self.active_pane, self.active_pane.table.current)


def _freeze_startup_objects() -> None:
    # The corpus and the widget tree live as long as the app: gc.freeze() takes them out of every
    # later collection. A full collection over Vaswani's 11,429 notes stalled the event loop by
    # 150-340 ms while the index built (2 shared cores); frozen, 40-110 ms.
    gc.collect()
    gc.freeze()
