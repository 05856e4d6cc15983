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
from olai_tui.ui.text import fit_words, one_line

BAR_CELLS = 12  # a bar this wide moves visibly every ~8% of an index
SEPARATOR = "  │  "
TIGHT_SEPARATOR = " │ "
# What a chip gives up, step by step, every chip of a line together, until the line fits its width
# (never wrapped into a second line, never cut inside a word): at 80 columns the notes footer needs
# step 2 (no times), the products footer's four tiers step 4; the palette still offers every tier's switch.
NO_HINT, NO_TIMES, SHORT_REASONS, TERSE, TIGHT = 1, 2, 3, 4, 5
STEPS = 6

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


def chip(report: TierReport, show_ms: FormatMs = format_ms, step: int = 0) -> Text:
    """One tier's state: ``semantic indexing 412/1,200 ━━━━──── 3 rows · 9 ms``; ``step`` (0: all of it)
    says how much detail it has given up to fit (NO_HINT, NO_TIMES, SHORT_REASONS, TERSE)."""
    out = Text(report.name + " ", style="bold", end="")
    rows = f"{report.count:,} row" + ("s" if report.count != 1 else "") if report.count else ""
    terse = step >= TERSE and report.status == "answered" and rows
    out.append(rows if terse else report.status, style=STATUS_STYLE.get(report.status, ""))
    if report.status == "indexing":
        out.append(f" {report.done or 0:,}/{report.of or 0:,}")
        if step < TERSE:
            out.append(" ")
            out.append_text(progress_bar(report.done or 0, report.of or 0))
    if report.status in ("answered", "indexing") and rows and not terse:
        out.append(" " + rows)
    if report.reason and step < TERSE:
        out.append(": " + (first_clause(report.reason) if step >= SHORT_REASONS else one_line(report.reason)))
    if report.enable and report.status in ("unavailable", "off", "failed") and step < NO_HINT:
        out.append(" · to enable: ", style="dim")
        out.append(one_line(report.enable), style="italic")
    if report.ms is not None and step < NO_TIMES:
        out.append(" · " + show_ms(report.ms), style="dim")
    return out


def first_clause(reason: str) -> str:
    """A reason's first clause (up to its first ``:``, ``;``, ``,`` or `` (``), said alone when room is short."""
    said = one_line(reason)
    for mark in (":", ";", ",", " ("):
        said = said.split(mark, 1)[0]
    return said.strip() or one_line(reason)


def waiting_chip(name: str, state: str) -> Text:
    out = Text(name + " ", style="bold", end="")
    out.append(state, style=STATUS_STYLE.get(state, ""))
    return out


def footer_text(tiers: Sequence[str], answer: Answer | None, live: Mapping[str, TierReport],
                searching: bool, show_ms: FormatMs = format_ms, notices: Sequence[str] = (),
                filters: str = "", idle: str = "ready", width: int | None = None) -> Text:
    """The footer line(s): a chip per tier of the pane, then the answer's total, then one line per notice.

    ``live`` is what a tier is doing between answers (indexing progress, unavailable); it also
    keeps an answer's ``indexing done/of`` moving while the index builds. ``notices`` are what the
    engine had to do about a fault (a vector cache discarded, an endpoint ignored, recall that fell
    back): each said once, in words (plain text, never markup), so it reads the same under NO_COLOR.
    ``idle``: a tier's word when nothing else is known of it ("opening" while its engine opens).
    ``width``: the line's cells; the chips give up detail a step at a time (STEPS) until they fit on
    it (None: everything said in full). A tier that cannot answer (unavailable, failed) whose chip gave
    up its why or how to enable says them whole on a line of its own, as a notice is said.
    """
    reports = tier_reports(tiers, answer, live, searching, idle)
    for step in range(STEPS):
        line = chips_line(reports, answer, show_ms, filters, step)
        if width is None or line.cell_len <= width:
            break
    else:
        line = fit_words(line, width)
    for report in reports:
        if isinstance(report, TierReport) and report.status in ("unavailable", "failed") and step >= NO_HINT \
                and (report.enable or (report.reason and step >= SHORT_REASONS)):
            line.append("\n")
            line.append(f"{report.name} {report.status}", style="bold red")
            if step >= SHORT_REASONS:  # the chip kept no more than its first clause
                line.append_text(chip(report, show_ms, NO_TIMES)[len(report.name) + 1 + len(report.status):])
            if report.enable:
                line.append(" · to enable: ", style="dim")
                line.append(one_line(report.enable), style="italic")
    seen: set[str] = set()
    for notice in notices:
        said = one_line(str(notice))
        if not said or said in seen:
            continue
        seen.add(said)
        line.append("\n")  # a notice (a fault the engine handled) is said whole, wrapped at words on lines of its own
        line.append("notice: ", style="bold yellow")
        line.append(said)
    return line


def tier_reports(tiers: Sequence[str], answer: Answer | None, live: Mapping[str, TierReport], searching: bool,
                 idle: str) -> list[TierReport | tuple[str, str]]:
    """What each tier's chip says: its report, or (name, state) while it has none (searching, ready, opening)."""
    out: list[TierReport | tuple[str, str]] = []
    for name in tiers:
        report = answer.tier(name) if answer is not None else None
        now = live.get(name)
        if report is not None:
            if report.status == "indexing" and now is not None and now.status == "indexing":
                report = TierReport(name, "indexing", report.ms, report.count, done=now.done, of=now.of)
            out.append(report)
        elif searching and answer is not None:
            out.append((name, "searching"))
        else:
            out.append(now if now is not None else (name, idle))
    return out


def chips_line(reports: Sequence[TierReport | tuple[str, str]], answer: Answer | None, show_ms: FormatMs,
               filters: str, step: int) -> Text:
    """The footer's first line: a chip per tier, the total and the filters, at one step of detail."""
    chips = [chip(r, show_ms, step) if isinstance(r, TierReport) else waiting_chip(*r) for r in reports]
    separator = TIGHT_SEPARATOR if step >= TIGHT else SEPARATOR
    line = Text(end="")
    for i, piece in enumerate(chips):
        if i:
            line.append(separator, style="dim")
        line.append_text(piece)
    if answer is not None:
        line.append(separator, style="dim")
        line.append(f"total {answer.total:,}", style="bold")
    if filters:  # the filters the query's words were read as (notes: #tag, in:, after:, ...)
        line.append(separator, style="dim")
        line.append("filters ", style="bold cyan")
        line.append(one_line(filters))
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
    _make: Callable[[int | None], Text] | None = None  # the pane's footer at a width (show_fitted)

    def show_fitted(self, make: Callable[[int | None], Text]) -> None:
        """Show ``make(width)``, the footer said to fit this width; said again at each new width."""
        self._make = make
        width = self.content_region.width
        self.show(make(width if width > 0 else None))

    def on_resize(self) -> None:
        if self._make is not None:
            self.call_after_refresh(lambda: self._make and self.show_fitted(self._make))

    def show(self, text: Text) -> None:
        """Show ``text``, laying the screen out again only when the footer's height may change.

        Static.update lays out the whole screen by default; the footer changes several times a second
        while an index builds (its progress), and on the 100,000-note vault those layouts (the results
        table rendered again each time) took a third of the main thread's time as the person typed."""
        width = self.content_region.width
        height = len(text.wrap(self.app.console, width)) if width > 0 else None
        self.update(text, layout=height is None or height != self._height)
        self._height = height
