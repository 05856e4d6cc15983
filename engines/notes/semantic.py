"""The semantic index of a notes corpus: passage vectors, built incrementally, searched by cosine.

Vectors come from the vector cache when the passage text was embedded before (by any run), so an
unchanged note is never embedded twice and one edit re-embeds one note. The build (a background
thread, or inline for `olai-tui index`) is engines/embed/background_index.py's; until it is done,
searches see the notes whose passages are all embedded and say ``indexing done/of``. What is the
notes index's own: a note's passages and whole-note vector, and this notebook's floors.
"""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from engines.embed.background_index import BackgroundIndex
from engines.embed.base import Embedder
from engines.embed.cache import text_key
from engines.embed.digests import DIGEST
from engines.embed.index_state import IndexState
from engines.embed.rows import AppendedInts, AppendedRows
from engines.memory import give_back_free_memory
from engines.notes.bodies import bodies_of
from engines.notes.chunks import note_texts
from engines.notes.corpus import Note, held_list
from engines.notes.floor import NotebookFloor, ProbeFloors, unmeasured
from engines.notes.first_notes import FirstNotes
from engines.notes.floor_rows import Float32Rows
from engines.notes.meaning_ranking import Ranked
from engines.notes.note_keys import NoteKeys
from engines.notes.positions import Positions, note_ids

EMBED_BATCH = 64  # passages per embed call: ~0.5 s on 2 cores, so progress moves and a stop is quick
# While the index builds, its floor is measured again once the passages grew by a quarter, not on every
# batch: 217 probes against every passage each query cost ~25 GFLOP at 300,000 passages.
REMEASURE_GROWTH = 1.25
# The index holds int8 rows (engines/embed/rows.py); the notes at the head of each ranking are scored
# again from the float32 vectors the cache keeps on disk, so the head is exact. On 100,000 grown notes
# (Vaswani's 93 queries) int8 alone kept 0.980 of the exact top 10; scoring the first 20 again kept
# all of them (`python -m engines.eval.bench.notes.vectors`). 128 covers the fill's head of 100; a notebook
# of 128 notes or fewer is scored wholly in float32, as before. Reading back 256 notes' rows took 8 ms
# of a 17 ms leg (one read per note: each note's rows are together in the file), 128 half of that.
RESCORED = 128
KEYS_AT_ONCE = 4096  # notes whose texts are keyed, and looked up in the cache, at a time
APPEND_NOTES = 4096  # notes read back from the cache per step: ~12,000 float32 vectors (18 MB) at most


class SemanticIndex(FirstNotes, BackgroundIndex):
    embed_batch = EMBED_BATCH
    thread_name = "olai-notes-index"
    saves_in_order = True  # the cache file in the notes' order: a warm open reads it front to back

    def __init__(self, embedder: Embedder, scope: str, cache_dir: str | None = None) -> None:
        super().__init__(embedder, scope, cache_dir)
        self._notes: list[Note] = []
        self._ids = note_ids(self._notes)
        self._keys = NoteKeys()  # per note, its texts' keys (the whole note's last)
        self._ready_version = -1  # the version the last complete build saw
        # The ready notes' vectors, note after note, in the order they became ready (rows.py): their
        # passages (with each note's first row in _starts), and one whole-note vector per note.
        self._passages = AppendedRows(1)
        self._heads = AppendedRows(1)
        self._starts = AppendedInts()
        self._ready_notes = AppendedInts()  # the note of each segment
        self._newly_ready: list[int] = []  # notes whose last vector landed since the last refresh
        self._index_of: Positions = self._ids
        self._probe_floors = ProbeFloors(embedder, cache_dir)
        self._floor: tuple[int, NotebookFloor] | None = None  # (matrix version, this notebook's floors)
        self._floor_rows = 0  # the passages the floor was measured on
        # One floor measured at a time: when a build completes, its thread (_completed) and the first
        # search both asked for the new version's floor, and each sorted the vault's keys (0.2 s) and
        # read or measured it; the second now waits for the first's and takes it.
        self._measuring = threading.Lock()
        # How many notes have every vector, kept as batches land: counting them again (every key of
        # every note looked up) held the interpreter ~80 ms at 100,000 notes, and progress and the
        # workbench's footer asked several times a second while the index built.
        # A key not in the cache -> the note waiting on it, or a tuple of the notes when several do. A
        # list a key was 323,648 lists on the cold vault, and every full collection of Python's
        # collector walked them all: the interface stalled 130-480 ms each time (bench_app with
        # gc.callbacks, 2026-12-03 14:35). Ints and tuples of ints the collector stops tracking.
        self._owners: dict[bytes, int | tuple[int, ...]] = {}
        self._waiting: list[int] = []  # per note, its keys not in the cache
        self._done = 0
        self._counted_with: object = None  # (cache, its generation) the count was made against (None: not counted)
        self._notes_version = 0  # set_notes calls: which notes the keys are for
        self._matrix_of: tuple | None = None  # (notes version, cache) the vectors were stacked for
        self._restacked = False  # every ready note stacked again since the last search

    # -- corpus --------------------------------------------------------------------------------
    def set_notes(self, notes: Sequence[Note], ids: Positions | None = None) -> None:
        """``ids``: these notes' id -> index map, where the engine shares one between its tiers."""
        with self._lock:
            self._notes = held_list(notes)
            self._ids = ids if ids is not None else note_ids(self._notes)
            kept, cache, parts = self._texts, self._cache, []
            for at in range(0, len(self._notes), KEYS_AT_ONCE):
                part = self._notes[at:at + KEYS_AT_ONCE]
                texts = [note_texts(note, body) for note, body in zip(part, bodies_of(part))]  # whole note's last
                keys = [[text_key(text) for text in of_note] for of_note in texts]
                parts.append(NoteKeys(keys))
                # before the cache is open, no text is kept: the count made when it opens keeps those its
                # cache lacks (_recount). Keeping every text until then held 331,000 passages at once on a
                # warm 100,000-note open, and the memory stayed taken. Here, those the cache lacks are kept.
                if cache is not None:
                    flat_keys = [k for of_note in keys for k in of_note]
                    flat_texts = [t for of_note in texts for t in of_note]
                    for key, text, held in zip(flat_keys, flat_texts, cache.held(flat_keys)):
                        if not held:
                            kept.setdefault(key, text)
            # texts of notes gone before they were embedded are dropped: a flood of 2,000 short-lived
            # notes left 2,000 passages here for the life of the process
            self._keys = NoteKeys.joined(parts)
            if self._texts:
                current = set(self._keys.all())
                self._texts = {k: t for k, t in self._texts.items() if k in current}
            del parts
            give_back_free_memory()  # every note's texts were cut and keyed (the vault's figure moved < 2 MB)
            self._version += 1
            self._notes_version += 1
            self._counted_with = None  # counted again when next asked
            if self._state.state == "ready" and self._missing():
                self._state = IndexState("idle", self._done_count(), len(self._notes))

    def notes_of(self) -> list[Note]:
        """The notes the index holds now (the list itself: ``is`` tells whether two indexes hold the same)."""
        with self._lock:
            return self._notes

    def share_notes(self, other: "SemanticIndex") -> None:
        """Take ``other``'s notes, their texts' keys and the texts it still holds: another model's index of
        the same notes keys the same texts (a key is the text's sha256), so nothing is cut or hashed again.
        Keyed on its own, the static index of the 100,000-note vault took 7 s before its first batch."""
        with other._lock:
            notes, ids, keys, texts = other._notes, other._ids, other._keys, dict(other._texts)
        with self._lock:
            self._notes, self._ids, self._keys = notes, ids, keys
            self._texts = texts  # the rest a count finds missing is cut from the notes then (_recount)
            self._version += 1
            self._notes_version += 1
            self._counted_with = None
            if self._state.state == "ready" and self._missing():
                self._state = IndexState("idle", self._done_count(), len(self._notes))

    def state(self) -> IndexState:
        with self._lock:
            if self._state.state in ("idle", "building"):  # the reason: another process builds it
                return IndexState(self._state.state, self._done_count(), len(self._notes), self._state.reason)
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

    def _all_keys(self) -> list[bytes]:
        return list(dict.fromkeys(self._keys.all()))

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
            passages, heads = self._passages.view(), self._heads.view()
            starts, ready = self._starts.view(), self._ready_notes.view()
            notes, index_of, keys_of, cache = self._notes, self._index_of, self._keys, self._cache
        best = np.full(len(notes), -np.inf, dtype=np.float32)  # -inf: not embedded yet
        rank = np.full(len(notes), -np.inf, dtype=np.float32)
        if len(ready) == 0:
            return Ranked(notes, index_of, rank, best)
        query = query_vector.astype(np.float32)
        passage_best = np.maximum.reduceat(passages.dot(query), starts)
        rank[ready] = (passage_best + heads.dot(query)) / 2
        best[ready] = passage_best
        _rescore(cache, keys_of, ready, rank, best, query)
        if self._restacked:  # what the restack freed goes back
            self._restacked = False
            give_back_free_memory()
        return Ranked(notes, index_of, rank, best)

    def floor(self) -> NotebookFloor:
        """This notebook's floors (engines/notes/floor.py), measured on the passages embedded so far;
        kept per index version and, once the index is complete, cached on disk with it."""
        with self._measuring:
            return self._floor_of_now()

    def _floor_of_now(self) -> NotebookFloor:
        with self._lock:
            self._refresh_matrix()
            version, passages = self._matrix_version, self._passages.view()
            if self._floor is not None and self._floor[0] == version:
                return self._floor[1]
            complete = self._ready_version == self._version and not self._missing()
            if not complete and self._floor is not None and len(passages) < self._floor_rows * REMEASURE_GROWTH:
                return self._floor[1]  # still building: measured again once the passages grew by a quarter
            ready = self._ready_notes.view().tolist()
            keys = self._keys.distinct_sorted() if complete else None  # complete: every note is ready
            note_keys = self._keys
            # the passages' keys laid out only if the floor is measured, not read back from its cache: 331,000
            # bytes objects at the vault, freed a moment later and kept by the heap (~60 MB resident)
            exact = Float32Rows(self._cache, lambda: note_rows(note_keys, ready)[0], passages)
        try:
            floor = self._probe_floors.measure(exact, keys, save=complete)
        except Exception:  # noqa: BLE001 - a failed measurement leaves the embedder's floor, no weak guesses
            try:
                floor = unmeasured(self.embedder.info().floor)
            except Exception:  # noqa: BLE001
                floor = unmeasured(1.0)
            return floor
        with self._lock:
            if self._matrix_version == version:
                self._floor, self._floor_rows = (version, floor), len(passages)
        # what the count, the key and the measure freed, once per index version (the searching thread
        # may get here first, after the builder's own trim); before this one, a trim after the vault's
        # first answers still gave back ~25 MB
        give_back_free_memory()
        return floor

    # -- internals -----------------------------------------------------------------------------
    def _missing(self) -> list[bytes]:
        cache = self._cache
        if cache is None:
            return self._keys.all()
        if self._counted_with != (cache, cache.generation):
            self._recount()
        # the keys the count waits on, in the notes' order; one a save merged from another process's
        # file since the count is in the cache already
        waited = list(self._owners)
        return [k for k, held in zip(waited, cache.held(waited)) if not held]

    def _done_count(self) -> int:
        cache = self._cache
        if cache is None:
            return 0
        if self._counted_with != (cache, cache.generation):
            self._recount()
        return self._done

    def _recount(self) -> None:
        """Which notes wait on which keys, counted afresh against the open cache (the notes changed, the
        cache was opened, or a build ended: a save may have merged another process's vectors). In numpy
        over the keys as one bytes object: a bytes object and a check per key (331,000 at the vault)
        took ~1 s and left ~40 MB of freed objects behind."""
        cache, note_keys = self._cache, self._keys
        joined = note_keys.as_bytes()
        held = cache.held_joined(joined)
        bounds = note_keys.bounds()
        missing = np.flatnonzero(~held)
        owner = np.searchsorted(bounds, missing, side="right") - 1  # the note each missing key is of
        waiting = np.bincount(owner, minlength=len(note_keys)).tolist()
        owners: dict[bytes, int | tuple[int, ...]] = {}
        texts = self._texts
        lacking = set()
        for at, i in zip(missing.tolist(), owner.tolist()):
            key = joined[at * DIGEST:(at + 1) * DIGEST]
            was = owners.get(key)
            owners[key] = i if was is None else (was, i) if was.__class__ is int else (*was, i)
            if key not in texts:
                lacking.add(i)
        # the notes came before the cache opened, or their vectors were lost from it since: their texts
        # are kept for the build, as set_notes keyed them
        for i in sorted(lacking):
            first = int(bounds[i])
            for j, (key, text) in enumerate(zip(note_keys[i], note_texts(self._notes[i]))):
                if not held[first + j]:
                    texts.setdefault(key, text)
        self._owners, self._waiting = owners, waiting
        self._done = waiting.count(0)
        self._counted_with = (cache, cache.generation)
        self._newly_ready = []  # counted afresh: the matrix is checked against the count instead

    def _landed(self, keys: list[bytes]) -> None:
        if self._counted_with != (self._cache, self._cache.generation):
            return  # counted against no cache yet: the next count starts afresh
        waiting = self._waiting
        for k in keys:
            owned = self._owners.pop(k, ())
            for i in (owned,) if owned.__class__ is int else owned:
                waiting[i] -= 1
                if waiting[i] == 0:
                    self._done += 1
                    self._newly_ready.append(i)

    def _refresh_matrix(self) -> None:
        """The ready notes' vectors as a search reads them: the notes that became ready since the last
        refresh appended (a batch landed), or every ready note stacked again (the notes changed, the
        cache was opened, or a count found notes ready that no batch of this process completed)."""
        if self._matrix_version == self._version or self._cache is None:
            return
        cache = self._cache
        done = self._done_count()  # counts again when the notes or the cache changed
        fresh = self._newly_ready
        self._newly_ready = []
        if self._matrix_of == (self._notes_version, id(cache)) and len(self._ready_notes) + len(fresh) == done:
            if self._append(cache, sorted(fresh)):
                if not fresh and self._floor is not None and self._floor[0] == self._matrix_version:
                    self._floor = (self._version, self._floor[1])  # the same notes: the same floor
                self._matrix_version = self._version
                return
        self._matrix_of = (self._notes_version, id(cache))
        self._passages, self._heads = AppendedRows(cache.dims), AppendedRows(cache.dims)
        self._starts, self._ready_notes = AppendedInts(), AppendedInts()
        self._floor_rows = 0  # other notes: the floor is measured on them afresh
        if not self._append(cache, [i for i, waiting in enumerate(self._waiting) if waiting == 0]):
            # the cache lost vectors it held (its file unreadable while open; said once): counted again
            # and, the index no longer current, embedded again by the next build
            self._counted_with = None
            self._version += 1
        self._index_of = self._ids
        self._matrix_version = self._version
        self._restacked = True  # the vectors came through float32 a few thousand notes at a time

    def _append(self, cache, notes: list[int]) -> bool:
        """Append these notes' vectors (passages, title first, then the whole note's), a few thousand
        notes at a time; False when one of them is not in the cache (dropped since: the caller stacks
        again), the notes before it appended."""
        for at in range(0, len(notes), APPEND_NOTES):
            part = notes[at:at + APPEND_NOTES]
            passage_keys, head_keys, starts = note_rows(self._keys, part)
            vectors = cache.get_many(passage_keys + head_keys)
            if vectors is None:
                return False
            first = len(self._passages)
            self._passages.extend(vectors[:len(passage_keys)])
            self._heads.extend(vectors[len(passage_keys):])
            self._starts.extend([first + start for start in starts])
            self._ready_notes.extend(part)
        return True


def note_rows(keys_of: Sequence[Sequence[bytes]], notes: list[int]) -> tuple[list[bytes], list[bytes], list[int]]:
    """These notes' vectors as the index lays them out: every passage key, note after note (a note's
    keys but its last), each note's whole-text key (its last), and where each note's passages start."""
    if isinstance(keys_of, NoteKeys):
        return keys_of.layout(notes)
    passage_keys: list[bytes] = []
    head_keys, starts = [], []
    for i in notes:
        keys = keys_of[i]
        starts.append(len(passage_keys))
        passage_keys.extend(keys[:-1])
        head_keys.append(keys[-1])
    return passage_keys, head_keys, starts


def _rescore(cache, keys_of: Sequence[Sequence[bytes]], ready: np.ndarray, rank: np.ndarray, best: np.ndarray,
             query: np.ndarray) -> None:
    """The RESCORED best-ranked notes scored again from their float32 vectors (in place), so the head
    of the ranking is exact; where the cache cannot give them back, the int8 scores stand."""
    top = ready if len(ready) <= RESCORED else ready[np.argpartition(-rank[ready], RESCORED)[:RESCORED]]
    passage_keys, head_keys, starts = note_rows(keys_of, top.tolist())
    vectors = cache.get_many(passage_keys + head_keys) if cache is not None else None
    if vectors is None:
        return
    scores = vectors @ query
    exact_best = np.maximum.reduceat(scores[:len(passage_keys)], starts)
    rank[top] = (exact_best + scores[len(passage_keys):]) / 2
    best[top] = exact_best
