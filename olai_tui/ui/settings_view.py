"""The engine's settings tried on a person's grades, from the evaluation view (``s`` over "your grades").

Left, the knobs the pane's engine declares (engines/knobs.py), each with its value in force and where
it came from; under them what the highlighted one does, its range and the measurement that chose its
default. ←/→ step the highlighted knob: every graded query is answered again with the tried values
(engines/eval/tune/trial.py, on a worker; the view says so while it runs), and the right side shows
the total (the default answer's mean nDCG@10, in force → tried) and each query's delta, the largest
first. Enter opens a query with both answers side by side, graded there as anywhere. A grade changed
scores the kept answers again. ``a`` keeps the tried setting for this corpus through the writer
`olai-tui tune --adopt` uses; ``d`` discards it. Scores are in sample: `olai-tui tune` cross-validates.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from rich.text import Text
from textual import on, work
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from engines.eval.runner import Request
from engines.eval.tune.trial import Delta, Trial, indexed, step, try_setting, typed_value
from engines.knobs import CONFIG, CORPUS, DEFAULT, knobs_of, source_of
from olai_tui.ui.keys import binding
from olai_tui.ui.text import first_fitting, one_line

SOURCES = {DEFAULT: "default", CONFIG: "config", CORPUS: "corpus"}
PROGRESS_EVERY_S = 0.05


class ValueBox(Input):
    """Where a value is typed for the highlighted knob: enter tries it, escape leaves it (not the screen)."""

    BINDINGS = [Binding("escape", "screen.close_box", "Leave the box", show=False)]


class _Stopped(Exception):
    """Another value tried, or the screen left: the trial stops at its next query."""


def shown(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def delta_line(delta: Delta, width: int | None) -> Text:
    change = round(delta.change, 4)
    line = Text(f"{change:+.3f} " if change else "  0    ", end="",
                style="bold green" if change > 0 else "bold red" if change < 0 else "dim")
    before = "—" if delta.before is None else f"{delta.before:.3f}"
    after = "—" if delta.after is None else f"{delta.after:.3f}"
    line.append(f"{before}→{after} ", style="dim")
    line.append(one_line(delta.query))
    return first_fitting([line], width)


class SettingsScreen(Screen):
    BINDINGS = [
        binding("close", "app.pop_screen", "Back"),
        binding("setting-down", "step(-1)", "Less"),
        binding("setting-up", "step(1)", "More"),
        binding("type-setting", "type_value", "Type"),
        binding("adopt-setting", "adopt", "Adopt"),
        binding("discard-setting", "discard", "Discard"),
    ]
    DEFAULT_CSS = """
    SettingsScreen #title { height: auto; padding: 0 1; background: $panel; }
    SettingsScreen #left { height: 1fr; }
    SettingsScreen #knobs { height: auto; max-height: 12; }
    SettingsScreen #typed { display: none; }
    SettingsScreen #about { height: 1fr; padding: 0 1; color: $text-muted; }
    SettingsScreen #right { width: 1fr; height: 1fr; padding: 0 1; }
    SettingsScreen #total { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    SettingsScreen #said { height: auto; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    SettingsScreen #deltas { height: 1fr; }
    """

    def __init__(self, suite, label: str, on_graded: Callable[[], None] = lambda: None,
                 on_adopted: Callable[[str], None] = lambda said: None) -> None:
        super().__init__()
        self.suite = suite
        self.label = label
        self.engine = suite.opened
        self.knobs = knobs_of(self.engine)
        self.name_width = max(len(k.name) for k in self.knobs)
        self.tried: dict = {}
        self.trial: Trial | None = None
        self.on_graded = on_graded  # the evaluation view scores its run again too
        self.on_adopted = on_adopted  # and says its figures were measured before the setting adopted
        self.running = False
        self._leaving = False
        self._one_at_a_time = threading.Lock()  # knobs.trying lays values over the process's: never two at once

    # -- drawing ---------------------------------------------------------------------------------
    def compose(self):
        yield Static(id="title")
        with Horizontal():
            with Vertical(id="left"):
                yield OptionList(*self._knob_lines(), id="knobs")
                yield ValueBox(id="typed")
                yield Static(id="about")
            with Vertical(id="right"):
                yield Static(id="total")
                yield Static(id="said")
                yield OptionList(id="deltas")
        yield Footer()

    def on_mount(self) -> None:
        # as wide as this engine's longest knob name needs: name, value, where from, the list's frame
        self.query_one("#left").styles.width = max(30, self.name_width + 22)
        self.query_one("#knobs", OptionList).highlighted = 0
        self.query_one("#knobs", OptionList).focus()
        self.call_after_refresh(self._draw)

    def on_resize(self) -> None:
        self.call_after_refresh(self._draw)

    def value(self, name: str):
        return self.tried.get(name, self.knobs.value(name))

    def _knob_lines(self) -> list[Text]:
        lines = []
        for knob in self.knobs:
            tried = knob.name in self.tried
            line = Text(f"{knob.name:<{self.name_width}} ", end="")
            line.append(f"{shown(self.value(knob.name)):>7} ", style="bold yellow" if tried else "bold")
            line.append("tried" if tried else SOURCES.get(source_of(self.engine.name, knob.name), "default"),
                        style="yellow" if tried else "dim")
            lines.append(line)
        return lines

    def _draw(self) -> None:
        if not self.is_attached:
            return
        n = len(self.suite.requests)
        title = self.query_one("#title", Static)
        width = title.content_region.width or None
        head = first_fitting([Text(f"{self.engine.name} · your grades · settings of {one_line(self.label)}", style="bold"),
                              Text(f"{self.engine.name} · settings of {one_line(self.label)}", style="bold")], width)
        title.update(head + Text("\n") + first_fitting([Text(s, style="dim", end="") for s in (
            f"each change answers the {n} graded queries again: in sample (`olai-tui tune` cross-validates)",
            f"each change answers the {n} graded queries again (in sample)", f"{n} graded queries, in sample")], width))
        knobs = self.query_one("#knobs", OptionList)
        at = knobs.highlighted or 0
        knobs.clear_options()
        knobs.add_options(self._knob_lines())
        knobs.highlighted = at
        self._about()
        self._draw_trial()

    def _about(self) -> None:
        knob = self.knobs.knobs[self.query_one("#knobs", OptionList).highlighted or 0]
        about = Text(f"{knob.does}\n", end="")
        about.append(f"{knob.range_said()}, default {shown(knob.default)}", style="bold")
        if knob.name in self.tried:
            about.append(f" · in force {shown(self.knobs.value(knob.name))}", style="bold")
        about.append(f"\n{knob.measured}")
        if knob.rebuilds:
            about.append("\nread when the index is built: a trial answers with the index as it is", style="italic")
        self.query_one("#about", Static).update(about)

    @on(OptionList.OptionHighlighted, "#knobs")
    def _highlighted(self) -> None:
        self._about()

    def _draw_trial(self) -> None:
        total = self.query_one("#total", Static)
        deltas = self.query_one("#deltas", OptionList)
        width = total.content_region.width or None
        if self.trial is None:
            total.update("" if self.running else first_fitting([Text(s, style="italic", end="") for s in (
                "-/+ try the highlighted setting a step down or up, = a value typed: every graded query is scored with it",
                "-/+ step the highlighted setting, = types a value: every graded query is scored",
                "-/+ or = try a value: every graded query is scored", "-/+ or = try a value")], width))
            deltas.clear_options()
            return
        before, after = self.trial.totals()
        up, down = self.trial.moved()
        change = (after or 0.0) - (before or 0.0)
        said = Text("answer nDCG@10 ", end="")
        said.append(f"{before or 0:.3f} → {after or 0:.3f} ({change:+.3f})",
                    style="bold green" if change > 0.00005 else "bold red" if change < -0.00005 else "bold")
        n = len(self.trial.table.requests)
        moved = first_fitting([Text(f"{up} queries up, {down} down, {n - up - down} unchanged, of {n}", style="dim", end=""),
                               Text(f"{up} up, {down} down, of {n}", style="dim", end="")], width)
        total.update(first_fitting([said], width) + Text("\n") + moved)
        at = deltas.highlighted
        width = deltas.scrollable_content_region.width or None
        deltas.clear_options()
        deltas.add_options([Option(delta_line(d, width)) for d in self.trial.deltas()])
        if self.trial.table.requests:
            deltas.highlighted = min(at or 0, len(self.trial.table.requests) - 1)

    def say(self, text: str | list[str], style: str = "") -> None:
        """One line under the total: the first of ``text``'s variants that fits (the last is cut)."""
        said = self.query_one("#said", Static)
        variants = [Text(one_line(t), style=style, end="") for t in ([text] if isinstance(text, str) else text)]
        said.update(first_fitting(variants, said.content_region.width or None))

    # -- trying a value ----------------------------------------------------------------------------
    def action_step(self, direction: int) -> None:
        knob = self.knobs.knobs[self.query_one("#knobs", OptionList).highlighted or 0]
        self.try_value(knob, step(knob, self.value(knob.name), direction))

    def action_type_value(self) -> None:
        knob = self.knobs.knobs[self.query_one("#knobs", OptionList).highlighted or 0]
        box = self.query_one("#typed", ValueBox)
        box.placeholder = f"{knob.name}: {knob.range_said()}, enter tries it"
        box.value = shown(self.value(knob.name))
        box.display = True
        box.focus()

    def action_close_box(self) -> None:
        box = self.query_one("#typed", ValueBox)
        box.display = False
        self.query_one("#knobs", OptionList).focus()

    @on(Input.Submitted, "#typed")
    def _typed(self, event: Input.Submitted) -> None:
        knob = self.knobs.knobs[self.query_one("#knobs", OptionList).highlighted or 0]
        try:
            value = typed_value(knob, event.value)
        except ValueError as exc:
            self.say(f"{knob.name}: {exc}", "bold red")
            return
        self.action_close_box()
        self.try_value(knob, value)

    def try_value(self, knob, value) -> None:
        """``value`` of ``knob`` tried (its value in force: no longer tried) and every graded query scored."""
        if value == self.knobs.value(knob.name):
            self.tried.pop(knob.name, None)
        else:
            self.tried[knob.name] = value
        self.trial = None
        self._draw()
        if not self.tried:
            self.say("the values in force: nothing tried")
            return
        self.running = True
        self.say(f"answering the {len(self.suite.requests)} graded queries with "
                 + ", ".join(f"{k} {shown(v)}" for k, v in self.tried.items()) + "…", "italic")
        self.run_trial(dict(self.tried), self._requests_now())

    def _requests_now(self) -> list[Request]:
        """The graded queries as they are now, copied: the worker never reads what a grade key changes."""
        return [Request(r.id, r.text, dict(r.judged), r.split) for r in self.suite.requests]

    @work(thread=True, exclusive=True, group="trial", exit_on_error=False)
    def run_trial(self, setting: dict, requests: list[Request]) -> None:
        worker = get_current_worker()
        last = [0.0]

        def tick(done: int, of: int, what: str = "") -> None:
            if worker.is_cancelled or self._leaving:
                raise _Stopped
            if done >= of or time.monotonic() - last[0] >= PROGRESS_EVERY_S:
                last[0] = time.monotonic()
                self.app.call_from_thread(self._progress, setting, done, of, what)

        from engines.eval.tune.search import answers_of

        with self._one_at_a_time:  # a trial cancelled a moment ago ends at its next query first
            if worker.is_cancelled or self._leaving:
                return
            try:
                indexed(self.engine, lambda done, of, what: tick(done, of, what))
                trial = try_setting(answers_of(self.engine), self.knobs, requests, setting, tick)
            except _Stopped:
                return
            except Exception as exc:  # noqa: BLE001 - an engine that fails a query: said in one line
                if not worker.is_cancelled and not self._leaving:
                    self.app.call_from_thread(self._failed, f"{type(exc).__name__}: {exc}")
                return
        if not worker.is_cancelled and not self._leaving:
            self.app.call_from_thread(self._tried, trial)

    def _progress(self, setting: dict, done: int, of: int, what: str = "") -> None:
        if self.is_attached and setting == self.tried:
            if what:  # the meaning index is still being built: the trial waits for it (trial.indexed)
                self.say(f"waiting for the index first: {what} {done:,}/{of:,}", "italic")
            else:
                self.say(f"re-scoring: {done}/{of} answers with " + ", ".join(f"{k} {shown(v)}" for k, v in setting.items()),
                         "italic")

    def _failed(self, text: str) -> None:
        self.running = False
        if self.is_attached:
            self.say(text, "bold red")

    def _tried(self, trial: Trial) -> None:
        if not self.is_attached or trial.setting != self.tried:
            return
        self.running = False
        self.trial = trial
        self.say(["enter opens a query: its two answers side by side, graded there", "enter: a query's two answers",
                  "enter opens a query"])
        self._draw_trial()

    # -- a grade changed -------------------------------------------------------------------------
    def grades_changed(self) -> None:
        self.on_graded()
        if self.trial is not None:
            self.say("re-scoring for the new grade…", "italic")
            self.rescore(self.trial, self._requests_now())

    @work(thread=True, exclusive=True, group="trial-rescore", exit_on_error=False)
    def rescore(self, trial: Trial, requests: list[Request]) -> None:
        again = trial.rescored(requests)
        if not get_current_worker().is_cancelled and not self._leaving:
            self.app.call_from_thread(self._rescored, trial, again)

    def _rescored(self, trial: Trial, again: Trial) -> None:
        from olai_tui.ui.graded_request import GradedRequestScreen

        if not self.is_attached or self.trial is not trial:
            return
        self.trial = again
        self.say("scored with the grades as they are now")
        self._draw_trial()
        rows = {row["id"]: row for row in again.table.requests}
        for screen in self.app.screen_stack:
            if isinstance(screen, GradedRequestScreen) and screen.on_graded == self.grades_changed and screen.row["id"] in rows:
                screen.rescored(rows[screen.row["id"]])

    @on(OptionList.OptionSelected, "#deltas")
    def _query_chosen(self, event: OptionList.OptionSelected) -> None:
        from olai_tui.ui.graded_request import GradedRequestScreen

        if self.trial is None:
            return
        delta = self.trial.deltas()[event.option_index]
        row = next(r for r in self.trial.table.requests if r["id"] == delta.id)
        self.app.push_screen(GradedRequestScreen(self.suite, row, "trial", on_graded=self.grades_changed))

    # -- keeping it, or not ----------------------------------------------------------------------
    def action_adopt(self) -> None:
        from engines.knobs import keep

        if not self.tried:
            self.say("nothing tried to adopt: ←/→ change a setting first", "italic")
            return
        if self.running or self.trial is None:
            self.say("the trial is still running: it is adopted once it has scored", "italic")
            return
        before, after = self.trial.totals()
        why = (f"olai-tui workbench: nDCG@10 {after or 0:.4f} against {before or 0:.4f} on "
               f"{len(self.trial.table.requests)} graded queries (in sample)")
        try:
            path = keep(self.knobs, self.suite.corpus, self.tried, why)
        except Exception as exc:  # noqa: BLE001 - BadInput (corpora.json unreadable), OSError: one line, nothing lost
            self.say(f"not adopted: {exc}", "bold red")
            return
        kept = ", ".join(f"{k} {shown(v)}" for k, v in self.tried.items())
        self.tried, self.trial = {}, None
        self._draw()
        self.say(f"adopted for this corpus: {kept}, in force for every search of it (written to {path})", "bold green")
        self.on_adopted(kept)

    def action_discard(self) -> None:
        if not self.tried:
            self.say("nothing tried to discard", "italic")
            return
        self.tried, self.trial, self.running = {}, None, False
        self.workers.cancel_group(self, "trial")
        self._draw()
        self.say("discarded: the values in force again")

    def on_unmount(self) -> None:
        self._leaving = True
