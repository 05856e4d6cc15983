"""The tier footer: one chip per tier saying what it did for this query, and the total.

Nothing about a tier is silent: answered (rows, time), empty, skipped (why), off (how to turn it on),
unavailable (why, and what enables it), indexing (done/of with a bar), late, failed (why). Every
state is said in words as well as colour, so it reads the same under NO_COLOR.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from rich.text import Text
from textual.widgets import Static

from engines.answer import Answer, TierReport
from olai_tui.ui.text import one_line

BAR_CELLS = 12  # a bar this wide moves visibly every ~8% of an index
SEPARATOR = "  │  "

STATUS_STYLE = {
    "answered": "bold green",
    "empty": "",
    "skipped": "dim",
    "off": "dim",
    "unavailable": "bold red",
    "indexing": "bold yellow",
    "late": "bold yellow",
    "failed": "bold red",
    "ready": "green",
    "searching": "italic",
    "opening": "yellow",
}

FormatMs = Callable[[float | None], str]


def format_ms(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:,.0f} ms"


def progress_bar(done: int, of: int, cells: int = BAR_CELLS) -> Text:
    filled = 0 if of <= 0 else min(cells, round(cells * done / of))
    bar = Text("━" * filled, style="yellow", end="")
    bar.append("─" * (cells - filled), style="dim")
    return bar


def chip(report: TierReport, show_ms: FormatMs = format_ms) -> Text:
    """One tier's state: ``semantic indexing 412/1,200 ━━━━──── 3 rows · 9 ms``."""
    out = Text(report.name + " ", style="bold", end="")
    out.append(report.status, style=STATUS_STYLE.get(report.status, ""))
    if report.status == "indexing":
        out.append(f" {report.done or 0:,}/{report.of or 0:,} ")
        out.append_text(progress_bar(report.done or 0, report.of or 0))
    if report.status in ("answered", "indexing") and report.count:
        out.append(f" {report.count:,} row" + ("s" if report.count != 1 else ""))
    if report.reason:
        out.append(": " + one_line(report.reason))
    if report.enable and report.status in ("unavailable", "off", "failed"):
        out.append(" · to enable: ", style="dim")
        out.append(one_line(report.enable), style="italic")
    if report.ms is not None:
        out.append(" · " + show_ms(report.ms), style="dim")
    return out


def waiting_chip(name: str, state: str) -> Text:
    out = Text(name + " ", style="bold", end="")
    out.append(state, style=STATUS_STYLE.get(state, ""))
    return out


def footer_text(tiers: Sequence[str], answer: Answer | None, live: Mapping[str, TierReport],
                searching: bool, show_ms: FormatMs = format_ms, notices: Sequence[str] = (),
                filters: str = "", idle: str = "ready") -> Text:
    """The footer line(s): a chip per tier of the pane, then the answer's total, then one line per notice.

    ``live`` is what a tier is doing between answers (indexing progress, unavailable); it also
    keeps an answer's ``indexing done/of`` moving while the index builds. ``notices`` are what the
    engine had to do about a fault (a vector cache discarded, an endpoint ignored, recall that fell
    back): each said once, in words (plain text, never markup), so it reads the same under NO_COLOR.
    ``idle``: a tier's word when nothing else is known of it ("opening" while its engine opens).
    """
    chips: list[Text] = []
    for name in tiers:
        report = answer.tier(name) if answer is not None else None
        now = live.get(name)
        if report is not None:
            if report.status == "indexing" and now is not None and now.status == "indexing":
                report = TierReport(name, "indexing", report.ms, report.count, done=now.done, of=now.of)
            chips.append(chip(report, show_ms))
        elif searching and answer is not None:
            chips.append(waiting_chip(name, "searching"))
        elif now is not None:
            chips.append(chip(now, show_ms))
        else:
            chips.append(waiting_chip(name, idle))
    line = Text(end="")
    for i, piece in enumerate(chips):
        if i:
            line.append(SEPARATOR, style="dim")
        line.append_text(piece)
    if answer is not None:
        line.append(SEPARATOR, style="dim")
        line.append(f"total {answer.total:,}", style="bold")
    if filters:  # the filters the query's words were read as (notes: #tag, in:, after:, ...)
        line.append(SEPARATOR, style="dim")
        line.append("filters ", style="bold cyan")
        line.append(one_line(filters))
    seen: set[str] = set()
    for notice in notices:
        said = one_line(str(notice))
        if not said or said in seen:
            continue
        seen.add(said)
        line.append("\n")
        line.append("notice: ", style="bold yellow")
        line.append(said)
    return line


class TierFooter(Static):
    DEFAULT_CSS = """
    TierFooter {
        height: auto;
        max-height: 6;
        padding: 0 1;
        background: $panel;
    }
    """

    _height: int | None = None  # the lines the last text took at the width it was shown at

    def show(self, text: Text) -> None:
        """Show ``text``, laying the screen out again only when the footer's height may change.

        Static.update lays out the whole screen by default; the footer changes several times a second
        while an index builds (its progress), and on the 100,000-note vault those layouts (the results
        table rendered again each time) took a third of the main thread's time as the person typed."""
        width = self.content_region.width
        height = len(text.wrap(self.app.console, width)) if width > 0 else None
        self.update(text, layout=height is None or height != self._height)
        self._height = height
