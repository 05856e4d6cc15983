"""What a pane shows of a row, beyond the engine's envelope: the row's cells, the place to open, and
an engine opened lazily. The one adapter over any engine is olai_tui/ui/generic_adapter.py.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generic, TypeVar

from engines.answer import Hit
from olai_tui.ui.text import words_pattern

@dataclass(frozen=True)
class Target:
    """Where a row lives on disk, to open in $EDITOR (at ``line`` when known) or to copy."""

    path: str
    line: int | None = None
    page: int | None = None  # a PDF hit's page: opened in the viewer there (olai_tui/ui/viewer.py)


@dataclass(frozen=True)
class RowView:
    """What a row's cells say: the title (and a dim detail after it), where, and the tier cell."""

    title: str
    where: str
    tier: str
    detail: str = ""
    tier_style: str = ""
    label: str = ""  # a judge's label (products: exact, variant, standin), in a column of its own
    label_style: str = ""
    moved: str = ""  # ↑ or ↓: meaning moved the row among its tier's rows (olai_tui/places.py), said beside the tier


def plain_row(hit: Hit) -> RowView:
    return RowView(hit.title or hit.id, hit.where, hit.tier, tier_style="italic" if hit.marker else "")


E = TypeVar("E")


class Lazy(Generic[E]):
    """An engine opened on first use (its pane first shown, or its first query), once, from any thread.

    The workbench opens with the notes pane; the other engines' corpora are read only when wanted,
    so startup stays one corpus long. ``made`` says whether it exists yet (without making it).
    """

    def __init__(self, make: Callable[[], E] | E) -> None:
        self._make = make if callable(make) and not hasattr(make, "search") else None
        self._value: E | None = None if self._make is not None else make
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        return self._value is not None

    def get(self) -> E:
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._make()  # raises (a bad corpus): the next use tries again
        return self._value


def first_line_with(path: str, words: list[str]) -> int | None:
    """The first line of the file holding one of the words (1-based), to open the editor there."""
    pattern = words_pattern(words)
    if pattern is None or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for number, line in enumerate(fh, start=1):
                if pattern.search(line):
                    return number
    except OSError:
        return None
    return None


def short_path(path: Path) -> str:
    """A corpus path as people say it: relative to the working folder when inside it, else with ~."""
    if isinstance(path, str):  # a products catalogue kept in a database: its URL, any password hidden
        from engines.locations import shown_url

        return shown_url(path)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        home = Path.home()
        try:
            return "~/" + str(path.resolve().relative_to(home))
        except ValueError:
            return str(path)
