"""The evaluation view, opened from the compare screen: each configuration over a dataset's judged requests.

Pick a dataset (engine · dataset), a split and the configurations; Run opens the dataset and runs it
through engines/eval/suite.py in a thread worker (a bar says done/of), then shows the table that
`olai-tui eval` prints (same scoring, same cells: olai_tui.evaluate.cell) and the requests, ✗ where
some configuration's first row is wrong. Enter on a request shows each configuration's top rows side
by side, judged: ✓ right, ✗ wrong (with its gain or label), a wrong first row drawn red and said in
its column's head, ⚠ rule where a product breaks a rule the request stated (food).

"Your grades" (your_grades.py) is offered for every pane: a query opened from it is graded there, a
grade scores the run again, and ``s`` tries the engine's settings on the grades (evaluation_grades.py).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from rich.text import Text
from textual import on, work
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import (Button, Checkbox, DataTable, Footer, Label, OptionList, ProgressBar, Select,
                             SelectionList, Static)
from textual.widgets.option_list import Option
from textual.widgets.selection_list import Selection
from textual.worker import get_current_worker

from engines.eval.runner import Table
from engines.eval.catalogue import Suite, configs_of, datasets, default_configs, open_suite, without_unavailable
from engines.eval.judgements.suite import DATASET as JUDGED, SHOWN, open_judged
from engines.eval.tune.trial import indexed
from olai_tui.evaluate import cell
from olai_tui.ui import evaluation_fit as fit
from olai_tui.ui.evaluation_grades import EvaluationGrades
from olai_tui.ui.keys import binding
from olai_tui.ui.request_view import RequestScreen, shown_name
from olai_tui.ui.text import one_line
from olai_tui.ui.your_grades import GradedCorpus, first_row_wrong, graded_corpora, kept_and_compared

__all__ = ["EvaluationScreen", "GradedCorpus", "graded_corpora", "kept_and_compared", "first_row_wrong"]

SPLITS = ("both", "dev", "heldout")
PROGRESS_EVERY_S = 0.05  # one screen update per 50 ms, not one per request: Vaswani x 6 configs is 558 ticks


def dataset_choices() -> list[tuple[str, str]]:
    """(shown, value) for every declared dataset run as a suite: ("notes · vaswani", "notes/vaswani"), ...
    (one with its own runner, semble's, is run from the command line)."""
    return [(f"{d.engine} · {d.name}", f"{d.engine}/{d.name}") for d in datasets() if d.open is not None]


class _Stopped(Exception):
    """The screen was left (or the run replaced) while the suite ran: stop at the next request."""


@dataclass
class Evaluated:
    """What one run gives the screen."""

    suite: Suite
    tables: list[Table]
    first_wrong: dict[str, list[str]] = field(default_factory=dict)  # request id -> configs whose first row is wrong
    said: list[str] = field(default_factory=list)  # what was left out and why (smart_milvus without Milvus)
    against: list[str] = field(default_factory=list)  # your grades: what changed since the last kept run


class EvaluationScreen(EvaluationGrades, Screen):
    """Pick a dataset, run it, read the table; Enter on a request opens it; over your grades, ``s`` tries settings."""

    BINDINGS = [binding("close", "app.pop_screen", "Back"), binding("run-evaluation", "run", "Run"),
                binding("settings", "settings", "Settings")]
    DEFAULT_CSS = """
    EvaluationScreen #title { height: auto; padding: 0 1; background: $panel; }
    EvaluationScreen #body { height: 1fr; }
    EvaluationScreen #choices { width: 30; height: 1fr; padding: 0 1; }
    EvaluationScreen #choices Label { margin-top: 1; color: $text-muted; }
    EvaluationScreen #configs { height: auto; max-height: 10; }
    EvaluationScreen #run { margin-top: 1; width: 100%; }
    EvaluationScreen #results { width: 1fr; height: 1fr; padding: 0 1; }
    EvaluationScreen #status { height: auto; }
    EvaluationScreen #progress { display: none; }
    EvaluationScreen #progress.-running { display: block; }
    EvaluationScreen #figures { height: auto; max-height: 12; }
    EvaluationScreen #left-out { height: auto; }
    EvaluationScreen #against { height: auto; max-height: 8; display: none; color: $text-muted; }
    EvaluationScreen #against.-shown { display: block; }
    EvaluationScreen #requests-head { margin-top: 1; color: $text-muted; }
    EvaluationScreen #requests { height: 1fr; }
    """

    def __init__(self, engine: str = "notes", graded: Sequence[GradedCorpus] = ()) -> None:
        """``graded``: the open panes' corpora, each offered as "your grades" beside the public datasets."""
        super().__init__()
        self.graded = {f"{g.engine}/{JUDGED}": g for g in graded}
        choices = self.choices()
        self.choice = next((value for _shown, value in choices if value.startswith(f"{engine}/")), choices[0][1])
        self.suite: Suite | None = None
        self.evaluated: Evaluated | None = None
        self.rows: list[tuple[str, dict]] = []  # (split, request row), in the order of the request list
        self.busy = False
        self._leaving = False
        self._lock = threading.Lock()

    def compose(self):
        yield Static(fit.title_text(None), id="title")
        with Horizontal(id="body"):
            with VerticalScroll(id="choices"):  # at 24 lines the Run button is below the fold: it scrolls
                yield Label("dataset")
                yield Select(self.choices(), value=self.choice, allow_blank=False, id="dataset")
                yield Label("split")
                yield Select([(s, s) for s in SPLITS], value="both", allow_blank=False, id="split")
                yield Label("configurations")
                yield SelectionList[str](*self._config_choices(self.choice), id="configs")
                yield Checkbox("re-measure (--fresh)", False, id="fresh")
                yield Button("Run", id="run", variant="primary")
            with Vertical(id="results"):
                yield Static(Text("Pick a dataset and press Run.", style="italic"), id="status")
                yield ProgressBar(show_eta=False, id="progress")
                yield DataTable(header_height=2, cursor_type="row", zebra_stripes=True, id="figures")
                yield Static(id="left-out")
                yield Static(id="against")
                yield Static(fit.requests_head(None), id="requests-head")
                yield OptionList(id="requests")
        yield Footer()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)  # the widths are known after the layout

    def _fit(self) -> None:
        """Words and the figures table said again for the widths they now have (evaluation_fit.py)."""
        for name, words in (("#title", fit.title_text), ("#requests-head", fit.requests_head)):
            widget = self.query_one(name, Static)
            widget.update(words(widget.content_region.width or None))
        if self.evaluated is not None:
            self._say_summary()
            self._fill_table(self.evaluated.suite, self.evaluated.tables)
            self._fill_requests(self.evaluated.tables, self.evaluated.first_wrong)

    def _say_summary(self) -> None:
        """What ran, as long as the status line has room for (the counts per split said shorter first)."""
        if self.evaluated is None:
            return
        suite, tables, said = self.evaluated.suite, self.evaluated.tables, self.evaluated.said
        head = f"{suite.engine} · {shown_name(suite.dataset)} · "
        tail = "".join(f" · {one_line(text)}" for text in said)
        full = head + " / ".join(f"{t.split} {len(t.requests)} requests" for t in tables) + tail
        short = head + " / ".join(f"{t.split} {len(t.requests)}" for t in tables) + " requests" + tail
        status = self.query_one("#status", Static)
        status.update(fit.first_fitting([Text(full), Text(short)], status.content_region.width or None))

    def choices(self) -> list[tuple[str, str]]:
        return dataset_choices() + [(f"{g.engine} · {SHOWN} ({one_line(g.label)})", value)
                                    for value, g in self.graded.items()]

    def _config_choices(self, choice: str) -> list[Selection[str]]:
        if choice in self.graded:  # every configuration the engine has through its contract
            return [Selection(name, name, True) for name in self.graded[choice].configs]
        engine, dataset = choice.split("/")
        ticked = default_configs(engine, dataset)  # smart_http only when an endpoint is configured
        return [Selection(name, name, name in ticked) for name in configs_of(engine, dataset)]

    @on(Select.Changed, "#dataset")
    def _dataset_chosen(self, event: Select.Changed) -> None:
        if event.value == self.choice or not isinstance(event.value, str):
            return
        self.choice = event.value
        configs = self.query_one("#configs", SelectionList)
        configs.clear_options()
        configs.add_options(self._config_choices(self.choice))

    @on(Button.Pressed, "#run")
    def _run_pressed(self) -> None:
        self.action_run()

    def say(self, text: str, style: str = "") -> None:
        self.query_one("#status", Static).update(Text(one_line(text), style=style))

    # -- running -----------------------------------------------------------------------------------
    def action_run(self) -> None:
        if self.busy:
            self.say("A run is going on; it ends first.", "italic")
            return
        names = list(self.query_one("#configs", SelectionList).selected)
        if not names:
            self.say("Choose at least one configuration.", "bold red")
            return
        split = self.query_one("#split", Select).value
        fresh = self.query_one("#fresh", Checkbox).value
        engine, dataset = self.choice.split("/")
        self.busy = True
        self.say(f"Opening {engine} · {dataset}…", "italic")
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.add_class("-running")
        self.run_suite(engine, dataset, names, str(split), fresh)

    @work(thread=True, exclusive=True, group="evaluation", exit_on_error=False)
    def run_suite(self, engine: str, dataset: str, names: list[str], split: str, fresh: bool = False) -> None:
        worker = get_current_worker()
        last = [0.0]

        def push(callback, *args) -> None:
            if not worker.is_cancelled and not self._leaving:
                self.app.call_from_thread(callback, *args)

        def ticker(label: str) -> Callable[[int, int], None]:
            def tick(done: int, of: int) -> None:
                if worker.is_cancelled or self._leaving:
                    # Left: stop at the next request (the runner keeps every answer cached so far) or the
                    # next index batch (what the index saved stays; the suite is closed behind it).
                    raise _Stopped
                now = time.monotonic()
                if done >= of or now - last[0] >= PROGRESS_EVERY_S:
                    last[0] = now
                    push(self._progress, label, done, of)

            return tick

        try:
            suite = self._open(engine, dataset, ticker("indexing"), lambda text: push(self._note, text))
            said = [] if dataset == JUDGED else without_unavailable(engine, dataset, names)  # smart_milvus without Milvus
            if not names:
                raise RuntimeError("nothing left to run: " + "; ".join(said))
            tables = suite.run(names, split=split, fresh=fresh, progress=ticker("running"))
            evaluated = Evaluated(suite, tables, first_row_wrong(suite, tables), said,
                                  kept_and_compared(suite, tables) if dataset == JUDGED else [])
        except _Stopped:
            return
        except Exception as exc:  # noqa: BLE001 - DatasetError, RuntimeError (vectors, Milvus), a bad file: one line
            what = "" if type(exc).__name__ in ("DatasetError", "RuntimeError") else f"{type(exc).__name__}: "
            push(self._failed, what + (" ".join(str(exc).split()) or "failed"))
            return
        finally:
            with self._lock:
                self.busy = False
                if self._leaving:
                    self._close_suite()
        push(self._show, evaluated)

    def _open(self, engine: str, dataset: str, progress, say) -> Suite:
        """The suite of the chosen dataset, opened once and kept while the screen is up."""
        from engines.locations import shared_data, shared_heldout

        if self.suite is not None and (self.suite.engine, self.suite.dataset) == (engine, dataset):
            return self.suite
        self._close_suite()
        graded = self.graded.get(f"{engine}/{dataset}")
        if graded is not None:  # the pane's own engine, left open when the screen closes the suite
            engine = graded.engine_now()
            indexed(engine, lambda done, of, what: progress(done, of))  # scored on the index `olai-tui eval` waits for
            self.suite = open_judged(engine, graded.corpus_now(), close_engine=False)
            for note in self.suite.notes:
                say(note)
        else:
            self.suite = open_suite(engine, dataset, shared_data(), shared_heldout(), progress=progress, say=say)
        return self.suite

    def _close_suite(self) -> None:
        suite, self.suite = self.suite, None
        if suite is not None:
            suite.close()

    def on_unmount(self) -> None:
        with self._lock:
            self._leaving = True
            if not self.busy:
                self._close_suite()  # else the worker closes it when it stops, at its next request

    # -- what the worker pushes (on the event loop) ------------------------------------------------
    def _progress(self, label: str, done: int, of: int) -> None:
        if not self.is_attached:
            return
        self.query_one("#progress", ProgressBar).update(total=of, progress=done)
        self.say(f"{label} {done:,}/{of:,}", "italic")

    def _note(self, text: str) -> None:
        if self.is_attached:
            self.notify(text, title="evaluation", markup=False)

    def _failed(self, text: str) -> None:
        if not self.is_attached:
            return
        self.query_one("#progress", ProgressBar).remove_class("-running")
        self.say(text, "bold red")

    def _show(self, evaluated: Evaluated) -> None:
        if not self.is_attached:
            return
        self.evaluated = evaluated
        suite, tables = evaluated.suite, evaluated.tables
        self.query_one("#progress", ProgressBar).remove_class("-running")
        self._say_summary()
        self._fill_table(suite, tables)
        self._fill_requests(tables, evaluated.first_wrong)
        against = self.query_one("#against", Static)
        against.set_class(bool(evaluated.against), "-shown")
        against.update(Text("\n".join(one_line(line) for line in evaluated.against)))

    def _fill_table(self, suite: Suite, tables: Sequence[Table]) -> None:
        table = self.query_one("#figures", DataTable)
        room = self.query_one("#results").content_region.width or None
        figures, left_out = fit.figures_that_fit(suite.columns, tables, suite.percent, room)
        table.clear(columns=True)
        table.add_column("config", key="config")
        for figure in figures:
            for t in tables:
                label = Text(f"{figure}\n{t.split}", justify="right")
                table.add_column(label, key=f"{figure}|{t.split}")
        rows = [[name] + [Text(cell(figure, t.metrics[name], suite.percent), justify="right")
                          for figure in figures for t in tables]
                for name in tables[0].metrics]
        table.add_rows(rows)
        self.query_one("#left-out", Static).update(fit.left_out_line(left_out, len(tables), room) if left_out else "")

    def _fill_requests(self, tables: Sequence[Table], first_wrong: dict[str, list[str]]) -> None:
        self.rows = [(t.split, row) for t in tables for row in t.requests]
        requests = self.query_one("#requests", OptionList)
        width = requests.scrollable_content_region.width or None
        options = [Option(fit.request_prompt(split, row, first_wrong.get(row["id"], []), width))
                   for split, row in self.rows]
        highlighted = requests.highlighted
        requests.clear_options()
        requests.add_options(options)
        if options:
            requests.highlighted = min(highlighted or 0, len(options) - 1)

    @on(OptionList.OptionSelected, "#requests")
    def _request_chosen(self, event: OptionList.OptionSelected) -> None:
        if self.evaluated is None or not 0 <= event.option_index < len(self.rows):
            return
        split, row = self.rows[event.option_index]
        suite = self.evaluated.suite
        if suite.dataset == JUDGED:  # a person's own grades: graded there as in a pane
            from olai_tui.ui.graded_request import GradedRequestScreen

            self.app.push_screen(GradedRequestScreen(suite, row, split, on_graded=self.grades_changed))
        else:
            self.app.push_screen(RequestScreen(suite, row, split))
