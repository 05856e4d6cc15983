"""Every embedded note ranked by meaning: what the semantic index answers a query with.

Apart from semantic.py, which builds and holds the vectors: the fill (engine.py) and the static
stand-in (engines/notes/static_first.py, whose mixed ranking is one) read a ranking, not the index.
"""

from __future__ import annotations

import numpy as np

from engines.notes.corpus import Note
from engines.notes.positions import Positions


class Ranked:
    """Every embedded note by meaning. The full order is sorted only when asked for: the fill reads the
    head of it (``head``), and at 100,000 notes sorting all of them cost more than scoring them."""

    def __init__(self, notes: list[Note], index_of: Positions, rank: np.ndarray, best: np.ndarray) -> None:
        self.notes = notes  # the corpus the index held when it answered
        self.index_of = index_of  # note id -> its index in notes
        self.rank = rank  # per note: what orders it (-inf: not embedded yet, or left out)
        self.best = best  # per note: its best passage's cosine (-inf: not embedded yet, or left out)
        self._order: np.ndarray | None = None

    @property
    def order(self) -> np.ndarray:
        """Indices into notes, best first (equal: corpus order); only the notes whose vectors are all
        embedded."""
        if self._order is None:
            self._order = self._sorted(np.flatnonzero(self.rank > -np.inf))
        return self._order

    def head(self, n: int) -> np.ndarray:
        """The first ``n`` of ``order``, without sorting the rest: every note scoring at least the n-th
        best score (ties included) is sorted as ``order`` sorts, and cut at n, so the head is the same."""
        if self._order is not None:
            return self._order[:n]
        live = np.flatnonzero(self.rank > -np.inf)
        if n <= 0:
            return live[:0]
        if n * 4 >= len(live):
            self._order = self._sorted(live)
            return self._order[:n]
        scores = self.rank[live]
        nth = np.partition(scores, len(scores) - n)[len(scores) - n]
        return self._sorted(live[scores >= nth])[:n]

    def _sorted(self, notes: np.ndarray) -> np.ndarray:
        """``notes`` (ascending indices) best first, equal ranks in corpus order."""
        return notes[np.lexsort((notes, -self.rank[notes]))]

    def only(self, allowed: set[str]) -> "Ranked":
        """The same ranking with every note outside ``allowed`` (ids) left out."""
        keep = np.fromiter((n.id in allowed for n in self.notes), dtype=bool, count=len(self.notes))
        return Ranked(self.notes, self.index_of, np.where(keep, self.rank, -np.inf),
                      np.where(keep, self.best, -np.inf))
