"""The highlighted row's preview: a renderable laid out into lines once an update, scrolled as lines.

A Static of ``height: auto`` inside a VerticalScroll lays the whole screen out on every update (its
height may change), and lays its renderable out twice, once to measure it and once to draw it: on the
100,000-note vault, a Markdown note every first batch, those were a fifth of the interface's thread
while the meaning index built (docs/bench-workbench.md). Here an update renders the renderable once at
the preview's width and keeps the lines; a change of its length moves the scrollbar, and the screen is
laid out again only when the scrollbar comes or goes (a renderable taller than the preview is laid
out at the width the scrollbar leaves, as a Static in a VerticalScroll would be).
"""

from __future__ import annotations

from rich.console import RenderableType
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

    def update(self, renderable: RenderableType) -> None:
        """Show ``renderable`` from its first line."""
        self.renderable = renderable
        self._laid_out_for = None
        self.scroll_to(y=0, animate=False)
        if self.is_mounted and self.content_region.width > 0:
            self._lay_out()
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
        self._laid_out_for = (region.size, style)
        lines = self._lines_at(region.width, style)
        bar = self.styles.scrollbar_size_vertical
        if len(lines) > region.height and bar and region.width > bar:
            lines = self._lines_at(region.width - bar, style)  # taller than the preview: beside a scrollbar
        self._lines = lines
        self.virtual_size = Size(region.width, len(lines))
        self._scroll_update(self.virtual_size)  # the scrollbar comes, goes or moves

    def _lines_at(self, width: int, style) -> list[Strip]:
        options = self.app.console_options.update_width(width)
        lines = [Strip(line) for line in self.app.console.render_lines(self.renderable, options, style=style, pad=False)]
        if lines and not lines[-1].cell_length:
            lines.pop()  # the renderable's closing newline, which a Static does not show as a line either
        return lines

    def render_lines(self, crop: Region) -> list[Strip]:
        self._lay_out()  # a theme or a focus changed the style since: laid out again, once
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        if index < len(self._lines):
            return self._lines[index]
        return Strip.blank(self.scrollable_content_region.width, self._laid_out_for[1] if self._laid_out_for
                           else self.rich_style)
