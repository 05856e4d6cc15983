"""Vectors in fixed blocks that never move: the notes index grows by what became ready (AppendedRows),
and the vector cache lands what the embedder returns (Slab).

Restacking every ready note's vectors each time a batch completed some notes looked up every key of
every note (300,000 at 100,000 notes) under the index's lock, on the searching thread; appended
here, a refresh costs only the rows it adds. A block is never reallocated, so a search that took a
snapshot (``view``) reads rows that no later append touches.

The index's rows are int8, one float32 scale each (a row ~ its int8 values x its scale: symmetric,
the row's largest magnitude at 127): a quarter of float32's memory (300,000 MiniLM vectors: 116 MB,
not 461), scored by SimSIMD's int8 kernels (5 ms for 300,000 rows on the 2 cores, where numpy's
float32 product took 17 ms, measured 2026-12-03). A score is off by 0.003 at most against float32
on grown vectors, so the notes index scores its head again from the float32 vectors kept on disk
(engines/notes/semantic.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

try:  # SimSIMD: int8 dot products in SIMD kernels; numpy has none (a float32 copy per block instead)
    import simsimd
except ImportError:  # pragma: no cover - a declared dependency; the fallback keeps answers the same
    simsimd = None

BLOCK_ROWS = 8192  # 3 MB of 384-dim int8: the most a half-filled block leaves unused
# 300,000 rows: 9.8 ms on one thread, 5.0 ms on two (the design machine's cores); more were not tried
THREADS = max(1, min(2, os.cpu_count() or 1))


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 rows as (int8 rows, float32 scale per row)."""
    vectors = np.asarray(vectors, np.float32)
    peak = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors), np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    return np.rint(vectors / scale[:, None]).astype(np.int8), scale


def int8_inner(rows: np.ndarray, others: np.ndarray) -> np.ndarray:
    """``rows @ others.T`` for int8 matrices, as float32 (exact: the sums are integers)."""
    if simsimd is not None and len(rows) and len(others):
        return np.asarray(simsimd.cdist(rows, others, metric="inner", threads=THREADS), np.float32)
    return (rows.astype(np.float32) @ others.astype(np.float32).T).astype(np.float32)


@dataclass(frozen=True)
class RowsView:
    """The first ``n`` rows, as they were when taken; ``len`` and ``dot`` as an array's."""

    blocks: tuple
    scales: tuple
    n: int

    def __len__(self) -> int:
        return self.n

    def dot(self, other: np.ndarray) -> np.ndarray:
        """``rows @ other`` for the first n rows (``other``: a float32 vector, or a matrix of columns),
        scored in int8: each score within ~0.003 of float32's for unit vectors."""
        vector = other.ndim == 1
        columns = np.asarray(other, np.float32).reshape(len(other), -1)
        if self.n == 0:
            return np.zeros((0,) if vector else (0, columns.shape[1]), np.float32)
        parts = list(self._scores(columns))
        out = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return out[:, 0] if vector else out

    def max_dot(self, columns: np.ndarray) -> np.ndarray:
        """Per column, its largest product with a row, block by block: at 300,000 rows and 217 columns
        the whole product would be 260 MB."""
        best = np.full(columns.shape[1], -np.inf, np.float32)
        for scores in self._scores(np.asarray(columns, np.float32)):
            np.maximum(best, scores.max(axis=0), out=best)
        return best

    def _scores(self, columns: np.ndarray):
        """Each block's ``rows @ columns`` in turn, the columns quantized once."""
        q8, q_scale = quantize(columns.T)  # one row per query
        full, rest = divmod(self.n, BLOCK_ROWS)
        for i in range(full + (1 if rest else 0)):
            count = BLOCK_ROWS if i < full else rest
            yield int8_inner(self.blocks[i][:count], q8) * self.scales[i][:count, None] * q_scale[None, :]


class AppendedRows:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._blocks: list[np.ndarray] = []
        self._scales: list[np.ndarray] = []
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def extend(self, vectors: np.ndarray) -> None:
        """Append float32 rows (kept as int8 and a scale each)."""
        rows, scale = quantize(vectors)
        i = 0
        while i < len(rows):
            block, at = divmod(self.n, BLOCK_ROWS)
            if block == len(self._blocks):
                self._blocks.append(np.empty((BLOCK_ROWS, self.dims), np.int8))
                self._scales.append(np.empty(BLOCK_ROWS, np.float32))
            take = min(BLOCK_ROWS - at, len(rows) - i)
            self._blocks[block][at:at + take] = rows[i:i + take]
            self._scales[block][at:at + take] = scale[i:i + take]
            self.n += take
            i += take

    def view(self) -> RowsView:
        return RowsView(tuple(self._blocks), tuple(self._scales), self.n)


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
# the heap: a cold 100,000-note build kept 1,352 MB resident either way
# (engines/eval/bench/notes/checkouts/vectors_memory.py).
# np.empty does not touch the pages, so a slab's unwritten rows cost no memory.
SLAB_BYTES = 40 << 20


class Slab:
    """Rows copied into slabs that only the rows' views keep alive: once every row of a full slab has
    been saved to the cache's file (VectorCache.save drops them), the slab is freed and its memory
    returned. The embedder's small batch arrays, kept as they were, stayed in the heap after they
    were freed (a cold build's resident memory never fell)."""

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
