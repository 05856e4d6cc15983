"""The semantic index of a notes corpus: passage vectors, built incrementally, searched by cosine.

Vectors come from the vector cache when the passage text was embedded before (by any run), so an
unchanged note is never embedded twice and one edit re-embeds one note. The index builds in a
background thread (or inline for `olai-tui index`); until it is done, searches see the notes whose
passages are all embedded and say ``indexing done/of``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from engines.embed.base import Embedder, EmbedderUnavailable
from engines.embed.cache import VectorCache, text_key
from engines.embed.index_state import IndexState, SettlesWithCooldown
from engines.embed.retry import Cooldown, RetryPolicy
from engines.notes.chunks import note_texts
from engines.notes.corpus import Note
from engines.notes.floor import NotebookFloor, ProbeFloors, unmeasured

EMBED_BATCH = 64  # passages per embed call: ~0.5 s on 2 cores, so progress moves and a stop is quick
SAVE_EVERY_S = 20.0  # a long first build keeps its progress if it is stopped




@dataclass
class Ranked:
    notes: list[Note]  # the corpus the index held when it answered
    index_of: dict[str, int]  # note id -> its index in notes
    order: np.ndarray  # indices into notes, best first: only the notes whose vectors are all embedded
    best: np.ndarray  # per note: its best passage's cosine (-inf: not embedded yet)

    def only(self, allowed: set[str]) -> "Ranked":
        """The same ranking with every note outside ``allowed`` (ids) left out."""
        keep = np.fromiter((n.id in allowed for n in self.notes), dtype=bool, count=len(self.notes))
        return Ranked(self.notes, self.index_of, self.order[keep[self.order]], np.where(keep, self.best, -np.inf))


class SemanticIndex(SettlesWithCooldown):
    def __init__(self, embedder: Embedder, scope: str, cache_dir: str | None = None) -> None:
        self.embedder = embedder
        self.scope = scope
        self.cache_dir = cache_dir
        self._cache: VectorCache | None = None
        self._lock = threading.RLock()
        self._notes: list[Note] = []
        self._keys: list[list[bytes]] = []  # per note, its passage keys
        self._texts: dict[bytes, str] = {}  # passage texts not yet embedded
        self._version = 0
        self._ready_version = -1  # the version the last complete build saw
        self._matrix_version = -1
        self._matrix = np.zeros((0, 1), np.float32)  # passage vectors, note after note
        self._heads = np.zeros((0, 1), np.float32)  # one whole-note vector per ready note
        self._index_of: dict[str, int] = {}
        self._starts = np.zeros(0, np.int64)
        self._ready_notes = np.zeros(0, np.int64)
        self._state = IndexState("idle", 0, 0)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.embedded_texts: list[str] = []  # passages this process embedded (the rest came from the cache)
        # a failed batch is retried with backoff; a failed index tries again once per cooldown (retry.py)
        self.retry = RetryPolicy()
        self._cooldown = Cooldown()
        self._probe_floors = ProbeFloors(embedder, cache_dir)
        self._floor: tuple[int, NotebookFloor] | None = None  # (matrix version, this notebook's floors)

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

    # -- building ------------------------------------------------------------------------------
    def build(self, progress: Callable[[int, int], None] | None = None) -> IndexState:
        """Embed every passage not in the cache; blocking. Safe to call again after edits."""
        with self._lock:
            if self._state.state == "ready" and self._ready_version == self._version:
                return self._state  # nothing changed since the last build: no scan, no save
            if self._cooling_down():
                return self._state  # failed a moment ago: not again on every keystroke
        try:
            cache = self._open_cache()
        except EmbedderUnavailable as exc:
            return self._settle(IndexState("unavailable", 0, len(self._notes), exc.reason, exc.enable))
        except Exception as exc:  # noqa: BLE001 - a broken model must never take the exact tier down
            return self._settle(IndexState("failed", 0, len(self._notes), f"embedder failed: {exc}"))
        with self._lock:
            # texts whose vectors the cache already holds need not be kept
            for key in [k for k in self._texts if k in cache]:
                del self._texts[key]
            self._state = IndexState("building", self._done_count(), len(self._notes))
        failed = self._embed_pending(cache, self._missing, lambda: (self._done_count(), len(self._notes)),
                                     EMBED_BATCH, SAVE_EVERY_S, progress)
        if failed is not None:
            return failed
        with self._lock:
            if self._missing():  # stopped early
                self._state = IndexState("idle", self._done_count(), len(self._notes))
                cache.save()
                return self._state
            keep = {k for keys in self._keys for k in keys}
        cache.save(keep=keep)
        with self._lock:
            self._ready_version = self._version
        state = self._settle(IndexState("ready", len(self._notes), len(self._notes)))
        self.floor()  # measured now, while the index is fresh, not on the first query
        return state

    def start(self) -> None:
        """Build in a background thread (again, if edits arrived since the last build)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self._cooling_down():
                return
            if self._state.state == "ready" and self._ready_version == self._version:
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="olai-notes-index", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            state = self.build()
            with self._lock:
                if state.state != "ready" or not self._missing():
                    return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def notices(self) -> list[str]:
        return list(self._cache.notices) if self._cache is not None else []

    # -- searching -----------------------------------------------------------------------------
    def ranked(self, query_vector: np.ndarray) -> Ranked:
        """Every embedded note, best first by the mean of its best passage's cosine and its whole vector's
        (equal: corpus order), with its best passage's cosine (what the floor is measured against)."""
        with self._lock:
            self._refresh_matrix()
            matrix, heads, starts, ready = self._matrix, self._heads, self._starts, self._ready_notes
            notes, index_of = self._notes, self._index_of
        best = np.full(len(notes), -np.inf, dtype=np.float32)  # -inf: not embedded yet
        if len(ready) == 0:
            return Ranked(notes, index_of, np.zeros(0, np.int64), best)
        query = query_vector.astype(np.float32)
        passage_best = np.maximum.reduceat(matrix @ query, starts)
        rank = (passage_best + heads @ query) / 2
        best[ready] = passage_best
        return Ranked(notes, index_of, ready[np.lexsort((ready, -rank))], best)

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
    def _open_cache(self) -> VectorCache:
        if self._cache is None:
            info = self.embedder.info()
            self._cache = VectorCache(info.model_id, info.dims, scope=self.scope, directory=self.cache_dir)
        return self._cache

    def _missing(self) -> list[bytes]:
        cache = self._cache
        if cache is None:
            return [k for keys in self._keys for k in keys]
        seen: set[bytes] = set()
        out = []
        for keys in self._keys:
            for k in keys:
                if k not in cache and k not in seen:
                    seen.add(k)
                    out.append(k)
        return out

    def _done_count(self) -> int:
        cache = self._cache
        if cache is None:
            return 0
        return sum(1 for keys in self._keys if all(k in cache for k in keys))

    def _refresh_matrix(self) -> None:
        if self._matrix_version == self._version or self._cache is None:
            return
        cache = self._cache
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
