"""The semantic index of a notes corpus: passage vectors, built incrementally, searched by cosine.

Vectors come from the vector cache when the passage text was embedded before (by any run), so an
unchanged note is never embedded twice and one edit re-embeds one note. The build (a background
thread, or inline for `olai-tui index`) is engines/embed/background_index.py's; until it is done,
searches see the notes whose passages are all embedded and say ``indexing done/of``. What is the
notes index's own: a note's passages and whole-note vector, and this notebook's floors.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from engines.embed.background_index import BackgroundIndex
from engines.embed.base import Embedder
from engines.embed.cache import text_key
from engines.embed.index_state import IndexState
from engines.notes.chunks import note_texts
from engines.notes.corpus import Note
from engines.notes.floor import NotebookFloor, ProbeFloors, unmeasured

EMBED_BATCH = 64  # passages per embed call: ~0.5 s on 2 cores, so progress moves and a stop is quick


class Ranked:
    """Every embedded note by meaning. The full order is sorted only when asked for: the fill reads the
    head of it (``head``), and at 100,000 notes sorting all of them cost more than scoring them."""

    def __init__(self, notes: list[Note], index_of: dict[str, int], rank: np.ndarray, best: np.ndarray) -> None:
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


class SemanticIndex(BackgroundIndex):
    embed_batch = EMBED_BATCH
    thread_name = "olai-notes-index"

    def __init__(self, embedder: Embedder, scope: str, cache_dir: str | None = None) -> None:
        super().__init__(embedder, scope, cache_dir)
        self._notes: list[Note] = []
        self._keys: list[list[bytes]] = []  # per note, its passage keys
        self._ready_version = -1  # the version the last complete build saw
        # _matrix: the passage vectors, note after note
        self._heads = np.zeros((0, 1), np.float32)  # one whole-note vector per ready note
        self._index_of: dict[str, int] = {}
        self._starts = np.zeros(0, np.int64)
        self._ready_notes = np.zeros(0, np.int64)
        self._probe_floors = ProbeFloors(embedder, cache_dir)
        self._floor: tuple[int, NotebookFloor] | None = None  # (matrix version, this notebook's floors)
        # How many notes have every vector, kept as batches land: counting them again (every key of
        # every note looked up) held the interpreter ~80 ms at 100,000 notes, and progress and the
        # workbench's footer asked several times a second while the index built.
        self._owners: dict[bytes, list[int]] = {}  # a key not in the cache -> the notes waiting on it
        self._waiting: list[int] = []  # per note, its keys not in the cache
        self._done = 0
        self._counted_with: object = None  # the cache the count was made against (None: not counted)
        self._notes_version = 0  # set_notes calls: which notes the keys are for
        self._matrix_of: tuple | None = None  # (notes version, notes ready, cache) the matrix was stacked for

    # -- corpus --------------------------------------------------------------------------------
    def set_notes(self, notes: Sequence[Note]) -> None:
        with self._lock:
            self._notes = list(notes)
            self._keys = []
            for note in self._notes:
                keys = []
                for text in note_texts(note):  # the whole note's vector comes last
                    key = text_key(text)
                    keys.append(key)
                    if self._cache is None or key not in self._cache:
                        self._texts.setdefault(key, text)
                self._keys.append(keys)
            # texts of notes gone before they were embedded are dropped: a flood of 2,000 short-lived
            # notes left 2,000 passages here for the life of the process
            current = {k for keys in self._keys for k in keys}
            self._texts = {k: t for k, t in self._texts.items() if k in current}
            self._version += 1
            self._notes_version += 1
            self._counted_with = None  # counted again when next asked
            if self._state.state == "ready" and self._missing():
                self._state = IndexState("idle", self._done_count(), len(self._notes))

    def state(self) -> IndexState:
        with self._lock:
            if self._state.state in ("idle", "building"):
                return IndexState(self._state.state, self._done_count(), len(self._notes))
            if self._state.state == "ready" and self._ready_version != self._version:
                # edited since the last build: ready if nothing new needs embedding
                done = self._done_count()
                return IndexState("ready" if done == len(self._notes) else "idle", done, len(self._notes))
            return self._state

    # -- building (the lifecycle is engines/embed/background_index.py's) -------------------------
    def _pending(self) -> list[bytes]:
        return self._missing()

    def _counts(self) -> tuple[int, int]:
        return self._done_count(), len(self._notes)

    def _all_keys(self) -> set[bytes]:
        return {k for keys in self._keys for k in keys}

    def _current(self) -> bool:
        return self._state.state == "ready" and self._ready_version == self._version

    _up_to_date = _current

    def _whole(self) -> None:
        self._ready_version = self._version
        self._counted_with = None  # the save may have merged another process's vectors: counted again

    def _completed(self) -> None:
        self.floor()  # measured now, while the index is fresh, not on the first query

    # -- searching -----------------------------------------------------------------------------
    def ranked(self, query_vector: np.ndarray) -> Ranked:
        """Every embedded note, best first by the mean of its best passage's cosine and its whole vector's
        (equal: corpus order), with its best passage's cosine (what the floor is measured against)."""
        with self._lock:
            self._refresh_matrix()
            matrix, heads, starts, ready = self._matrix, self._heads, self._starts, self._ready_notes
            notes, index_of = self._notes, self._index_of
        best = np.full(len(notes), -np.inf, dtype=np.float32)  # -inf: not embedded yet
        rank = np.full(len(notes), -np.inf, dtype=np.float32)
        if len(ready) == 0:
            return Ranked(notes, index_of, rank, best)
        query = query_vector.astype(np.float32)
        passage_best = np.maximum.reduceat(matrix @ query, starts)
        rank[ready] = (passage_best + heads @ query) / 2
        best[ready] = passage_best
        return Ranked(notes, index_of, rank, best)

    def floor(self) -> NotebookFloor:
        """This notebook's floors (engines/notes/floor.py), measured on the passages embedded so far;
        kept per index version and, once the index is complete, cached on disk with it."""
        with self._lock:
            self._refresh_matrix()
            version, matrix = self._matrix_version, self._matrix
            if self._floor is not None and self._floor[0] == version:
                return self._floor[1]
            complete = self._ready_version == self._version and not self._missing()
            keys = [k for i in self._ready_notes.tolist() for k in self._keys[i]]
        try:
            floor = self._probe_floors.measure(matrix, keys, save=complete)
        except Exception:  # noqa: BLE001 - a failed measurement leaves the embedder's floor, no weak guesses
            try:
                floor = unmeasured(self.embedder.info().floor)
            except Exception:  # noqa: BLE001
                floor = unmeasured(1.0)
            return floor
        with self._lock:
            if self._matrix_version == version:
                self._floor = (version, floor)
        return floor

    # -- internals -----------------------------------------------------------------------------
    def _missing(self) -> list[bytes]:
        cache = self._cache
        if cache is None:
            return [k for keys in self._keys for k in keys]
        if self._counted_with is not cache:
            self._recount()
        # the keys the count waits on, in the notes' order; one a save merged from another process's
        # file since the count is in the cache already
        return [k for k in self._owners if k not in cache]

    def _done_count(self) -> int:
        cache = self._cache
        if cache is None:
            return 0
        if self._counted_with is not cache:
            self._recount()
        return self._done

    def _recount(self) -> None:
        """Which notes wait on which keys, counted afresh against the open cache (the notes changed, the
        cache was opened, or a build ended: a save may have merged another process's vectors)."""
        cache = self._cache
        owners: dict[bytes, list[int]] = {}
        waiting = [0] * len(self._keys)
        for i, keys in enumerate(self._keys):
            for k in keys:
                if k not in cache:
                    owners.setdefault(k, []).append(i)
                    waiting[i] += 1
        self._owners, self._waiting = owners, waiting
        self._done = waiting.count(0)
        self._counted_with = cache

    def _landed(self, keys: list[bytes]) -> None:
        if self._counted_with is not self._cache:
            return  # counted against no cache yet: the next count starts afresh
        waiting = self._waiting
        for k in keys:
            for i in self._owners.pop(k, ()):
                waiting[i] -= 1
                if waiting[i] == 0:
                    self._done += 1

    def _refresh_matrix(self) -> None:
        if self._matrix_version == self._version or self._cache is None:
            return
        cache = self._cache
        ready_set = (self._notes_version, self._done_count(), id(cache))
        if ready_set == self._matrix_of:
            # Batches landed but no note got its last vector: the same notes are ready, the same rows
            # would be stacked. Early in a large build (short texts first) that is almost every batch,
            # and restacking looked up every key of 100,000 notes on each query while the index built.
            if self._floor is not None and self._floor[0] == self._matrix_version:
                self._floor = (self._version, self._floor[1])
            self._matrix_version = self._version
            return
        self._matrix_of = ready_set
        rows, heads, starts, ready = [], [], [], []
        for i, keys in enumerate(self._keys):
            vectors = [cache.get(k) for k in keys]
            if any(v is None for v in vectors):
                continue
            starts.append(len(rows))
            ready.append(i)
            rows.extend(vectors[:-1])  # the passages (title first) ...
            heads.append(vectors[-1])  # ... and the whole note's vector
        dims = cache.dims
        self._matrix = np.stack(rows).astype(np.float32, copy=False) if rows else np.zeros((0, dims), np.float32)
        self._heads = np.stack(heads).astype(np.float32, copy=False) if heads else np.zeros((0, dims), np.float32)
        self._starts = np.asarray(starts, dtype=np.int64)
        self._ready_notes = np.asarray(ready, dtype=np.int64)
        self._index_of = {note.id: i for i, note in enumerate(self._notes)}
        self._matrix_version = self._version
