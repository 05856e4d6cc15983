"""Side by side: the current query run through each of a pane's tier configurations separately.

Notes: exact | words | semantic | merged. Each column has its own timing, count and tier states. A row that
more than one tier found on its own (exact and semantic) is marked ◆ and drawn bold in every column,
so what meaning added over exact words is the plain ≈ rows; the merged column (every tier at once)
does not count as a finder, or every row would be marked.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Sequence

from rich.text import Text
from textual import work
from textual.screen import Screen
from textual.widgets import Footer, Static

from engines.answer import Answer, Batch, TierReport
from engines.contract import Comparison as Column
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.footer import STEPS, chip, format_ms
from olai_tui.ui.keys import binding
from olai_tui.ui.columns import side_by_side
from olai_tui.ui.text import first_fitting, one_line

SHARED = "◆"


@dataclass
class ColumnResult:
    column: Column
    answer: Answer | None = None
    ms: float | None = None
    ids: list[str] = field(default_factory=list)


def column_text(result: ColumnResult, shared: set[str], show_ms=format_ms,
                results: Sequence[ColumnResult] = (), width: int | None = None) -> tuple[Text, Text]:
    """(header, rows) of one column; rows are `score ◆≈ title`, score first so a narrow column keeps it.

    ``results``: every column on the screen, so that a combined column's chip agrees with them (tiers_said).
    ``width``: the head's cells: each of its lines gives up detail until it fits (never wrapped, never
    cut inside a word)."""
    label = result.column.label
    if result.answer is None:
        return first_fitting([_head(label, ("  running…", "italic")), _head(label)], width), Text(end="")
    answer = result.answer
    in_others = sum(1 for hit in answer.hits if hit.id in shared)
    rows_n, ms = f"{len(answer.hits):,}", show_ms(result.ms)
    rows_said = f"{rows_n} row" + ("s" if len(answer.hits) != 1 else "")
    header = first_fitting([_head(label, f" · {rows_said}" + (f" · {ms}" if ms else "")),
                            _head(label, f" · {rows_said}"), _head(label, f" {rows_n}")], width)
    only = len(answer.hits) - in_others
    counts = [f"total {answer.total:,} · {in_others} {SHARED}" + ("" if result.column.combined else f" · {only} only here"),
              f"total {answer.total:,} · {in_others}{SHARED}" + ("" if result.column.combined else f" · {only} only"),
              f"{in_others}{SHARED}" + ("" if result.column.combined else f" {only} only")]
    header.append("\n")
    header.append_text(first_fitting([Text(c, style="dim", end="") for c in counts], width))
    for said in tiers_said(result, results, show_ms, width):
        header.append("\n")
        header.append_text(said)
    rows = Text(no_wrap=True, overflow="ellipsis", end="")
    for i, hit in enumerate(answer.hits):
        both = hit.id in shared
        line = Text(f"{hit.score:6.3f} ", style="dim", end="")
        line.append(SHARED if both else " ", style="bold cyan")
        line.append(hit.marker or " ", style="bold magenta")
        line.append(" " + one_line(hit.title or hit.id), style="bold" if both else "")
        if i:
            rows.append("\n")
        rows.append_text(line)
    if not answer.hits:
        rows.append("(no rows)", style="italic")
    return header, rows


def _head(label: str, rest: str | tuple[str, str] = "") -> Text:
    out = Text(label, style="bold", end="")
    if rest:
        out.append(*(rest if isinstance(rest, tuple) else (rest,)))
    return out


def tiers_said(result: ColumnResult, results: Sequence[ColumnResult], show_ms=format_ms,
               width: int | None = None) -> list[Text]:
    """The chips of a column's tiers that did not simply answer.

    In a combined column a tier runs after the others and adds only what they missed, so it may say
    "empty" while its own column beside it holds rows (notes' words, whose rows exact found first). Said
    as the engine said it, that reads as a contradiction; it is said as what happened: it added none,
    its rows being the other tiers'."""
    answer = result.answer
    if answer is None:
        return []
    own = {r.column.tiers[0]: r for r in results
           if not r.column.combined and len(r.column.tiers) == 1 and r.answer is not None}
    said: list[Text] = []
    for report in answer.tiers:
        if report.name not in result.column.tiers or report.status == "answered":
            continue
        alone = own.get(report.name)
        if result.column.combined and report.status == "empty" and alone is not None and alone.ids:
            said.append(first_fitting([added_none(report.name, alone.ids, answer, show_ms(report.ms), step)
                                       for step in range(4)], width))
        else:
            said.append(first_fitting([chip(report, show_ms, step) for step in range(STEPS)], width))
    return said


def added_none(tier: str, its_ids: Sequence[str], answer: Answer, ms: str, step: int = 0) -> Text:
    """``words added none: its 2 rows came from exact``: a tier whose rows the tiers before it had found
    (``step`` 1: without the time, 2: ``words added none: exact had them``, 3: ``words added none``)."""
    finders = {hit.id: hit.tier for hit in answer.hits}
    by = sorted({finders[i] for i in its_ids if i in finders})
    rows = f"{len(its_ids):,} row" + ("s" if len(its_ids) != 1 else "")
    out = Text(tier + " ", style="bold", end="")
    out.append("added none")
    if step >= 2:
        out.append(f": {' and '.join(by)} had them" if by and step < 3 else "", style="dim")
        return out
    out.append(f": its {rows} came from {' and '.join(by)}" if by else f": its {rows} fell past the limit",
               style="dim")
    if ms and step < 1:
        out.append(" · " + ms, style="dim")
    return out


def shared_ids(results: list[ColumnResult]) -> set[str]:
    """Ids found by more than one of the columns that run tiers on their own."""
    seen: dict[str, int] = {}
    for result in results:
        if result.column.combined:
            continue
        for hit_id in set(result.ids):
            seen[hit_id] = seen.get(hit_id, 0) + 1
    return {hit_id for hit_id, n in seen.items() if n > 1}


class CompareScreen(Screen):
    BINDINGS = [binding("close", "app.pop_screen", "Back"), binding("evaluate", "evaluate", "Evaluate")]
    DEFAULT_CSS = """
    CompareScreen #title { height: auto; padding: 0 1; background: $panel; }
    CompareScreen #columns { height: 1fr; }
    CompareScreen .column { width: 1fr; border: round $panel-lighten-2; }
    CompareScreen .column:focus-within { border: round $accent; }
    CompareScreen .head { height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    CompareScreen .rows { height: 1fr; padding: 0 1; }
    CompareScreen .rows Static { text-wrap: nowrap; text-overflow: ellipsis; }
    CompareScreen.-narrow #columns { layout: grid; grid-size: 2; grid-gutter: 0; }
    CompareScreen.-narrow .column.-last-odd { column-span: 2; }
    """

    def __init__(self, adapter: EngineAdapter, query: str, limit: int) -> None:
        super().__init__()
        self.adapter = adapter
        self.query_string = query
        self.limit = limit
        self.results = [ColumnResult(column) for column in adapter.compare_columns()]

    def compose(self):
        yield Static(id="title")
        yield from side_by_side(len(self.results))
        yield Footer()

    def title_text(self, width: int | None) -> Text:
        """The query and the legend, the legend shorter (then gone) where the width is short."""
        variants = []
        for legend in (f"   {SHARED} found by more than one tier   ≈ found by meaning",
                       f"   {SHARED} several tiers  ≈ meaning", ""):
            title = Text(f"{self.adapter.name}: the tiers side by side for ", end="")
            title.append(f"“{one_line(self.query_string)}”", style="bold")
            title.append(legend, style="dim")
            variants.append(title)
        return first_fitting(variants, width)

    def on_mount(self) -> None:
        if len(self.results) % 2:  # on a narrow screen two columns a row: the odd last one takes both
            self.query_one(f"#column-{len(self.results) - 1}").add_class("-last-odd")
        self.render_columns()
        self.query_one("#scroll-0").focus()
        self.run_columns()

    @work(exclusive=True, group="compare", exit_on_error=False)
    async def run_columns(self) -> None:
        for result in self.results:
            started = time.perf_counter()
            try:
                answer = await asyncio.to_thread(self._collect, result.column)
            except Exception as exc:  # noqa: BLE001 - a failing column says so in its header
                answer = Answer(self.adapter.name, self.query_string)
                answer.apply(Batch([], [TierReport(t, "failed", reason=f"{type(exc).__name__}: {exc}")
                                        for t in result.column.tiers]))
            result.ms = (time.perf_counter() - started) * 1000
            result.answer = answer
            result.ids = [hit.id for hit in answer.hits]
            self.render_columns()

    def action_evaluate(self) -> None:
        from olai_tui.ui.evaluation import EvaluationScreen, graded_corpora

        self.app.push_screen(EvaluationScreen(self.adapter.name, graded_corpora(getattr(self.app, "panes", ()))))

    def _collect(self, column: Column) -> Answer:
        answer = Answer(self.adapter.name, self.query_string)
        for batch in self.adapter.compare_search(column, self.query_string, self.limit):
            answer.apply(batch)
        return answer

    def on_resize(self) -> None:
        self.call_after_refresh(self.render_columns)  # the heads' widths are known after the layout

    def render_columns(self) -> None:
        shared = shared_ids(self.results)
        show_ms = getattr(self.app, "format_ms", format_ms)
        title = self.query_one("#title", Static)
        title.update(self.title_text(title.content_region.width or None))
        for i, result in enumerate(self.results):
            head = self.query_one(f"#head-{i}", Static)
            header, rows = column_text(result, shared, show_ms, self.results, head.content_region.width or None)
            self.query_one(f"#head-{i}", Static).update(header)
            self.query_one(f"#rows-{i}", Static).update(rows)
