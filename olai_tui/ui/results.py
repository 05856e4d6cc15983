"""The results list: marker, title, where, tier, score; rows added a batch at a time.

A DataTable fed on the main thread with one ``add_rows`` call per batch, so a batch costs one hop
and one refresh (STYLE.md: 2,000 rows pushed one ``call_from_thread`` per row took 6.7 s, in batches
of 200 0.35 s). Every cell is a rich Text built from plain strings, because a plain ``str`` cell is
parsed as markup and a note titled ``[bold]`` would be bold. Its one-line cells are drawn by
one_line_cell, the segments DataTable would draw, for less.
"""

from __future__ import annotations

from typing import Callable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import DataTable

from engines.answer import Hit
from olai_tui.ui.adapters import RowView, plain_row
from olai_tui.ui.keys import binding
from olai_tui.ui.text import cell, one_line, tail_cell

MARKER, TIER, SCORE = 1, 8, 6  # "≈"; "semantic"; "0.428" and "3.000" under the header "score"
LABEL = 7  # "variant", "standin": the judge's label, never in the tier's column (the tier "exact" is not the label)
WHERE_SHARE = 0.35  # of what is left after the fixed columns: titles say more than paths
MIN_TITLE, MIN_WHERE, MAX_WHERE = 10, 8, 36
PADDING = 2  # DataTable's cell padding: one cell each side


def column_widths(width: int, tier: int = TIER, label: int = 0, marker: int = MARKER) -> tuple[int, int]:
    """(title, where) widths for a table this wide, so rows never scroll sideways; where is 0
    (left out) when a title would get fewer than MIN_TITLE cells beside it."""
    room = width - (marker + tier + SCORE) - PADDING * 4 - 2  # 2: the vertical scrollbar
    if label:
        room -= label + PADDING
    where = max(MIN_WHERE, min(MAX_WHERE, int(room * WHERE_SHARE)))
    if room - where - PADDING < MIN_TITLE:
        return max(MIN_TITLE // 2, room), 0
    return room - where - PADDING, where


def row_cells(hit: Hit, title_width: int, where_width: int, view: RowView | None = None,
              tier_width: int = TIER, label_width: int = 0, marker_width: int = MARKER) -> list[Text]:
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
        cell(view.tier, tier_width, style="dim " + view.tier_style if weak else view.tier_style),
        Text(f"{hit.score:.3f}", justify="right", end="", style="dim" if weak else ""),
    ]
    if label_width:
        cells.insert(4, cell(view.label, label_width, style=view.label_style))
    return cells if where_width else cells[:2] + cells[3:]


def one_line_cell(console: Console, options: Callable[[], ConsoleOptions], cell: Text, width: int,
                  padding: int, pre_style: Style, post_style: Style) -> list[Segment]:
    """A one-line Text cell drawn as DataTable draws it (``Styled(Padding(cell, (0, padding)), ...)``
    through two ``console.render_lines``), without the layers between: the same segments, fewer
    calls. ``options()`` gives the table's for a one-line row, already this wide less the padding.

    DataTable renders every visible cell again after each change of rows; at the 100,000-note vault
    that render was most of the interface's stalls while the meaning index built
    (docs/bench-workbench.md). tests/app/test_results_render.py holds it to DataTable's own render."""
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


def _wide_marker(hits: Sequence[Hit]) -> int:
    return max([MARKER, *(cell_len(h.marker) for h in hits)])


class ResultsTable(DataTable):
    BINDINGS = [
        binding("open", "open_row", "Open"),
        binding("copy-path", "copy_path", "Copy path"),
        binding("to-search", "to_search", "Search", show=False),
    ]

    DEFAULT_CSS = """
    ResultsTable { height: 1fr; }
    """

    def __init__(self, view: Callable[[Hit], RowView] | None = None, tiers: Sequence[str] = (),
                 labels: bool = False, **kwargs) -> None:
        self._style_this_render: Style | None = None  # see render_lines
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.tier_width = max([TIER, *(len(t) for t in tiers)])  # code's "embedding" is 9
        self.label_width = LABEL if labels else 0
        self.view = view or plain_row  # what an engine's row says in each cell (adapters.RowView)
        self.hits: list[Hit] = []
        self._widths = (40, 24)
        self.marker_width = MARKER  # 2 while a weak guess (≈?) is on screen
        self._width = 0
        self._shown: list[tuple] = []  # what each row on screen says (_said), in order

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        title, where = self._widths
        self.add_column(" ", width=self.marker_width, key="marker")
        self.add_column("title", width=title, key="title")
        if where:  # a narrow terminal keeps the title readable and leaves the path to the preview
            self.add_column("where", width=where, key="where")
        self.add_column("tier", width=self.tier_width, key="tier")
        if self.label_width:
            self.add_column("label", width=self.label_width, key="label")
        self.add_column(Text("score", justify="right"), width=SCORE, key="score")

    def on_resize(self, event) -> None:
        self.fit(event.size.width)

    def fit(self, width: int, force: bool = False) -> None:
        """Lay the columns out for this width again (after a resize), keeping the rows and cursor."""
        self._width = width
        widths = column_widths(width, self.tier_width, self.label_width, self.marker_width)
        if widths == self._widths and not force:
            return
        self._widths = widths
        row = self.cursor_row
        self.clear(columns=True)
        self._add_columns()
        self._add(self.hits)
        if self.hits:
            self.move_cursor(row=min(row, len(self.hits) - 1), animate=False)

    def replace(self, hits: Sequence[Hit]) -> None:
        if _wide_marker(hits) == self.marker_width and [self._said(h) for h in hits] == self._shown:
            # The rows on screen already say this (typing on, the same notes in front): no new rows, so
            # no render of every cell. At the 100,000-note vault that render was most of the stalls
            # while the index built (docs/bench-workbench.md).
            self.hits = list(hits)
            if self.cursor_row != 0:
                self.move_cursor(row=0, animate=False)  # a new answer starts at its first row
            return
        self.hits = []
        self.clear()
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
            self.clear(columns=True)
            self._add_columns()
            self._add(self.hits)

    def clear(self, columns: bool = False):
        self._shown = []
        return super().clear(columns=columns)

    def render_lines(self, crop: Region) -> list[Strip]:
        # DataTable's render_line asks for the widget's rich_style once a line, and each ask walks the
        # styles of every ancestor; within one render it cannot change, so it is worked out once.
        self._style_this_render = None
        self._style_this_render = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._style_this_render = None

    @property
    def rich_style(self) -> Style:
        held = self._style_this_render
        return super().rich_style if held is None else held

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False):
        """DataTable's own cell render, with its cache, except that a body cell of one-line Text is
        drawn by one_line_cell. Headers, labels and anything else go to DataTable."""
        if row_index < max(self.fixed_rows, 0) or column_index < max(self.fixed_columns, 0) \
                or width <= 2 * self.cell_padding:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        key = (row_key, self._column_locations.get_key(column_index), base_style, cursor, hover,
               self._show_hover_cursor, self._update_count, self._pseudo_class_state)
        lines = self._cell_render_cache.get(key)
        if lines is not None:
            return lines
        cells = self._get_row_renderables(row_index).cells
        cell = cells[column_index] if column_index < len(cells) else None
        if not isinstance(cell, Text) or row_key not in self.rows or self.rows[row_key].height != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        component_style, post_style = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        inner = width - 2 * self.cell_padding
        lines = [one_line_cell(self.app.console, lambda: self._one_line_options(inner), cell, width,
                               self.cell_padding, pre_style, post_style)]
        self._cell_render_cache[key] = lines
        return lines

    def _one_line_options(self, width: int) -> ConsoleOptions:
        # What DataTable renders a one-line row's cell with, less the padding Padding would take off.
        return self.app.console_options.update_dimensions(width, 1).update(no_wrap=True)

    def _said(self, hit: Hit, view: RowView | None = None) -> tuple:
        """Everything a hit's cells are made of at the table's widths (row_cells)."""
        return view or self.view(hit), hit.marker, hit.extras.get("strength") == "weak", f"{hit.score:.3f}"

    def _add(self, hits: Sequence[Hit]) -> None:
        if not hits:
            return
        views = [self.view(hit) for hit in hits]
        self._shown.extend(self._said(hit, view) for hit, view in zip(hits, views))
        title, where = self._widths
        self.add_rows([row_cells(hit, title, where, view, self.tier_width, self.label_width, self.marker_width)
                       for hit, view in zip(hits, views)])

    @property
    def current(self) -> Hit | None:
        if not self.hits or self.cursor_row < 0 or self.cursor_row >= len(self.hits):
            return None
        return self.hits[self.cursor_row]

    # The pane decides what these mean for its engine.
    def action_open_row(self) -> None:
        self.post_message(self.OpenRequested(self.current))

    def action_copy_path(self) -> None:
        self.post_message(self.CopyRequested(self.current))

    def action_to_search(self) -> None:
        self.post_message(self.BackToSearch())

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
