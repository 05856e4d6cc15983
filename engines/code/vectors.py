"""The embedding tier's index: one vector per symbol, built in the background, searched by cosine.

The build, cache, retry and cooldown are engines/embed/background_index.py's (notes and products
use the same), with one text per symbol: an edit re-embeds only the symbols whose text changed.
Until the build is done, searches see the symbols already embedded and the tier says
``indexing done/of``. What is the code index's own: the neighbourhood density below.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from engines.embed.background_index import BackgroundIndex
from engines.embed.base import Embedder
from engines.embed.cache import text_key
from engines.embed.index_state import IndexState

EMBED_BATCH = 32  # symbols per embed call: ~0.5 s on 2 cores, so progress moves and a stop is quick

# Neighbourhood density (the "hubness" correction of CSLS, Conneau et al. 2018): a symbol whose
# vector sits among many near neighbours (boilerplate, generic helpers) is close to every query and
# crowds out the specific answer. Its density, the mean cosine to its DENSITY_NEIGHBOURS nearest
# other symbols, is subtracted, times DENSITY_WEIGHT, from its cosine to the query before ranking.
# Chosen on CoSQA dev-500 only (`.venv/bin/python -m engines.eval.tuning.code_fields --part density`): MRR@10 of
# the embedding tier alone 0.530 -> 0.547 (neighbours 5, weight 0.3); neighbours 5-10 with weights
# 0.3-0.5 all scored 0.541-0.547, weight 1.0 fell to 0.475. Computed from the corpus alone, no labels.
DENSITY_NEIGHBOURS = 5
DENSITY_WEIGHT = 0.3
DENSITY_BLOCK = 256  # rows per block of the symbol-by-symbol product: 256 x 60,000 floats = 61 MB


class VectorIndex(BackgroundIndex):
    embed_batch = EMBED_BATCH
    thread_name = "olai-code-index"
    density_weight: float | None = None  # None: DENSITY_WEIGHT, read at each search (the tuning tools set it)
    density_most: int | None = None  # no density for an index of more items than this (None: any size)

    def __init__(self, embedder: Embedder, scope: str, cache_dir: str | None = None) -> None:
        super().__init__(embedder, scope, cache_dir)
        self._keys: list[bytes] = []
        self._ready_rows = np.zeros(0, np.int64)
        self._ready_density = np.zeros(0, np.float32)
        self._done_memo: tuple[object, int] = (None, 0)
        self._density: dict[bytes, float] = {}  # text key -> neighbourhood density, once the index is whole

    def set_texts(self, texts: Sequence[str]) -> None:
        """The items to index, in order; positions returned by ``scores`` follow this order."""
        with self._lock:
            self._keys = [text_key(t) for t in texts]
            current = set(self._keys)
            self._density = {k: v for k, v in self._density.items() if k in current}
            self._texts = {k: t for k, t in zip(self._keys, texts) if self._cache is None or k not in self._cache}
            self._version += 1
            if self._state.state == "ready" and self._texts:
                self._state = IndexState("idle", self._done(), len(self._keys))

    def state(self) -> IndexState:
        with self._lock:
            if self._state.state in ("unavailable", "failed"):
                return self._state
            done, of = self._done(), len(self._keys)
            if done == of and self._cache is not None:
                return IndexState("ready", done, of)
            building = self._state.state == "building"
            return IndexState("building" if building else "idle", done, of, self._state.reason if building else None)

    # -- building (the lifecycle is engines/embed/background_index.py's) -------------------------
    def _counts(self) -> tuple[int, int]:
        return self._done(), len(self._keys)

    def _all_keys(self) -> set[bytes]:
        return set(self._keys)

    def _completed(self) -> None:
        self._measure_density()

    # -- searching -----------------------------------------------------------------------------
    def scores(self, query_vector: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions of the items embedded so far, their cosine to the query, their ranking score).

        The ranking score is the cosine less DENSITY_WEIGHT x the item's neighbourhood density (0
        until the whole index is embedded, so a partial index ranks by plain cosine)."""
        with self._lock:
            self._refresh_matrix()
            matrix, rows, density = self._matrix, self._ready_rows, self._ready_density
        if len(rows) == 0:
            empty = np.zeros(0, np.float32)
            return rows, empty, empty
        cosines = matrix @ np.asarray(query_vector, dtype=np.float32)
        weight = DENSITY_WEIGHT if self.density_weight is None else self.density_weight
        return rows, cosines, cosines - weight * density if weight else cosines

    def whole(self) -> tuple[np.ndarray, np.ndarray]:
        """Every item's vector and neighbourhood density, in item order (a publish to Milvus); the index
        must be ready (``build`` first)."""
        with self._lock:
            self._refresh_matrix()
            rows, matrix, keys = self._ready_rows, self._matrix, self._keys
            if len(rows) != len(keys):
                raise RuntimeError(f"the index holds {len(rows)} of {len(keys)} vectors: build it first")
            whole = all(k in self._density for k in keys)  # as ``scores``: densities only when all are known
            density = np.asarray([self._density[k] if whole else 0.0 for k in keys], np.float32)
        ordered = np.empty_like(matrix)
        ordered[rows] = matrix
        return ordered, density

    # -- internals -----------------------------------------------------------------------------
    def _done(self) -> int:
        cache = self._cache
        if cache is None:
            return 0
        if self._done_memo[0] != (self._version, id(cache)):  # an O(symbols) count: once per change
            self._done_memo = ((self._version, id(cache)), sum(1 for k in self._keys if k in cache))
        return self._done_memo[1]

    def _refresh_matrix(self) -> None:
        if self._matrix_version == self._version or self._cache is None:
            return
        cache = self._cache
        whole = all(k in self._density for k in self._keys)  # densities mix only when all are known
        rows = [i for i, key in enumerate(self._keys) if key in cache]
        density = [self._density.get(self._keys[i], 0.0) if whole else 0.0 for i in rows]
        matrix = cache.get_many([self._keys[i] for i in rows]) if rows else None  # one read, not one per symbol
        if matrix is None:  # none embedded yet (or the cache's file was lost while open: embedded again)
            rows, density, matrix = [], [], np.zeros((0, cache.dims), np.float32)
        self._matrix = matrix
        self._ready_rows = np.asarray(rows, dtype=np.int64)
        self._ready_density = np.asarray(density, dtype=np.float32)
        self._matrix_version = self._version

    def _measure_density(self) -> None:
        """Densities of the items that lack one, against the whole index (an edit: only the edited ones).

        An unchanged item keeps its density after an edit elsewhere: one symbol entering or leaving
        its five nearest neighbours moves it by a fifth of a cosine difference at most."""
        with self._lock:
            self._refresh_matrix()
            matrix, rows, keys = self._matrix, self._ready_rows, self._keys
            if len(rows) < 2 or (self.density_most is not None and len(rows) > self.density_most):
                return
            todo = [j for j, i in enumerate(rows) if keys[i] not in self._density]
        if not todo:
            return
        k = min(DENSITY_NEIGHBOURS, len(rows) - 1)
        found: dict[bytes, float] = {}
        for start in range(0, len(todo), DENSITY_BLOCK):
            if self._stop.is_set():
                return
            block = np.asarray(todo[start:start + DENSITY_BLOCK])
            sims = matrix[block] @ matrix.T
            sims[np.arange(len(block)), block] = -np.inf  # not its own neighbour
            nearest = np.partition(sims, -k, axis=1)[:, -k:]
            for j, value in zip(block.tolist(), nearest.mean(axis=1).tolist()):
                found[keys[rows[j]]] = float(value)
        with self._lock:
            self._density.update(found)
            self._version += 1
