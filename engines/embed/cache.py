"""The vector cache: vectors keyed by (model id, sha256 of the embedded text), across runs.

One file per (model, corpus) under ``$XDG_CACHE_HOME/olai-tui/vectors/``, never inside a searched
folder; per corpus so that pruning the vectors of deleted notes never evicts another corpus's.
Changing the model changes the file (so every vector is invalidated); editing a note changes its
text's hash (so only that note is embedded again).

The file's layout, what survives damage to it and how it is written: engines/embed/vector_file.py.
One process builds an entry at a time, the others follow it: engines/embed/journal.py.

The file's vectors stay in the file: the cache keeps its digests (which row holds which text) and an
open handle, and reads rows when asked (``get_many``). Only vectors embedded since the file was
written are held in memory, until the next save. The indexes keep their own compact copies
(engines/embed/rows.py: int8), so at 300,000 vectors the 460 MB of float32 are on disk, not resident
twice; the handle keeps the file as it was read even if another process replaces it.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from engines.embed.digests import DIGEST, DigestIndex
from engines.embed.journal import JOURNAL_SUFFIX, LOCK_SUFFIX, SharedEntry  # noqa: F401 - re-exported
from engines.embed.rows import Slab
from engines.embed.vector_file import MAGIC, VERSION, SavedRows, open_file as _open_file, \
    write_file as _write_file  # noqa: F401 - MAGIC, VERSION: re-exported (tests read them)

NO_DIGESTS = DigestIndex(b"")  # no file
STACK_ROWS = 4096  # rows gathered per step when writing: one np.stack of 300,000 rows held the interpreter ~0.2 s


def cache_root() -> Path:
    from engines.locations import cache_root as root

    return root()


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _file_name(model_id: str, scope: str) -> str:
    scope_tag = hashlib.sha256(scope.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model_id) + "-" + scope_tag + ".vec"



class VectorCache(SharedEntry):
    """A map digest -> vector, read from and saved to one file per model and corpus.

    Problems with the file (missing folder rights, corruption, another version) never raise: the
    cache starts empty or runs without persistence, and says so once in ``notices``.
    """

    def __init__(self, model_id: str, dims: int, scope: str = "",
                 directory: str | os.PathLike | None = None) -> None:
        self.model_id = model_id
        self.dims = dims
        self.directory = Path(directory) if directory is not None else cache_root() / "vectors"
        self.path = self.directory / _file_name(model_id, scope)
        self.notices: list[str] = []
        self._saved: SavedRows | None = None  # the file as last read or written
        self._rows: dict[bytes, np.ndarray] = {}  # vectors not in that file: embedded (or merged) since
        self._slab = Slab(dims)  # where put_many's rows are copied (engines/embed/rows.py)
        self._persist = True
        self._loaded_stat: tuple[int, int] | None = None
        self.generation = 0  # moves when vectors it held are lost (its file unreadable while open)
        self._lock = threading.Lock()  # guards the two maps above; never held while a file is written
        self._saving = threading.Lock()  # one save at a time
        self._leader: int | None = None  # the lock file's descriptor while this process builds the entry
        self._journal: int | None = None  # the journal, open for appending, while it does
        self._journal_read: tuple[int, int] = (0, 0)  # (inode, bytes) of the journal already read
        self._load()
        self._read_journal()

    # -- reading -------------------------------------------------------------------------------
    def __len__(self) -> int:
        saved = self._saved.at if self._saved is not None else NO_DIGESTS
        return len(saved) + sum(1 for k in list(self._rows) if k not in saved)

    def __contains__(self, key: bytes) -> bool:
        return key in self._rows or (self._saved is not None and key in self._saved.at)

    def held(self, keys: Sequence[bytes]) -> list[bool]:
        """``key in cache`` for each key at once: one search of the file's digests for all of them (one
        at a time took ~2 µs a key: 0.7 s for a 100,000-note vault's 331,000)."""
        with self._lock:
            saved, rows = self._saved, self._rows
        in_file = saved.at.rows_of(keys) >= 0 if saved is not None else np.zeros(len(keys), bool)
        return [f or k in rows for k, f in zip(keys, in_file.tolist())] if rows else in_file.tolist()

    def held_joined(self, joined: bytes) -> np.ndarray:
        """``held`` for digests given joined, 32 bytes each, as a bool array: no bytes object a key."""
        with self._lock:
            saved, rows = self._saved, self._rows
        count = len(joined) // DIGEST
        out = saved.at.rows_of_joined(joined) >= 0 if saved is not None else np.zeros(count, bool)
        if rows:
            for i in np.flatnonzero(~out).tolist():
                out[i] = joined[i * DIGEST:(i + 1) * DIGEST] in rows
        return out

    def get(self, key: bytes) -> np.ndarray | None:
        vectors = self.get_many([key])
        return None if vectors is None else vectors[0]

    def get_many(self, keys: Sequence[bytes]) -> np.ndarray | None:
        """The vectors of ``keys`` as a float32 matrix, row i for key i; None when one is not held
        (or the file can no longer be read: said once, and its vectors are embedded again)."""
        with self._lock:
            saved, rows = self._saved, self._rows
        try:
            return _vectors_of(keys, self.dims, rows, (saved,))
        except (OSError, ValueError) as exc:
            self._lost(saved, exc)
            return None

    def file_order(self, keys: Sequence[bytes]) -> list[bytes]:
        """``keys`` as the file holds them (those held only in memory last): read back in this order,
        a few thousand at a time, every span read is dense (a reader for whom order does not matter)."""
        with self._lock:
            saved = self._saved
        if saved is None:
            return list(keys)
        rows = saved.at.rows_of(keys)
        rows[rows < 0] = len(saved.at)
        return [keys[i] for i in np.argsort(rows, kind="stable").tolist()]

    def _lost(self, saved: SavedRows, exc: Exception) -> None:
        with self._lock:
            if self._saved is saved:
                self._saved = None
                self._loaded_stat = None
                self.generation += 1
        self._notice(f"vector cache {self.path} unreadable while open ({exc}); rebuilding it")

    def put_many(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if len(keys) != len(vectors):
            raise ValueError("keys and vectors differ in length")
        vectors = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            rows = dict(self._rows)  # a reader may hold the old map: it is never changed in place
            for key, vec in zip(keys, self._slab.take(vectors)):
                rows[key] = vec
            self._rows = rows
            if self._journal is not None:
                self._append(keys, vectors)

    def _load(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return
        except NotADirectoryError:
            # the cache folder's path is taken by a file: no cache can be kept; say so once
            self._persist = False
            self._notice(f"vector cache folder {self.directory} is not a folder; running without persistence")
            return
        except OSError as exc:
            self._notice(f"vector cache {self.path} unreadable ({exc.strerror}); starting empty")
            return
        try:
            saved = _open_file(self.path, self.model_id, self.dims)
        except (OSError, ValueError) as exc:
            self._notice(f"vector cache {self.path} discarded ({exc}); rebuilding it")
            return
        if saved.lost:
            self._notice(f"vector cache {self.path} damaged ({saved.lost:,} of {saved.lost + len(saved.at):,} "
                         "vectors cut short or corrupt): the rest kept, those embedded again")
        self._saved = saved
        self._loaded_stat = (stat.st_mtime_ns, stat.st_size)

    # -- writing -------------------------------------------------------------------------------
    def save(self, keep: Iterable[bytes] | None = None, ordered: bool = False) -> bool:
        """Write the cache if it changed. ``keep``: if given, drop every other vector; ``ordered``: the
        file then holds them in ``keep``'s order, so an index that reads its vectors back in that order
        reads the file front to back. Returns True when the file was written. Vectors another process
        saved meanwhile are kept. Searches read on while the file is written."""
        with self._saving:
            with self._lock:
                saved, rows = self._saved, self._rows
            at = saved.at if saved is not None else NO_DIGESTS
            if keep is None:
                order = list(at) + [k for k in rows if k not in at]
            else:
                keep = dict.fromkeys(keep)  # ordered, and quick to ask
                if ordered:
                    kept = list(keep)
                    order = [k for k, in_file in zip(kept, (at.rows_of(kept) >= 0).tolist()) if in_file or k in rows]
                else:
                    order = [k for k in at if k in keep] + [k for k in rows if k in keep and k not in at]
            unchanged = len(order) == len(at) and bool((at.rows_of(order) == np.arange(len(order))).all())
            if unchanged or not self._persist:  # unchanged: the file holds these vectors, in this order
                if keep is not None:
                    with self._lock:
                        self._rows = {k: v for k, v in self._rows.items() if k in keep or k not in rows}
                return False
            theirs = self._newer_file()
            if theirs is not None:
                listed = list(theirs.at)
                order += [k for k, ours in zip(listed, (at.rows_of(listed) >= 0).tolist())
                          if not ours and k not in rows and (keep is None or k in keep)]
            try:
                _write_file(self.path, self.model_id, self.dims, order, self._gather(order, saved, rows, theirs))
                written = _open_file(self.path, self.model_id, self.dims, check=False)
                stat = self.path.stat()
            except (OSError, ValueError) as exc:
                self._persist = False
                self._notice(f"vector cache {self.path} not writable ({getattr(exc, 'strerror', None) or exc}); "
                             "running without persistence")
                return False
            with self._lock:
                # what was put while the file was written stays in memory for the next save; what the
                # save dropped (not kept) goes
                self._rows = {k: v for k, v in self._rows.items()
                              if k not in written.at and (keep is None or k in keep or k not in rows)}
                self._saved = written
                self._loaded_stat = (stat.st_mtime_ns, stat.st_size)
            self._journal_anew()
            return True

    def _gather(self, keys: list[bytes], saved: SavedRows | None, rows: dict[bytes, np.ndarray],
                theirs: SavedRows | None) -> Iterator[np.ndarray]:
        """``keys``' vectors, a few thousand rows at a time: the save runs on an index's thread, and
        one long call would hold the interpreter (the workbench's drawing with it)."""
        for start in range(0, len(keys), STACK_ROWS):
            out = _vectors_of(keys[start:start + STACK_ROWS], self.dims, rows, (saved, theirs))
            if out is None:  # every key written is held by one of them: the order was made so
                raise ValueError("a vector to write is held nowhere")
            yield out

    def _newer_file(self) -> SavedRows | None:
        """Another process's file written since ours was read, if it holds vectors worth merging."""
        try:
            stat = self.path.stat()
        except OSError:
            return None
        if self._loaded_stat == (stat.st_mtime_ns, stat.st_size):
            return None
        try:
            return _open_file(self.path, self.model_id, self.dims)
        except (OSError, ValueError):
            return None

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)


def _vectors_of(keys: Sequence[bytes], dims: int, rows: dict[bytes, np.ndarray],
                sources: Sequence[SavedRows | None]) -> np.ndarray | None:
    """``keys``' vectors, row i for key i: from ``rows`` (in memory) where held there, else from the
    first of the files ``sources`` that holds it, each file read once; None when one is held nowhere.
    OSError: a file can no longer be read."""
    out = np.empty((len(keys), dims), np.float32)
    pending = []  # positions not held in memory
    for i, key in enumerate(keys):
        vec = rows.get(key)
        if vec is None:
            pending.append(i)
        else:
            out[i] = vec
    reads = []  # (file, positions, its rows): read once every key is found
    left = np.asarray(pending, np.int64)
    for source in sources:
        if not len(left) or source is None:
            continue
        file_rows = source.at.rows_of([keys[i] for i in left.tolist()])
        held = file_rows >= 0
        reads.append((source, left[held], file_rows[held]))
        left = left[~held]
    if len(left):
        return None
    for source, positions, file_rows in reads:
        if len(positions):
            out[positions] = source.read(file_rows)
    return out


