"""Columns side by side, each a head over scrolling rows: the compare and evaluation screens both use it."""

from __future__ import annotations

from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static


def side_by_side(count: int):
    """``count`` columns, each a head over scrolling rows (#head-i, #rows-i): compose them with ``yield from``."""
    with Horizontal(id="columns"):
        for i in range(count):
            with Vertical(classes="column", id=f"column-{i}"):
                yield Static(classes="head", id=f"head-{i}")
                with VerticalScroll(classes="rows", id=f"scroll-{i}"):
                    yield Static(id=f"rows-{i}")
