"""The notes index kept between runs: the notes as read and their words, so a vault opens again in seconds.

A folder of notes is read once; after that an open takes each file's notes from the index in the
user cache (engines/index_folder.py: never in the vault) when the file's size and mtime are those
recorded, and reads again only what changed while the index was closed: a file edited (its stat
differs: its bytes are hashed and, unless they are the same, it is read again), added (not in the
index) or deleted (not found: its notes are gone). Each note's words (its word ids and counts,
one CSR row per note: engines/notes/word_rows.py) are kept by the note's content, so words are
counted again only for notes whose text changed, and the BM25 score matrix is kept as built
(word-major CSR ``.npy`` arrays, memory-mapped), so the first words answer after an unchanged open
costs no build at all.

Saved once the words of the notes held are built (the words leg's background thread), atomically,
as a new generation (read back by engines/notes/saved_index.py). An index that cannot be used
(truncated, another format, made for another root) is named once in ``notices``, discarded and
rebuilt from the notes: nothing is lost.

Layout of a generation (n notes, w distinct words)::

    note_strings.G.txt  every note's strings (engines/notes/columns.py), one after the other (UTF-8)
    note_string_ends.G.npy  int64: where each string ends (characters)
    note_shape.G.npy    int32, n x 3: each note's tags, aliases, has a parent;  note_dates.G.npy float64, n
    file_strings.G.txt  per source file its relative path and blake2b; file_string_ends.G.npy as above
    file_numbers.G.npy  int64, files x 5: size, mtime_ns, first note, notes, dated by mtime
    bodies.G.txt        every note's body, one after the other (UTF-8), read when asked for (bodies.py)
    body_ends.G.npy     int64, n: where each body ends (bytes)
    vocab.G.json        the words, by id                                                      w
    rows_ptr.G.npy      int64, n + 1: note i's words are rows_terms[rows_ptr[i]:rows_ptr[i+1]]
    rows_terms.G.npy    int32: word ids;  rows_tfs.G.npy: int32, how often each occurs
    bm25_data.G.npy     float32; bm25_indices.G.npy int32; bm25_indptr.G.npy int64 (w + 1)
    exact.G.bin         the exact tier's folded haystack (engines/notes/exact.py), used when no file changed
    exact_bounds.G.npy  int64, n x 3: each note's start in it, its folded title's and label's lengths
    exact_trigrams.G.npy uint64, 32 x n: each note's trigram filter (engines/notes/trigrams.py), memory-mapped
                        (absent from an index written before they were kept: the tier folds the notes)
    manifest.json       format, root, generation, each file's size, and the problems of the source
                        files that had any, by file number
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.atomic import atomic_file
from engines.index_folder import (discard, folder_for, one_writer, remove_other_generations, write_atomically,
                                 write_manifest)
from engines.lexical import BM25Index
from engines.notes.corpus import MAX_FILE_BYTES, CorpusLoad, Note, load_corpus, load_file, natural_key, stored_body
from engines.notes.bodies import encoded
from engines.notes.columns import DIGEST_BYTES, FileColumns, NoteColumns, strings_blob
from engines.notes.exact import ExactMatcher
from engines.notes.file_stats import FileStats
from engines.notes.note_files import relative_to
from engines.notes.saved_index import FORMAT, Reading, saved_source_files
from engines.notes.walk_apart import WALK_APART_FROM, WalkApart, found_here
from engines.notes.word_rows import Rows, assemble, empty_matrix, words_key
from engines.notes.words import Stopped
from engines.problems import Problem

BODIES_AT_ONCE = 4096  # bodies encoded and written at a time by a save
KIND = "notes-index"
# A file modified this recently may change again within the same mtime tick without its stat
# changing (git's "racy clean"): its stat is not trusted, so the next open reads it again.
RACY_SECONDS = 2.0
PROGRESS_EVERY = 1000  # files between progress calls: a cold 100k-note read says where it is ~ every second


class NotesStore:
    """The saved index of one folder: what an open reused, and the words leg's way to reuse and save."""

    def __init__(self, folder: Path, top: str) -> None:
        self.folder, self.top = folder, top
        self.notices: list[str] = []
        self.attached = True  # False: the engine holds notes not read from this folder (a benchmark's edit)
        self.files = FileStats()  # absolute path -> its stat when its notes were read
        self.changed = True  # the folder differs from what is saved
        self._rows: Rows | None = None
        self._matrix: dict[str, np.ndarray] | None = None
        self._matrix_keys: list[str] | None = None
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()  # one save at a time; a later one writes a later generation
        self._files_lock = threading.Lock()  # self.files, read by a save, changed by the watcher
        self._saving: threading.Thread | None = None
        self.writes = 0  # index generations this process started writing (the bench reports it)
        self._exact: tuple[list[str], tuple] | None = None  # (note ids, ExactMatcher parts) as saved
        self.matcher: ExactMatcher | None = None  # the exact tier the engine holds: a save copies its fold

    def saved_exact(self, notes: Sequence[Note]) -> tuple | None:
        """The exact tier's saved parts when ``notes`` are the notes they were made from (no file changed
        since), once: the matcher keeps them from there."""
        kept, self._exact = self._exact, None
        if kept is None or len(kept[0]) != len(notes) or any(
                n.id != i for n, i in zip(notes, kept[0])):
            return None
        return kept[1]

    def forget(self, paths) -> None:
        """These files' notes changed since the open (the watcher): read them again next open. Not under
        the words lock, which a build holds for seconds: the watcher never waits on a build."""
        with self._files_lock:
            self.files.distrust(paths)
            self.changed = True

    # -- the words leg -----------------------------------------------------------------------------
    def words_index(self, notes: Sequence[Note], stop: threading.Event | None = None) -> BM25Index:
        """The BM25 index of ``notes``: the saved matrix when they are the saved notes, else built
        from the saved rows plus the words of the notes not seen before; saved when it changed.
        ``stop`` set (the index closing): words.Stopped at the next note read, and nothing saved."""
        stop = stop or threading.Event()
        with self._lock:
            keys = [words_key(n) for n in notes]
            if stop.is_set():
                raise Stopped
            if self._matrix is not None and keys == self._matrix_keys:
                m = self._matrix
                index = BM25Index.from_matrix(m["data"], m["indices"], m["indptr"], None, len(notes), self._rows.ids)
            else:
                rows = assemble(self._rows, notes, keys, stop)
                doc = np.repeat(np.arange(len(notes), dtype=np.int32), np.diff(rows.ptr))
                index = BM25Index.from_entries(len(notes), rows.ids, rows.terms, doc, rows.tfs)
                self._rows, self._matrix_keys = rows, keys
                kept = index.matrix()  # (data, indices, indptr, counts) or None
                self._matrix = (dict(zip(("data", "indices", "indptr"), kept[:3])) if kept is not None
                                else empty_matrix(len(rows.vocab)))
                self.changed = True
            if self.changed and self.attached and not stop.is_set():
                # Written after the answer, not before it, on a thread that is not a daemon (said outright:
                # the words thread starting it is one), so a one-shot search waits for it at exit rather
                # than leave the vault unsaved.
                self.changed = False
                self.writes += 1
                self._saving = threading.Thread(target=self._save, args=(list(notes), self._rows, self._matrix),
                                                name="notes-index-save", daemon=False)
                self._saving.start()
            return index

    def wait_saved(self) -> None:
        """Until the index the last words build started writing is written (a benchmark, a test)."""
        saving = self._saving
        if saving is not None:
            saving.join()

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    # -- writing -----------------------------------------------------------------------------------
    def _save(self, notes: Sequence[Note], rows: Rows, matrix: dict[str, np.ndarray]) -> None:
        with self._save_lock:
            try:
                with one_writer(self.folder):  # another process saving this index waits its turn
                    self._write(notes, rows, matrix)
            except OSError as error:
                self.changed = True
                self._notice(f"notes index {self.folder}: not saved ({(error.strerror or str(error)).lower()})")

    def _write(self, notes: Sequence[Note], rows: Rows, matrix: dict[str, np.ndarray]) -> None:
        generation = f"{time.time_ns():x}"
        sizes: dict[str, int] = {}

        def put(name: str, data, kind: str = "npy") -> None:
            full = f"{name}.{generation}.{kind}"
            sizes[full] = write_atomically(self.folder / full, data)

        def put_strings(name: str, strings: Sequence[str]) -> None:
            text, string_ends = strings_blob(strings)
            put(name, text, "txt")
            put(f"{name[:-1]}_ends", string_ends)

        def put_bodies(notes: Sequence[Note]) -> None:
            """Streamed a few thousand at a time: the bodies read back from the index are copied as their
            bytes, and all of them are never in memory at once (held, they stayed in the heap after)."""
            name = f"bodies.{generation}.txt"
            ends = np.empty(len(notes), np.int64)
            with atomic_file(self.folder / name) as fh:
                written = 0
                for at in range(0, len(notes), BODIES_AT_ONCE):
                    chunk = [encoded(stored_body(n)) for n in notes[at:at + BODIES_AT_ONCE]]
                    ends[at:at + len(chunk)] = np.cumsum([len(b) for b in chunk]) + written
                    written += sum(len(b) for b in chunk)
                    fh.write(b"".join(chunk))
            sizes[name] = (self.folder / name).stat().st_size
            put("body_ends", ends)

        files: list[list] = []
        with self._files_lock:  # each file's stat as the watcher left it, read once
            stats = self.files.copy()
        row_of = stats.rows()

        def entry(path: str, row: int | None, first: int) -> list:
            """[path, rel, size, mtime_ns, digest, first note, notes (counted on), problems, dated]"""
            if row is None:  # not read with a stat the index can trust: read again at the next open
                return [path, relative_to(path, self.top), -1, 0, None, first, 0, [], False]
            known = stats.row(row)
            return [path, relative_to(path, self.top), known.size, known.mtime_ns, known.digest, first, 0,
                    known.problems, known.dated_by_mtime]

        for i, note in enumerate(notes):
            if not files or files[-1][0] != note.path:
                files.append(entry(note.path, row_of.get(note.path), i))
            files[-1][6] += 1
        with_notes = {f[0] for f in files}
        # files with no notes (an empty note): their stat and what they said, no rows
        files += [entry(path, row, len(notes)) for path, row in row_of.items() if path not in with_notes]
        del row_of
        strings, shape, dates = NoteColumns.of(notes)
        put_strings("note_strings", strings)
        put("note_shape", shape)
        put("note_dates", dates)
        strings, numbers, problems = FileColumns.of([f[1:] for f in files])
        put_strings("file_strings", strings)
        put("file_numbers", numbers)
        put_bodies(notes)
        put("vocab", _json(rows.vocab), "json")
        put("rows_ptr", np.asarray(rows.ptr, dtype=np.int64))
        put("rows_terms", np.asarray(rows.terms, dtype=np.int32))
        put("rows_tfs", np.asarray(rows.tfs, dtype=np.int32))
        for name, array in matrix.items():
            put(f"bm25_{name}", np.asarray(array))
        # the tier's own fold (the same answers), copied from the engine's matcher for the notes it holds
        haystack, starts, lengths, bloom = ExactMatcher(notes, previous=self.matcher).parts()
        put("exact", haystack, "bin")
        put("exact_bounds", np.column_stack((np.asarray(starts, np.int64).reshape(-1, 1),
                                             np.asarray(lengths, np.int64).reshape(-1, 2))))
        put("exact_trigrams", bloom)
        del haystack, bloom
        write_manifest(self.folder, {"format": FORMAT, "root": self.top, "generation": generation, "files": sizes,
                                     "problems": problems, "source_files": len(files)})
        remove_other_generations(self.folder, set(sizes))


def open_notes(root: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
               progress=None) -> tuple[CorpusLoad, NotesStore | None]:
    """The notes of a folder, from its saved index where the files are unchanged; a note file (not
    a folder) is read as it is (no index: one file reads in no time). Raises CorpusError as load_corpus."""
    top = os.path.abspath(os.fspath(root))
    if not os.path.isdir(top):
        return load_corpus(root), None
    try:
        os.scandir(top).close()
    except OSError:
        return load_corpus(root), None  # raises the one-line CorpusError
    store = NotesStore(folder_for(KIND, top, cache_dir), top)
    reading = Reading(store.folder, top)
    saved_files = saved_source_files(store.folder)
    apart = WalkApart(top) if saved_files >= WALK_APART_FROM else None
    try:
        if progress is not None and saved_files:
            # the folder is there and readable, the read under way (the walk too, where it is apart);
            # the workbench may hold the read here until its first paint (olai_tui/workbench.py)
            progress(0, saved_files, "reading notes")
        if apart is not None:
            # a large folder: walked by a child process (engines/notes/walk_apart.py) while this one
            # reads the index back and makes every saved note, each where its file was
            reading.read()
            prebuilt = reading.saved.every_note(top) if reading.saved is not None else None
            found = apart.found() or found_here(top)
        else:
            # The saved index is read while the folder is walked: the walk waits on a stat per file,
            # which lets the interpreter go, and the read decodes in some of those waits.
            prebuilt = None
            reading.start()
            try:
                found = found_here(top)
            finally:
                reading.join()
    finally:
        if apart is not None:
            apart.close()
    saved, problems = reading.saved, found.problems
    if reading.stale is not None:
        store.notices.append(f"notes index {store.folder}: {reading.stale}: discarded, rebuilt from the notes")
        discard(store.folder)
    notes: list[Note] = []
    fresh = fresh_notes = 0
    now = time.time()
    numbers = saved.files.numbers if saved is not None else []
    digests = saved.files.digests if saved is not None else []
    said_of = saved.files.problems if saved is not None else {}
    file_of = saved.file_of if saved is not None else {}
    built, built_paths, built_starts = prebuilt or (None, None, None)
    same = 0  # files kept with the size and mtime the index holds for them: none changed if all are
    # each file's stat as the index will keep it, by column (engines/notes/file_stats.py)
    kept_sizes: list[int] = []
    kept_digests: list[bytes | None] = []
    kept_dated: list[bool] = []
    kept_problems: dict[int, list] = {}
    for done, (path, rel, st_size, st_mtime_ns, st_mtime, st_mode) in enumerate(found.rows()):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(found.paths), "reading notes")
        at = file_of.get(rel)
        if at is not None:
            size, mtime_ns, first, count, was_dated = numbers[at]
            reused = size >= 0 and size == st_size and mtime_ns == st_mtime_ns
            digest = digests[at] if reused else _digest(path, st_mode, st_size)
            if not reused and digest is not None and digest == digests[at] and not was_dated:
                reused = True  # touched, not changed: the same bytes read the same
        else:
            reused, digest = False, _digest(path, st_mode, st_size)
        if reused:
            if built_paths is not None and built_paths[at] == path:
                file_notes = built[built_starts[at]:built_starts[at] + count]
            else:
                file_notes = saved.notes_in(first, count, path)
            said = said_of.get(at)
            file_problems = [Problem(*p) for p in said] if said else []
        else:
            fresh += 1
            file_notes, file_problems = load_file(path, top)
            fresh_notes += len(file_notes)
        notes += file_notes
        if file_problems:
            problems += file_problems
        # a file with no notes too (an empty note): kept, so it is not read again
        stored = st_size if st_mtime < now - RACY_SECONDS else -1  # a racy stat is not trusted
        dated = any(n.date == st_mtime for n in file_notes) if not reused else bool(was_dated)
        kept_sizes.append(stored)
        kept_digests.append(digest)
        kept_dated.append(dated)
        if file_problems:
            kept_problems[done] = [[p.path, p.cause, p.skipped] for p in file_problems]
        if at is not None and stored == size and st_mtime_ns == mtime_ns:
            same += 1
    store.files = FileStats.of(found.paths, kept_sizes, found.mtimes_ns, kept_digests, kept_problems, kept_dated)
    problems.sort(key=lambda p: natural_key(p.path))
    if saved is not None:
        store._rows, store._matrix, store._matrix_keys = saved.rows, saved.matrix, saved.keys
        # anything read again, gone, or with a new stat: the saved index is rewritten once words are built
        # (every file kept matched its own saved entry, one to one: rels are unique)
        store.changed = fresh > 0 or not (same == len(store.files) == len(numbers))
        if saved.exact is not None and not fresh_notes:  # every note read back: the same notes if the same ids
            store._exact = (saved.notes.ids(), saved.exact)
        if saved.exact is None or saved.exact[3] is None:
            store.changed = True  # written before the tier's parts were kept: written again once, with them
    return CorpusLoad(notes, problems), store


def _digest(path: str, mode: int, size: int) -> bytes | None:
    """The file's blake2b; None for what load_file will not read (a FIFO would block an open, a file
    over the size cap is skipped), opened as load_file opens it: never blocking."""
    if not stat.S_ISREG(mode) or size > MAX_FILE_BYTES:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            return hashlib.file_digest(fh, "blake2b").digest()[:DIGEST_BYTES]
    except OSError:
        return None


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
