"""Where each key stands in a list, as a dict made the first time it is asked.

The notes engine keeps several such maps over its notes: a note's id to its index, for the words and
meaning tiers, and a note's words key to its saved row, which only an edit asks for. At the
100,000-note vault each dict is 6.6 MB (tracemalloc); made on demand, one that is never asked costs
nothing, and the words and meaning tiers, given the engine's one map of its notes' ids, share it.
"""

from __future__ import annotations

import threading
from operator import attrgetter
from typing import Callable, Hashable, Sequence


class Positions:
    def __init__(self, items: Sequence, key: Callable[[object], Hashable] | None = None) -> None:
        """``items``' positions by ``key(item)`` (None: the items themselves); ``items`` is never changed."""
        self._items, self._key = items, key
        self._map: dict | None = None
        self._lock = threading.Lock()

    def _made(self) -> dict:
        if self._map is None:
            with self._lock:
                if self._map is None:
                    keys = self._items if self._key is None else map(self._key, self._items)
                    self._map = {k: i for i, k in enumerate(keys)}
        return self._map

    def get(self, key, default=None):
        return self._made().get(key, default)

    def __getitem__(self, key) -> int:
        return self._made()[key]

    def __contains__(self, key) -> bool:
        return key in self._made()

    def __len__(self) -> int:
        return len(self._made())


def note_ids(notes: Sequence) -> Positions:
    """Note id -> its index in ``notes``."""
    return Positions(notes, BY_ID)


BY_ID = attrgetter("id")
