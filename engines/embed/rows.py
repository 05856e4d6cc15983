"""Vectors in fixed blocks that never move: the notes index grows by what became ready (AppendedRows),
and the vector cache lands what the embedder returns (Slab).

Restacking every ready note's vectors each time a batch completed some notes looked up every key of
every note (300,000 at 100,000 notes) under the index's lock, on the searching thread; appended
here, a refresh costs only the rows it adds. A block is never reallocated, so a search that took a
snapshot (``view``) reads rows that no later append touches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BLOCK_ROWS = 8192  # 12 MB of 384-dim float32: the most a half-filled block leaves unused


@dataclass(frozen=True)
class RowsView:
    """The first ``n`` rows, as they were when taken; ``len`` and ``dot`` as an array's."""

    blocks: tuple
    n: int

    def __len__(self) -> int:
        return self.n

    def dot(self, other: np.ndarray) -> np.ndarray:
        """``rows @ other`` for the first n rows (``other``: a vector or a matrix of columns)."""
        if self.n == 0:
            shape = (0,) if other.ndim == 1 else (0, other.shape[1])
            return np.zeros(shape, np.float32)
        full, rest = divmod(self.n, BLOCK_ROWS)
        parts = [block @ other for block in self.blocks[:full]]
        if rest:
            parts.append(self.blocks[full][:rest] @ other)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)


class AppendedRows:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._blocks: list[np.ndarray] = []
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def extend(self, rows: list[np.ndarray]) -> None:
        i = 0
        while i < len(rows):
            block, at = divmod(self.n, BLOCK_ROWS)
            if block == len(self._blocks):
                self._blocks.append(np.empty((BLOCK_ROWS, self.dims), np.float32))
            take = min(BLOCK_ROWS - at, len(rows) - i)
            self._blocks[block][at:at + take] = rows[i:i + take]
            self.n += take
            i += take

    def view(self) -> RowsView:
        return RowsView(tuple(self._blocks), self.n)

    def rows(self, start: int, stop: int) -> list[np.ndarray]:
        """Rows start..stop-1, each a view into its block (never written again)."""
        return [self._blocks[i // BLOCK_ROWS][i % BLOCK_ROWS] for i in range(start, stop)]


class AppendedInts:
    """A growing int64 array whose prefix a reader may hold: growth copies into a new array."""

    def __init__(self) -> None:
        self._data = np.zeros(1024, np.int64)
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def extend(self, values: list[int]) -> None:
        if self.n + len(values) > len(self._data):
            grown = np.zeros(max(2 * len(self._data), self.n + len(values)), np.int64)
            grown[:self.n] = self._data[:self.n]
            self._data = grown
        self._data[self.n:self.n + len(values)] = values
        self.n += len(values)

    def view(self) -> np.ndarray:
        return self._data[:self.n]


# A slab is 40 MB: over glibc malloc's largest mmap threshold (32 MB; the threshold rises to the size of
# any mapped block freed), so a freed slab is unmapped and leaves the process. 1.5 MB slabs stayed in
# the heap: a cold 100,000-note build kept 1,352 MB resident either way (tools/vectors_memory.py).
# np.empty does not touch the pages, so a slab's unwritten rows cost no memory.
SLAB_BYTES = 40 << 20


class Slab:
    """Rows copied into slabs that only the rows' views keep alive: once every row of a full slab is held
    elsewhere instead (VectorCache.adopt), the slab is freed and its memory returned. The embedder's
    small batch arrays, kept as they were, stayed in the heap after they were freed (a cold build's
    resident memory never fell)."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.rows_per_slab = max(1, SLAB_BYTES // (4 * dims))
        self._block: np.ndarray | None = None
        self._at = self.rows_per_slab

    def take(self, vectors: np.ndarray) -> list[np.ndarray]:
        """Copies of ``vectors``' rows, each a view into a slab."""
        rows: list[np.ndarray] = []
        i = 0
        while i < len(vectors):
            if self._at == self.rows_per_slab:
                self._block, self._at = np.empty((self.rows_per_slab, self.dims), np.float32), 0
            take = min(self.rows_per_slab - self._at, len(vectors) - i)
            block, at = self._block, self._at
            block[at:at + take] = vectors[i:i + take]
            rows.extend(block[j] for j in range(at, at + take))
            self._at += take
            i += take
        return rows
