"""A results row's cells: the columns' widths at a table's width, the cells each hit makes, and one
cell drawn as DataTable draws it (the results table, results.py, draws its rows from these).
"""

from __future__ import annotations

from typing import Callable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

from engines.answer import Hit
from olai_tui.ui.adapters import RowView, plain_row
from olai_tui.ui.text import cell, one_line, tail_cell

MARKER, TIER, SCORE = 1, 8, 6  # "≈"; "semantic"; "0.428" and "3.000" under the header "score"
LABEL = 7  # "variant", "standin": the judge's label, never in the tier's column (the tier "exact" is not the label)
GRADE = 9  # "1 related", "unrated": a person's grade, shown only in a query that has grades
# A grade as its row shows it (engines/eval/judgements/store.py's scale), and a row not graded in a graded query.
GRADE_SHOWN = {3: ("3 exact", "bold green"), 2: ("2 good", "green"), 1: ("1 related", "yellow"),
               0: ("0 no", "red")}
UNRATED = ("unrated", "dim italic")
WHERE_SHARE = 0.35  # of what is left after the fixed columns: titles say more than paths
MIN_TITLE, MIN_WHERE, MAX_WHERE = 10, 8, 36
PADDING = 2  # a cell's padding, one cell each side (as DataTable pads)
CELL_PADDING = PADDING // 2


def column_widths(width: int, tier: int = TIER, label: int = 0, marker: int = MARKER, grade: int = 0) -> tuple[int, int]:
    """(title, where) widths for a table this wide, so rows never scroll sideways; where is 0
    (left out) when a title would get fewer than MIN_TITLE cells beside it."""
    room = width - (marker + tier + SCORE) - PADDING * 4 - 2  # 2: the vertical scrollbar
    for extra in (label, grade):
        if extra:
            room -= extra + PADDING
    where = max(MIN_WHERE, min(MAX_WHERE, int(room * WHERE_SHARE)))
    if room - where - PADDING < MIN_TITLE:
        return max(MIN_TITLE // 2, room), 0
    return room - where - PADDING, where


def grade_cell(grade: int | None, width: int = GRADE) -> Text:
    text, style = GRADE_SHOWN.get(grade, UNRATED) if grade is not None else UNRATED
    return cell(text, width, style=style)


def row_cells(hit: Hit, title_width: int, where_width: int, view: RowView | None = None,
              tier_width: int = TIER, label_width: int = 0, marker_width: int = MARKER,
              grade: int | None | bool = False) -> list[Text]:
    """``grade``: False where the query has no grades (no column), else the row's grade or None (unrated)."""
    resemblance = bool(hit.marker)
    weak = hit.extras.get("strength") == "weak"  # a guess by meaning (≈?): the whole row dimmed
    view = view or plain_row(hit)
    title = Text(one_line(view.title), no_wrap=True, overflow="ellipsis", end="", style="dim" if weak else "")
    if view.detail:
        title.append("  " + one_line(view.detail), style="dim")
    if title.cell_len > title_width:
        title.truncate(max(title_width, 1), overflow="ellipsis")
    cells = [
        cell(hit.marker or " ", marker_width, style="dim magenta" if weak else "bold magenta" if resemblance else ""),
        title,
        tail_cell(view.where, where_width, style="dim"),
        tier_cell(view, tier_width, weak),
        Text(f"{hit.score:.3f}", justify="right", end="", style="dim" if weak else ""),
    ]
    if label_width:
        cells.insert(4, cell(view.label, label_width, style=view.label_style))
    if grade is not False:
        cells.insert(len(cells) - 1, grade_cell(grade))
    return cells if where_width else cells[:2] + cells[3:]


def tier_cell(view: RowView, width: int, weak: bool = False) -> Text:
    """The tier that found the row, and beside it ↑/↓ where meaning moved it (as ≈ marks a row meaning found)."""
    style = "dim " + view.tier_style if weak else view.tier_style
    if not view.moved:
        return cell(view.tier, width, style=style)
    out = cell(view.tier, max(width - 2, 1), style=style)
    out.append(" ")
    out.append(view.moved, style="bold magenta")
    return out


def one_line_cell(console: Console, options: Callable[[], ConsoleOptions], cell: Text, width: int,
                  padding: int, pre_style: Style, post_style: Style) -> list[Segment]:
    """A one-line Text cell drawn as DataTable draws it (``Styled(Padding(cell, (0, padding)), ...)``
    through two ``console.render_lines``), without the layers between: the same segments, fewer
    calls. ``options()`` gives the table's for a one-line row, already this wide less the padding.

    Through Rich's layers a table's render was most of the interface's stalls at the 100,000-note
    vault (docs/bench-workbench.md). tests/app/test_results_render.py holds it to DataTable's own render."""
    inner = width - 2 * padding
    line = _fitted(console, cell, inner)
    if line is None:  # wrapped, cut or justified by Rich's own rules
        lines = Segment.split_and_crop_lines(cell.__rich_console__(console, options()), inner,
                                             include_new_lines=False, pad=True, style=_NO_STYLE)
        line = next(lines, None) or [Segment(" " * inner, _NO_STYLE)]
    if padding:
        pad = Segment(" " * padding, _NO_STYLE)
        line = [pad, *line, pad]
    return list(Segment.apply_style(line, style=pre_style, post_style=post_style))


def _fitted(console: Console, cell: Text, inner: int) -> list[Segment] | None:
    """The cell's segments padded to ``inner`` when Rich's wrap would leave its one line as it is
    (it fits, no tab, justified by default or to the right); None otherwise."""
    plain = cell.plain
    used = cell_len(plain)
    justify = cell.justify or "default"
    if used > inner or "\n" in plain or "\t" in plain or justify not in ("default", "right"):
        return None
    if justify == "right":
        if plain.rstrip() != plain:  # Rich strips it first
            return None
        if used < inner:
            cell = cell.copy()
            cell.pad_left(inner - used)
            used = inner
    # As Text.__rich_console__ renders it: its base style made the first span (Text.join), so that a
    # text without spans of its own still carries it (Text.render draws no base style without spans).
    spans = [Span(0, len(cell), cell.style), *cell.spans] if cell.style else cell.spans
    line = list(Text(cell.plain, spans=spans).render(console))
    return line + [Segment(" " * (inner - used), _NO_STYLE)] if used < inner else line


_NO_STYLE = Style.null()  # what Padding pads with: its style "none"
