"""The passages a notebook's floor is measured on (engines/notes/floor.py), read back from the vector
cache in float32 a few thousand at a time.

Apart from semantic.py, which holds the passages as int8 rows for searching: the floor is measured on
the exact vectors, and only this reads them back for it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np


class Float32Rows:
    """Passage vectors read back from the cache in float32, a few thousand at a time: what the floor is
    measured on (as exact as before the index held int8); the int8 rows where the cache cannot give
    them back."""

    STEP = 8192

    def __init__(self, cache, keys_of: Callable[[], list[bytes]], int8_rows) -> None:
        """``keys_of``: the rows' keys, in the int8 rows' order, asked for when the rows are read."""
        self.cache, self.keys_of, self.int8_rows = cache, keys_of, int8_rows

    def __len__(self) -> int:
        return len(self.int8_rows)

    def max_dot(self, columns: np.ndarray) -> np.ndarray:
        """Per column, its largest product with a row: without a rows x columns matrix at once. The
        rows are read in the file's order (a maximum does not mind): while an index builds, its file
        is in the order texts were embedded, and the notes' order read it one row at a time."""
        if self.cache is None:
            return self.int8_rows.max_dot(columns)
        best = np.full(columns.shape[1], -np.inf, np.float32)
        keys = self.cache.file_order(self.keys_of())
        for at in range(0, len(keys), self.STEP):
            vectors = self.cache.get_many(keys[at:at + self.STEP])
            if vectors is None:
                return self.int8_rows.max_dot(columns)
            np.maximum(best, (vectors @ columns).max(axis=0), out=best)
        return best
