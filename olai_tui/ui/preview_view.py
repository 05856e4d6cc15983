"""The highlighted row's preview: a renderable laid out into lines once an update, scrolled as lines.

A Static of ``height: auto`` inside a VerticalScroll lays the whole screen out on every update (its
height may change), and lays its renderable out twice, once to measure it and once to draw it: on the
100,000-note vault, a Markdown note every first batch, those were a fifth of the interface's thread
while the meaning index built (docs/bench-workbench.md). Here an update renders the renderable once at
the preview's width and keeps the lines; a change of its length moves the scrollbar, and the screen is
laid out again only when the scrollbar comes or goes (a renderable taller than the preview is laid
out at the width the scrollbar leaves, as a Static in a VerticalScroll would be).

``show`` lays a row's preview out on a thread, with a console of the preview's own (Rich's
``render_lines`` holds its console's lock throughout): a note's Markdown or a file's highlighted
source took 5-70 ms of the interface's thread at the vault, and was its longest stall.
"""

from __future__ import annotations

import asyncio
import io

from rich.console import Console, ConsoleOptions, RenderableType
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip


class Preview(ScrollView):
    DEFAULT_CSS = """
    Preview { overflow-x: hidden; overflow-y: auto; }
    """

    virtual_size = Reactive(Size(0, 0), layout=False)

    def __init__(self, renderable: RenderableType = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.renderable: RenderableType = renderable
        self._lines: list[Strip] = []
        self._laid_out_for: tuple | None = None  # (size, style) the lines were laid out for
        self._own_console: Console | None = None  # the one `show` lays out with, off the interface's thread

    def update(self, renderable: RenderableType) -> None:
        """Show ``renderable`` from its first line, laid out here (a few lines of text)."""
        self.renderable = renderable
        self._laid_out_for = None
        self.scroll_to(y=0, animate=False)
        if self.is_mounted and self.content_region.width > 0:
            self._lay_out()
        self.refresh()

    async def show(self, renderable: RenderableType) -> None:
        """Show ``renderable`` from its first line, laid out on a thread (a note, a file's source)."""
        region, style = self.content_region, self.rich_style
        if region.width <= 0:
            self.update(renderable)
            return
        console = self._own_console = self._own_console or Console(
            color_system=self.app.console.color_system, file=io.StringIO(), highlight=False, emoji=False,
            legacy_windows=False, force_terminal=True, safe_box=False, soft_wrap=False)
        lines = await asyncio.to_thread(laid_out, console, self.app.console_options, renderable, region.size,
                                        style, self.styles.scrollbar_size_vertical)
        self.renderable = renderable
        self._install(lines, (region.size, style))
        self.scroll_to(y=0, animate=False)
        self.refresh()

    @property
    def plain(self) -> str:
        """What the preview shows, as text (its lines, right-trimmed)."""
        self._lay_out()
        return "\n".join(line.text.rstrip() for line in self._lines)

    def on_resize(self, event: events.Resize) -> None:
        self._lay_out()

    def _lay_out(self) -> None:
        region = self.content_region  # the scrollbar's gutter not taken off: it may be about to go
        style = self.rich_style
        if (region.size, style) == self._laid_out_for or region.width <= 0:
            return
        self._install(laid_out(self.app.console, self.app.console_options, self.renderable, region.size, style,
                               self.styles.scrollbar_size_vertical), (region.size, style))

    def _install(self, lines: list[Strip], laid_out_for: tuple) -> None:
        self._lines, self._laid_out_for = lines, laid_out_for
        self.virtual_size = Size(laid_out_for[0].width, len(lines))
        self._scroll_update(self.virtual_size)  # the scrollbar comes, goes or moves

    def render_lines(self, crop: Region) -> list[Strip]:
        self._lay_out()  # a theme, a focus or a size changed since: laid out again, once
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        if index < len(self._lines):
            return self._lines[index]
        return Strip.blank(self.scrollable_content_region.width, self._laid_out_for[1] if self._laid_out_for
                           else self.rich_style)


def laid_out(console: Console, options: ConsoleOptions, renderable: RenderableType, size: Size, style: Style,
             bar: int) -> list[Strip]:
    """``renderable``'s lines in a preview of ``size``: at its width, or beside a scrollbar ``bar`` wide
    when they are more than it is tall."""
    lines = _lines_at(console, options, renderable, size.width, style)
    if len(lines) > size.height and bar and size.width > bar:
        lines = _lines_at(console, options, renderable, size.width - bar, style)
    return lines


def _lines_at(console: Console, options: ConsoleOptions, renderable: RenderableType, width: int,
              style: Style) -> list[Strip]:
    rendered = console.render_lines(renderable, options.update_width(width), style=style, pad=False)
    lines = [Strip(line) for line in rendered]
    if lines and not lines[-1].cell_length:
        lines.pop()  # the renderable's closing newline, which a Static does not show as a line either
    return lines
