"""The generic search pane: a search box, rows arriving tier by tier, a preview and the tier footer.

It presents one engine through the one adapter (``olai_tui.ui.generic_adapter``), which knows only
what the engine contract declares. Search-as-you-type: each keystroke starts a new exclusive worker
(cancelling the last), which waits out the debounce, then pulls the batches one at a time in a thread, so neither the
exact tier (33 ms for a one-letter query over Vaswani's 11,429 notes) nor the model ever blocks the
event loop. A batch is shown only if its query is still the current one: a stale answer never lands.
Its tiers (switched off and on here, their state between answers, the footer) are pane_tiers.py's.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterator

from rich.text import Text
from textual import on, work
from textual.containers import Horizontal
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Input, Static

from engines.answer import Answer, Batch, TierReport
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.footer import TierFooter
from olai_tui.ui.keys import DEFAULT_KEYS, binding
from olai_tui.ui.opener import copy_row, open_row
from olai_tui.ui.pane_grades import PaneGrades
from olai_tui.ui.pane_tiers import LIVE_POLL_S, PaneTiers
from olai_tui.ui.preview_view import Preview
from olai_tui.ui.results import ResultsTable

# Keys closer together than 80 ms (key repeat at ~30 ms, a fast typist's rolls, a paste arriving as
# keys) make one search; a person's usual 120-200 ms between keys searches after each, which is
# search-as-you-type: the work of the stale ones is dropped, and the exact tier lands in tens of ms.
DEBOUNCE_S = 0.08
# The later tiers (the model) start only once typing has paused this long; a key pressed sooner
# cancels the worker before they start. At 120-200 ms between keys, every keystroke used to start an
# embedding and an index scan that the next keystroke made stale: up to 4 at once on 2 cores while
# the index built, each competing with the event loop for the CPU.
LATER_TIERS_AFTER_S = 0.25
LIMIT = 30  # rows per answer: a screenful and a half at 24 lines (the engine's own default is 10)
# Where a pane's first batch (the evidence tiers) is computed. A pane waits for its previous query's
# first batch before it starts the next: a stale one cannot be stopped once it runs, and several at once
# shared the interpreter with the interface's thread. Typing into the 100,000-note vault, a sampler of
# the event loop's stalls found up to six stale exact searches running at once in to_thread's threads.
_EVIDENCE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="olai-evidence")


@dataclass
class SearchTiming:
    """When the last search's debounce fired and its first rows were painted (for the benchmark)."""

    query: str = ""
    fired_at: float = 0.0
    first_rows_at: float = 0.0
    done_at: float = 0.0


class SearchInput(Input):
    BINDINGS = [binding("to-results", "to_results", "Results", show=False)]

    # Textual's Input sets its virtual size to its text's width on every change, and Widget's virtual
    # size asks for a layout of the whole screen when it changes: a layout a keystroke. The box's own
    # size never follows its text here (width 1fr, a fixed height), and its scrolling reads the value
    # itself, so a repaint is enough.
    virtual_size = Reactive(Size(0, 0), layout=False)

    def action_to_results(self) -> None:
        self.post_message(SearchPane.ToResults())


class SearchPane(PaneGrades, PaneTiers, Widget):
    DEFAULT_CSS = """
    SearchPane { layout: vertical; height: 1fr; }
    SearchPane #body { height: 1fr; }
    SearchPane SearchInput { width: 1fr; }
    SearchPane #summary { height: auto; max-height: 5; padding: 0 1; display: none; }
    SearchPane #summary.-shown { display: block; }
    SearchPane ResultsTable { width: 2fr; }
    SearchPane #preview { width: 1fr; border-left: tall $panel; padding: 0 1; }
    """
    # Small terminals (the screen's breakpoint classes, set by the app): the preview goes under the
    # rows when narrow and away when short. Not in DEFAULT_CSS, which is scoped to this widget.
    RESPONSIVE_CSS = """
    Screen.-narrow SearchPane #body { layout: vertical; }
    Screen.-narrow SearchPane ResultsTable { width: 1fr; height: 1fr; }
    Screen.-narrow SearchPane #preview { width: 1fr; height: 8; border-left: none; border-top: tall $panel; }
    Screen.-short SearchPane #preview { display: none; }
    Screen.-short SearchPane SearchInput { border: none; height: 1; padding: 0 1; }
    """

    class ToResults(Message):
        pass

    def __init__(self, adapter: EngineAdapter, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.adapter = adapter
        self.cursor_blink = cursor_blink
        self.answer: Answer | None = None  # the answer whose rows are on screen
        self.live: dict[str, TierReport] = {}
        self.notices: list[str] = []  # the engine's notices (a vector cache discarded, an endpoint ignored)
        self.switched_off: set[str] = set(adapter.default_off)  # the engine's opt-in tiers
        self.searching = False
        self.generation = 0  # bumped on every query change: a batch of an older generation is stale
        self.timing = SearchTiming()
        self._polling = False
        self._previewed: tuple[str, str] | None = None
        self._summary = None  # what the summary line shows now (show_summary updates it only on a change)
        self._activated = False
        self._evidence: Future | None = None  # this pane's first batch being computed, stale or not
        self.only_binding()

    # -- layout --------------------------------------------------------------------------------
    def compose(self):
        yield SearchInput(placeholder=self._placeholder(), id="query")
        yield Static(id="summary")
        with Horizontal(id="body"):
            yield ResultsTable(view=self.adapter.row, tiers=self.adapter.tiers, labels=self.adapter.labels,
                               id="results")
            yield Preview(self._welcome(), id="preview")
        yield TierFooter(id="tiers")

    def on_mount(self) -> None:
        self.query_one(SearchInput).cursor_blink = self.cursor_blink
        self.adapter.start()
        self.render_footer()
        self.set_interval(LIVE_POLL_S, self.poll_live)
        self.call_later(self.poll_live)

    def _placeholder(self) -> str:
        return f"search {self.adapter.describe()}  (ctrl+p: commands)"

    def activate(self) -> None:
        """The pane is shown: an engine opened lazily opens now (in a thread), once."""
        if self._activated:
            return
        self._activated = True
        self._load()

    @work(group="load", exit_on_error=False)
    async def _load(self) -> None:
        was_open = self.adapter.made
        try:
            await asyncio.to_thread(self.adapter.load)
        except Exception as exc:  # noqa: BLE001 - a corpus gone or unreadable: said here, the app goes on
            self._say_in_preview(
                Text(f"Could not open the {self.adapter.name} corpus: {type(exc).__name__}: {exc}", style="bold red"))
            return
        self.render_footer()  # "opening" no more
        if not was_open:
            for line in self.adapter.problem_lines():
                self.notify(line, severity="warning", timeout=8, markup=False)
            getattr(self.app, "opened", lambda: None)()
        self.input.placeholder = self._placeholder()
        if not self.query_text.strip():
            self._say_in_preview(self._welcome())
        await self._tiers_on()

    @property
    def input(self) -> SearchInput:
        return self.query_one(SearchInput)

    @property
    def table(self) -> ResultsTable:
        return self.query_one(ResultsTable)

    @property
    def preview(self) -> Preview:
        return self.query_one(Preview)

    @property
    def query_text(self) -> str:
        return self.input.value

    def _welcome(self) -> Text:
        key = getattr(self.app, "key_for", lambda key_id: DEFAULT_KEYS[key_id][0].split(",")[0])
        out = Text(f"Type to search {self.adapter.describe()}.\n\n", end="")
        out.append("≈", style="bold magenta")
        out.append(" marks a row found by meaning: a resemblance, not evidence. The other rows are "
                   "evidence: the words you typed are in them; ")
        out.append("↑↓", style="bold magenta")
        out.append(" beside a row's tier: meaning moved it among that tier's rows.\n\n")
        out.append(f"{key('open')} opens a row · {key('copy-path')} copies its path · {key('compare')} compares "
                   f"the tiers · {key('exact-only')} {self.exact_only_label().lower()} · ctrl+p every command", style="dim")
        return out

    # -- searching -----------------------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        self.run_query(event.value)

    def run_query(self, query: str, debounce: bool = True) -> None:
        self.generation += 1
        if not query.strip():
            self.workers.cancel_group(self, "search")
            self.answer, self.searching = None, False
            self.table.show_grades(None)
            self.table.replace([])
            self.show_summary()
            self._say_in_preview(self._welcome())
            self.render_footer()
            return
        self.searching = True
        self.search(query, self.generation, debounce)

    @work(exclusive=True, group="search", exit_on_error=False)
    async def search(self, query: str, generation: int, debounce: bool = True) -> None:
        changed_at = time.perf_counter()
        if debounce:
            await asyncio.sleep(DEBOUNCE_S)
        timing = self.timing = SearchTiming(query, fired_at=time.perf_counter())
        tiers = self.active_tiers()
        answer = Answer(engine=self.adapter.name, query=query)
        stream: Iterator[Batch] = iter(())
        first = True
        while True:
            if not first and debounce:
                await asyncio.sleep(max(0.0, LATER_TIERS_AFTER_S - (time.perf_counter() - changed_at)))
            try:
                if first:
                    if not await self._after_previous_evidence(generation):
                        return  # the query changed while the previous one's first batch was computed
                    stream, batch = await self._on_evidence_thread(_first_batch, self.adapter, query, tiers)
                else:
                    batch = await asyncio.to_thread(_next_batch, stream)
            except Exception as exc:  # noqa: BLE001 - an engine bug is a failed tier, never a traceback
                batch = Batch([], [TierReport(t, "failed", reason=f"{type(exc).__name__}: {exc}")
                                   for t in self.adapter.tiers if answer.tier(t) is None])
                stream = iter(())
            if generation != self.generation:
                return  # the query changed while this batch was computed: drop it
            if batch is None:
                break
            answer.apply(self._explained(batch))
            if first:
                self.answer = answer
                self.table.show_grades(self.grades_of(query))  # a graded query: each row's grade, or unrated
                self.table.replace(answer.hits)
                self.call_after_refresh(_mark_painted, timing)
                # The rows are painted first, the preview's threads started on the frame after, so they do
                # not share the interpreter with the paint. (Drawn with the rows, on this thread, a note's
                # Markdown took 5-70 ms of the 100,000-note vault's first rows while its index built.)
                self.call_after_refresh(self._preview_if_current, generation)
            elif batch.replaces:  # a tier that reorders (products' recall, judge): its order replaces the rows
                self.table.replace(answer.hits)
                self._previewed = None
            elif batch.hits:
                self.table.append(batch.hits)
            self.show_summary()
            if not first:
                self.show_preview()
            first = False
            self.render_footer()
        self.searching = False
        timing.done_at = time.perf_counter()
        self.show_summary()
        self.show_preview()
        self.render_footer()

    async def _after_previous_evidence(self, generation: int) -> bool:
        """Wait until no first batch of this pane is being computed; False if the query changed meanwhile."""
        previous = self._evidence
        if previous is not None and not previous.done():
            waiter = asyncio.wrap_future(previous)
            waiter.add_done_callback(_seen)  # its error is its own query's, never logged as unretrieved here
            await asyncio.wait([waiter])  # waits; never cancels it nor raises its error
        return generation == self.generation

    async def _on_evidence_thread(self, fn, *args):
        self._evidence = _EVIDENCE.submit(contextvars.copy_context().run, fn, *args)
        return await asyncio.wrap_future(self._evidence)

    def show_summary(self) -> None:
        """The adapter's line above the rows (products: how the words were read, "we do not sell that")."""
        text = self.adapter.summary(self.answer) if self.answer is not None else None
        if text == self._summary:
            return  # unchanged (most panes have none): no update, so no layout of the whole screen
        self._summary = text
        widget = self.query_one("#summary", Static)
        widget.set_class(text is not None, "-shown")
        widget.update(text if text is not None else "")

    # -- the highlighted row -------------------------------------------------------------------
    @on(ResultsTable.RowHighlighted, "#results")
    def _row_highlighted(self, event: ResultsTable.RowHighlighted) -> None:
        self.show_preview()

    def _preview_if_current(self, generation: int) -> None:
        if generation == self.generation:
            self.show_preview()

    def show_preview(self) -> None:
        hit = self.table.current
        query = self.answer.query if self.answer is not None else ""
        if hit is None:
            self._previewed = None
            if self.answer is not None:
                words = "Searching the other tiers…" if self.searching else "No rows: the footer says what each tier did."
                self._say_in_preview(Text(words, style="italic"))
            return
        if self._previewed == (hit.id, query):
            return
        self._previewed = (hit.id, query)
        self._preview_row(hit, query)

    @work(exclusive=True, group="preview", exit_on_error=False)
    async def _preview_row(self, hit, query: str) -> None:
        """The row's preview read and laid out on threads (preview_view.py): a stale one is dropped."""
        try:
            renderable = await asyncio.to_thread(self.adapter.preview, hit, query)
        except Exception as exc:  # noqa: BLE001 - a row that cannot be read says so in the preview
            renderable = Text(f"Could not show {hit.id}: {type(exc).__name__}: {exc}", style="bold red")
        await self.preview.show(renderable)

    def _say_in_preview(self, renderable) -> None:
        """Words of the pane's own in the preview, now, over any row's preview still being laid out."""
        self.workers.cancel_group(self, "preview")
        self._previewed = None  # the next row shown is laid out again, even the one shown before
        self.preview.update(renderable)

    @on(Input.Submitted, "#query")
    @on(ToResults)
    def _to_results(self) -> None:
        if self.table.hits:
            self.table.focus()

    @on(ResultsTable.BackToSearch)
    def _to_search(self) -> None:
        self.input.focus()

    @on(ResultsTable.OpenRequested)
    def _open(self, event: ResultsTable.OpenRequested) -> None:
        open_row(self, event.hit)

    @on(ResultsTable.CopyRequested)
    def _copy(self, event: ResultsTable.CopyRequested) -> None:
        copy_row(self, event.hit)

    def footer_notices(self) -> list[str]:
        return super().footer_notices() + self.grading_notice()

    def focus_search(self) -> None:
        self.input.focus()

    def add_filter(self, token: str) -> None:
        """Put a filter (from the palette) in the query, once, and search again."""
        words = self.input.value.split()
        if token not in words:
            self.input.value = " ".join([token, *words])
        self.input.cursor_position = len(self.input.value)
        self.input.focus()


def _next_batch(stream: Iterator[Batch]) -> Batch | None:
    return next(stream, None)


def _seen(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()


def _first_batch(adapter: EngineAdapter, query: str, tiers) -> tuple[Iterator[Batch], Batch | None]:
    stream = adapter.search(query, LIMIT, tiers)
    return stream, next(stream, None)


def _mark_painted(timing: SearchTiming) -> None:
    timing.first_rows_at = time.perf_counter()
