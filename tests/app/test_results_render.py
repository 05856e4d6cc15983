"""The results table draws its rows itself (result_cells.one_line_cell, ResultsTable._draw): what it draws must be
what DataTable draws, segment for segment, or the rows would look different from every other table."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings, strategies as st
from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.renderables.styled import Styled
from textual.widgets import DataTable

from engines.answer import Hit
from olai_tui.ui.result_cells import one_line_cell
from olai_tui.ui.results import ResultsTable

CONSOLE = Console(width=120, color_system="truecolor", force_terminal=True)
STYLES = ["", "dim", "bold magenta", "dim magenta", "reverse", "italic #ff8800", "underline on blue"]
WORDS = ["electron", "density", "ä", "日本語", "x", " ", "  ", "…", "[bold]", "\t", "\n", "tail "]


def datatable_draws(cell: Text, width: int, padding: int, pre: Style, post: Style):
    """What DataTable._render_cell makes of a one-line cell: its own code's path, kept here as Rich calls."""
    options = CONSOLE.options.update_dimensions(width, 1).update(no_wrap=True)
    return CONSOLE.render_lines(Styled(Padding(cell, (0, padding)), pre_style=pre, post_style=post), options)


def drawn_here(cell: Text, width: int, padding: int, pre: Style, post: Style):
    options = lambda: CONSOLE.options.update_dimensions(width - 2 * padding, 1).update(no_wrap=True)  # noqa: E731
    return [one_line_cell(CONSOLE, options, cell, width, padding, pre, post)]


class OneTable(App):
    """A ResultsTable alone, made with these arguments."""

    def __init__(self, **table) -> None:
        super().__init__()
        self.table = table

    def compose(self):
        yield ResultsTable(**self.table)


@st.composite
def cells(draw) -> Text:
    text = Text(style=draw(st.sampled_from(STYLES)), no_wrap=draw(st.booleans()), end="",
                justify=draw(st.sampled_from([None, "default", "left", "right", "center", "full"])),
                overflow=draw(st.sampled_from([None, "fold", "crop", "ellipsis"])))
    for _ in range(draw(st.integers(0, 4))):
        text.append(draw(st.sampled_from(WORDS)), style=draw(st.sampled_from(STYLES)))
    return text


@settings(max_examples=200, deadline=None)
@given(cell=cells(), width=st.integers(3, 40), padding=st.integers(0, 1),
       pre=st.sampled_from([Style(), Style(bgcolor="#202020", meta={"row": 3, "column": 1}), Style(color="red")]),
       post=st.sampled_from([Style(), Style(bgcolor="#0178d4", color="white"), Style(bold=True)]))
def test_a_cell_is_drawn_as_datatable_draws_it(cell, width, padding, pre, post) -> None:
    assert drawn_here(cell, width, padding, pre, post) == datatable_draws(cell, width, padding, pre, post)


class Both(App):
    """A ResultsTable above a DataTable given the same columns and rows, each as tall and as wide."""

    CSS = "ResultsTable, DataTable { height: 1fr; }"

    def compose(self):
        yield ResultsTable(tiers=["semantic"], labels=True)
        yield DataTable(cursor_type="row", zebra_stripes=False)


HITS = [
    Hit("a", "Seedlings under glass, a very long title that the column has to cut", "garden/seedlings.md",
        "exact", 3.0),
    Hit("b", "日本語のノート", "deep/" * 12 + "tail.md", "semantic", 0.4281, marker="≈"),
    Hit("c", "weak guess", "x.md", "semantic", 0.11, marker="≈?", extras={"strength": "weak"}),
    Hit("d", "", "", "words", 0.0),
    Hit("e", "[bold]not bold[/]", "e.md", "exact", 1.0),
]


def test_the_rows_are_drawn_line_for_line_as_datatable_draws_them() -> None:
    """Every line the table puts on screen (the header, markers, weak guesses, cut titles, paths,
    labels, scores, the blank lines under the rows), with the cursor on each row, focused and not,
    against a DataTable holding the same cells in columns of the same widths."""
    from textual.geometry import Region

    async def run() -> None:
        async with Both().run_test(size=(90, 20)) as pilot:
            ours, theirs = pilot.app.query_one(ResultsTable), pilot.app.query_one(DataTable)
            ours.replace(HITS)
            await pilot.pause()
            for column in ours.ordered_columns:
                theirs.add_column(column.label, width=column.width, key=column.key)
            theirs.add_rows(ours._cells)
            await pilot.pause()
            assert ours.size == theirs.size and len(ours.ordered_columns) == 6 and ours.row_count == len(HITS)
            compared = 0
            for row in range(len(HITS)):
                for focused in (ours, theirs, None):
                    ours.move_cursor(row)
                    theirs.move_cursor(row=row, animate=False)
                    if focused is None:
                        pilot.app.set_focus(None)
                    else:
                        focused.focus()
                    await pilot.pause()
                    drawn = {}
                    for table in (ours, theirs):
                        if focused is not None:
                            table.focus()  # each compared focused, or both blurred
                            await pilot.pause()
                        drawn[table] = table.render_lines(Region(0, 0, table.size.width, table.size.height))
                    assert len(drawn[ours]) == len(drawn[theirs]) == ours.size.height
                    for y, (mine, its) in enumerate(zip(drawn[ours], drawn[theirs])):
                        assert list(mine) == list(its), (row, focused is not None, y, mine.text, its.text)
                        compared += 1
            assert compared == len(HITS) * 3 * ours.size.height

    asyncio.run(run())


def test_the_style_worked_out_once_a_render_follows_the_table_from_one_render_to_the_next() -> None:
    """ResultsTable works its rich_style out once a render, not once a line: a change of its styles
    between two renders shows in the second."""
    from textual.geometry import Region

    async def run() -> None:
        async with OneTable().run_test(size=(60, 8)) as pilot:
            table = pilot.app.query_one(ResultsTable)
            table.replace([Hit("a", "seedlings", "a.md", "exact", 1.0)])
            await pilot.pause()

            def background_of_the_last_line():
                lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
                return {segment.style.bgcolor for segment in lines[-1] if segment.style}

            table.styles.background = "red"
            red = background_of_the_last_line()
            table.styles.background = "blue"
            blue = background_of_the_last_line()
            assert red and blue and red != blue
            assert table.rich_style == super(ResultsTable, table).rich_style, "outside a render: worked out live"

    asyncio.run(run())


def test_the_marker_column_widens_for_a_weak_guess_and_narrows_again_when_none_is_left() -> None:
    weak = Hit("c", "weak guess", "x.md", "semantic", 0.11, marker="≈?", extras={"strength": "weak"})
    exact = Hit("a", "seedlings", "a.md", "exact", 1.0)

    async def run() -> None:
        async with OneTable().run_test(size=(80, 10)) as pilot:
            table = pilot.app.query_one(ResultsTable)
            table.replace([exact, weak])
            await pilot.pause()
            assert table.marker_width == 2 and table.ordered_columns[0].width == 2
            table.replace([exact])
            await pilot.pause()
            assert table.marker_width == 1 and table.ordered_columns[0].width == 1
            assert [h.id for h in table.hits] == ["a"] and table.row_count == 1

    asyncio.run(run())
