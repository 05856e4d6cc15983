"""The results table and the preview are line-API widgets: new rows or a new preview repaint them and
lay the screen out only when a scrollbar comes or goes. Typing into a 100,000-note vault, the layouts
and renders of DataTable and a Static preview were most of the interface's stalls
(docs/bench-workbench.md)."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual.app import App

from engines.answer import Hit
from olai_tui.ui.preview_view import Preview
from olai_tui.ui.results import ResultsTable


class RowsAndPreview(App):
    CSS = "ResultsTable { height: 12; } Preview { height: 8; }"

    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[int] = []

    def on_results_table_row_highlighted(self, message: ResultsTable.RowHighlighted) -> None:
        self.highlighted.append(message.cursor_row)

    def compose(self):
        yield ResultsTable(id="results")
        yield Preview("", id="preview")


def hits(prefix: str, n: int) -> list[Hit]:
    return [Hit(f"{prefix}{i}.md", f"{prefix} note {i}", f"{prefix}/{i}.md", "exact", float(n - i)) for i in range(n)]


def counting_layouts(app: App) -> list[int]:
    """One entry a layout of the screen (Screen._refresh_layout's reflow, not its scroll-only path)."""
    screen = app.screen
    real = screen._refresh_layout
    seen: list[int] = []

    def refresh_layout(size=None, scroll=False):
        if not scroll or screen._layout_widgets:
            seen.append(1)
        return real(size, scroll)

    screen._refresh_layout = refresh_layout
    return seen


def test_new_rows_repaint_the_table_without_a_layout_while_its_scrollbar_stays() -> None:
    async def run() -> None:
        async with RowsAndPreview().run_test(size=(80, 30)) as pilot:
            table = pilot.app.query_one(ResultsTable)
            table.replace(hits("a", 30))  # more rows than the table shows: its scrollbar comes, once
            await pilot.pause()
            assert table.show_vertical_scrollbar
            layouts = counting_layouts(pilot.app)
            for n, prefix in enumerate("bcdefgh"):
                table.replace(hits(prefix, 20 + n))  # other rows, another count each time
                table.append(hits(prefix + "x", 3))
                await pilot.pause()
                shown = table.render_line(1).text
                assert f"{prefix} note 0" in shown, shown
            assert layouts == [], "the rows changed 7 times and the screen was laid out again"
            table.replace(hits("z", 2))  # all rows fit: the scrollbar goes, and that is a layout
            await pilot.pause()
            assert not table.show_vertical_scrollbar and layouts

    asyncio.run(run())


def test_the_cursor_moves_scroll_and_say_which_row_is_highlighted() -> None:
    async def run() -> None:
        async with RowsAndPreview().run_test(size=(80, 30)) as pilot:
            app = pilot.app
            table = app.query_one(ResultsTable)
            table.replace(hits("a", 30))
            table.focus()
            await pilot.pause()
            await pilot.press("down", "down")
            assert table.cursor_row == 2 and table.current.id == "a2.md"
            await pilot.press("end")
            assert table.cursor_row == 29 and table.scroll_y == 30 + 1 - table.size.height
            assert "a note 29" in table.render_line(table.size.height - 1).text
            await pilot.press("home")
            assert table.cursor_row == 0 and table.scroll_y == 0
            await pilot.press("pagedown")
            assert table.cursor_row == table.size.height - 1  # a page: the rows under the header
            await pilot.click(ResultsTable, offset=(5, 3))
            assert table.current.id == f"a{round(table.scroll_y) + 2}.md"
            await pilot.pause()
            assert app.highlighted == [1, 2, 29, 0, table.size.height - 1, table.cursor_row]

    asyncio.run(run())


def test_a_preview_shows_its_last_line_and_changes_without_a_layout_while_its_scrollbar_stays() -> None:
    async def run() -> None:
        async with RowsAndPreview().run_test(size=(60, 30)) as pilot:
            preview = pilot.app.query_one(Preview)
            preview.update(Text("\n".join(f"line {i}" for i in range(40))))
            await pilot.pause()
            assert preview.show_vertical_scrollbar
            layouts = counting_layouts(pilot.app)
            for n in range(5):
                words = " ".join(f"word{n}-{i}" for i in range(60))  # wrapped at the preview's width
                preview.update(Text(words + "\nthe last line"))
                await pilot.pause()
                assert preview.plain.splitlines()[-1] == "the last line"
                preview.scroll_end(animate=False)
                await pilot.pause()
                bottom = preview.render_line(preview.scrollable_content_region.height - 1).text
                assert bottom.rstrip() == "the last line", bottom
                assert preview.virtual_size.height == len(preview.plain.splitlines())
            assert layouts == [], "the preview changed 5 times and the screen was laid out again"
            preview.update(Text("short"))
            await pilot.pause()
            assert preview.scroll_y == 0 and preview.plain == "short" and not preview.show_vertical_scrollbar

    asyncio.run(run())
