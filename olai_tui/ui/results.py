"""The results list: marker, title, where, tier, score; rows added a batch at a time.

A widget on Textual's line API that looks as a one-line-row DataTable looks (the same segments, line
for line: tests/app/test_results_render.py) but keeps each row it drew as a finished line. DataTable
renders every cell on screen again after any change of rows (its caches are keyed by an update
count) and lays the whole screen out when its row count changes; typing into a 100,000-note vault,
those renders and layouts were most of the interface's stalls while the meaning index built
(docs/bench-workbench.md). Here a batch costs one hop and one refresh of the table's own lines, and
a row already drawn (typing on, the same note in front) is not drawn again. Every cell is a rich Text
built from plain strings, because a note titled ``[bold]`` must not be bold. The cells are made and
drawn in result_cells.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from rich.cells import cell_len
from rich.console import ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engines.answer import Hit
from olai_tui.places import places_moved
from olai_tui.ui.adapters import RowView, plain_row
from olai_tui.ui.keys import binding
from olai_tui.ui.result_cells import (CELL_PADDING, GRADE, LABEL, MARKER, PADDING, SCORE, TIER, column_widths,
                                      one_line_cell, row_cells)

LINES_KEPT = 512  # finished lines kept: a few screens' worth of rows (a query's answer is 30)


def _wide_marker(hits: Sequence[Hit]) -> int:
    return max([MARKER, *(cell_len(h.marker) for h in hits)])


@dataclass(frozen=True)
class Column:
    key: str
    label: Text
    width: int  # its cells' width, without the padding

    @property
    def render_width(self) -> int:
        return self.width + PADDING


class ResultsTable(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,ctrl+home", "first_row", "First row", show=False),
        Binding("end,ctrl+end", "last_row", "Last row", show=False),
        binding("open", "open_row", "Open"),
        binding("copy-path", "copy_path", "Copy"),
        binding("to-search", "to_search", "Search", show=False),
        *(binding(f"grade-{n}", f"grade({n})", f"Grade {n}", show=False) for n in range(4)),
    ]

    COMPONENT_CLASSES = {"results--header", "results--cursor"}
    # DataTable's own look (textual 8.2), so the rows look as every other table does.
    DEFAULT_CSS = """
    ResultsTable {
        height: 1fr;
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        &:focus {
            background-tint: $foreground 5%;
            & > .results--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .results--header {
                background-tint: $foreground 5%;
            }
        }
        & > .results--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .results--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .results--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """

    # The rows' count is the virtual height; a change of it repaints the table and moves its scrollbar,
    # and lays the screen out only when the scrollbar comes or goes (show_vertical_scrollbar does that).
    virtual_size = Reactive(Size(0, 0), layout=False)

    def __init__(self, view: Callable[[Hit], RowView] | None = None, tiers: Sequence[str] = (),
                 labels: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tier_width = max([TIER, *(len(t) for t in tiers)])  # code's "embedding" is 9
        self.label_width = LABEL if labels else 0
        self.view = view or plain_row  # what an engine's row says in each cell (adapters.RowView)
        self.hits: list[Hit] = []
        self.columns: dict[str, Column] = {}
        self.cursor_row = 0
        self._widths = (40, 24)
        self.marker_width = MARKER  # 2 while a weak guess (≈?) is on screen
        self._width = 0
        self._cells: list[list[Text]] = []  # each row's cells, as row_cells made them
        self._shown: list[tuple] = []  # what each row on screen says (_said), in order
        self._lines: dict[tuple, Strip] = {}  # finished lines, by what they say, where and how
        self._look: tuple | None = None  # the styles and widths the finished lines were drawn with
        # item id -> a person's grade for the query on screen; None: the query has no grades (no column)
        self.grades: dict[str, int] | None = None

    # -- columns and rows ----------------------------------------------------------------------
    @property
    def ordered_columns(self) -> list[Column]:
        return list(self.columns.values())

    @property
    def row_count(self) -> int:
        return len(self._cells)

    def get_row_at(self, row: int) -> list[Text]:
        """The cells of the row at ``row`` (as DataTable's of the same name)."""
        return list(self._cells[row])

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        title, where = self._widths
        columns = [Column("marker", Text(" "), self.marker_width), Column("title", Text("title"), title)]
        if where:  # a narrow terminal keeps the title readable and leaves the path to the preview
            columns.append(Column("where", Text("where"), where))
        columns.append(Column("tier", Text("tier"), self.tier_width))
        if self.label_width:
            columns.append(Column("label", Text("label"), self.label_width))
        if self.grades is not None:
            columns.append(Column("grade", Text("grade"), GRADE))
        columns.append(Column("score", Text("score", justify="right"), SCORE))
        self.columns = {column.key: column for column in columns}
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.width)

    def fit(self, width: int, force: bool = False) -> None:
        """Lay the columns out for this width again (after a resize), keeping the rows and cursor."""
        self._width = width
        widths = column_widths(width, self.tier_width, self.label_width, self.marker_width,
                               GRADE if self.grades is not None else 0)
        if widths == self._widths and not force:
            return
        self._widths = widths
        row = self.cursor_row
        self._clear_rows(columns=True)
        self._add_columns()
        self._add(self.hits)
        if self.hits:
            self.move_cursor(row=min(row, len(self.hits) - 1), animate=False)

    def show_grades(self, grades: dict[str, int] | None) -> None:
        """The grades of the query on screen (None: it has none): the column comes, goes or changes."""
        if grades != self.grades:
            self.grades = None if grades is None else dict(grades)
            self._relayout(self.marker_width)  # rows and cursor kept

    def replace(self, hits: Sequence[Hit]) -> None:
        if _wide_marker(hits) == self.marker_width and [self._said(h) for h in hits] == self._shown:
            # The rows on screen already say this (typing on, the same notes in front): nothing drawn again.
            self.hits = list(hits)
            if self.cursor_row != 0:
                self.move_cursor(row=0, animate=False)  # a new answer starts at its first row
            return
        self.hits = []
        self._clear_rows()  # sized once the new rows are in: no scrollbar going and coming back between
        if self.marker_width != MARKER and _wide_marker(hits) == MARKER:  # no "≈?" left: one cell again
            self._relayout(MARKER)
        self.append(hits)

    def append(self, hits: Sequence[Hit]) -> None:
        self.hits.extend(hits)
        wide = _wide_marker(hits)
        if wide > self.marker_width:  # a weak guess's "≈?" needs two cells: lay out again, rows and all
            self._relayout(wide)
            return
        self._add(hits)

    def _relayout(self, marker: int) -> None:
        self.marker_width = marker
        if self._width:
            self.fit(self._width, force=True)
        else:
            self._clear_rows(columns=True)
            self._add_columns()
            self._add(self.hits)

    def _clear_rows(self, columns: bool = False) -> None:
        """No rows (and no columns, with ``columns``); the hits are the caller's to set, and the table is
        sized again once the new rows are in (_add)."""
        self._cells, self._shown = [], []
        if columns:
            self.columns = {}
        self.cursor_row = 0
        self.scroll_to(y=0, animate=False)

    def _said(self, hit: Hit, view: RowView | None = None) -> tuple:
        """Everything a hit's cells are made of at the table's widths (row_cells)."""
        return (view or self.view(hit), hit.marker, hit.extras.get("strength") == "weak", f"{hit.score:.3f}",
                self._grade(hit))

    def _grade(self, hit: Hit) -> int | None | bool:
        return False if self.grades is None else self.grades.get(hit.id)

    def _add(self, hits: Sequence[Hit]) -> None:
        if not hits:
            self._rows_changed()  # sized even so: a replace by no rows sizes the table here
            return
        moved = places_moved(self.hits)  # ↑/↓ by meaning; self.hits holds these rows already, after those before
        views = [replace(v, moved=moved[h.id]) if h.id in moved else v for h, v in ((h, self.view(h)) for h in hits)]
        self._shown.extend(self._said(hit, view) for hit, view in zip(hits, views))
        title, where = self._widths
        self.add_rows([row_cells(hit, title, where, view, self.tier_width, self.label_width, self.marker_width,
                                 self._grade(hit)) for hit, view in zip(hits, views)])

    def add_rows(self, rows: Sequence[list[Text]]) -> None:
        """Rows of cells after the last: one refresh of the table's own lines for the whole batch."""
        self._cells.extend(rows)
        self._rows_changed()

    def _rows_changed(self) -> None:
        self.virtual_size = Size(self.size.width, len(self._cells) + 1)  # + the header
        if self.is_mounted:
            self._scroll_update(self.virtual_size)
        self.refresh()

    # -- the cursor ----------------------------------------------------------------------------
    @property
    def current(self) -> Hit | None:
        if not self.hits or self.cursor_row < 0 or self.cursor_row >= len(self.hits):
            return None
        return self.hits[self.cursor_row]

    @property
    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)  # rows on screen under the header

    def move_cursor(self, row: int, animate: bool = False, scroll: bool = True) -> None:
        row = max(0, min(row, self.row_count - 1))
        moved, self.cursor_row = row != self.cursor_row, row
        if scroll:
            top = round(self.scroll_y)
            if row < top:
                self.scroll_to(y=row, animate=animate)
            elif row >= top + self._page:
                self.scroll_to(y=row - self._page + 1, animate=animate)
        if moved:
            self.refresh()  # two lines change; the others are finished lines, drawn again for nothing
            self.post_message(self.RowHighlighted(self, row))

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor_row - self._page)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor_row + self._page)

    def action_first_row(self) -> None:
        self.move_cursor(0)

    def action_last_row(self) -> None:
        self.move_cursor(self.row_count - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return  # the header
        row = round(self.scroll_y) + offset.y - 1
        if row < self.row_count:
            self.move_cursor(row)

    # -- drawing -------------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        # What every line is drawn with, worked out once a render (each ask walks the ancestors' styles);
        # lines drawn with another look (a focus, a theme, a width) are dropped.
        look = (self.rich_style, self.get_component_rich_style("results--header"),
                self.get_component_rich_style("results--cursor"), self.size.width, tuple(self.columns.values()))
        if look != self._look or len(self._lines) > LINES_KEPT:
            self._lines.clear()
            self._look = look
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        base, header, cursor = self._look[:3] if self._look else (self.rich_style, Style(), Style())
        width = self.size.width
        if y == 0:
            key: tuple = ("header",)
            cells, row, row_style, on_cursor = [c.label for c in self.columns.values()], -1, header, False
        else:
            row = round(self.scroll_y) + y - 1
            if row >= len(self._cells):
                return Strip.blank(width, base)
            on_cursor = row == self.cursor_row
            key = (self._shown[row] if row < len(self._shown) else id(self._cells[row]), row, on_cursor)
            cells, row_style = self._cells[row], base
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = self._draw(cells, row, row_style, base, cursor if on_cursor else None, width)
        return line

    def _draw(self, cells: Sequence[Text], row: int, row_style: Style, base: Style, cursor: Style | None,
              width: int) -> Strip:
        """One row as DataTable's _render_line_in_row and _render_line draw it: each cell padded and
        styled (its meta says its row and column, for the mouse), the rest of the width filled."""
        component = cursor or Style()
        post = Style.from_color(color=component.color) + Style.null()  # the cursor's colour over the cell's
        console = self.app.console
        segments: list[Segment] = []
        used = 0
        for index, (cell, column) in enumerate(zip(cells, self.columns.values())):
            pre = row_style + Style.from_meta({"row": row, "column": index}) + component
            inner = column.width
            segments += one_line_cell(console, lambda inner=inner: self._one_line_options(inner), cell,
                                      column.render_width, CELL_PADDING, pre, post)
            used += column.render_width
        fill = row_style + component + Style.from_meta({"row": row, "column": 0, "out_of_bounds": True})
        segments.append(Segment(" " * max(0, width - used), fill))
        return Strip(segments).crop(0, width).adjust_cell_length(width, base).simplify()

    def _one_line_options(self, width: int) -> ConsoleOptions:
        # What DataTable renders a one-line row's cell with, less the padding Padding would take off.
        return self.app.console_options.update_dimensions(width, 1).update(no_wrap=True)

    # -- what the pane decides -----------------------------------------------------------------
    def action_open_row(self) -> None:
        self.post_message(self.OpenRequested(self.current))

    def action_copy_path(self) -> None:
        self.post_message(self.CopyRequested(self.current))

    def action_to_search(self) -> None:
        self.post_message(self.BackToSearch())

    def action_grade(self, grade: int) -> None:
        if self.current is not None:
            self.post_message(self.GradeRequested(self.current, grade))

    class RowHighlighted(Message):
        """The cursor moved to ``cursor_row``."""

        def __init__(self, table: "ResultsTable", cursor_row: int) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row

        @property
        def control(self) -> "ResultsTable":
            return self.table

    class OpenRequested(Message):
        def __init__(self, hit: Hit | None) -> None:
            super().__init__()
            self.hit = hit

    class CopyRequested(Message):
        def __init__(self, hit: Hit | None) -> None:
            super().__init__()
            self.hit = hit

    class BackToSearch(Message):
        pass

    class GradeRequested(Message):
        def __init__(self, hit: Hit, grade: int) -> None:
            super().__init__()
            self.hit = hit
            self.grade = grade
