"""The vector cache: vectors keyed by (model id, sha256 of the embedded text), across runs.

One file per (model, corpus) under ``$XDG_CACHE_HOME/olai-tui/vectors/``, never inside a searched
folder; per corpus so that pruning the vectors of deleted notes never evicts another corpus's.
Changing the model changes the file (so every vector is invalidated); editing a note changes its
text's hash (so only that note is embedded again).

File layout, little-endian::

    b"OLAIVEC" + version byte
    uint32 header length, then a JSON header {"model_id", "dims", "count"}
    count x 32 bytes   sha256 digests of the texts
    count x dims x 4   float32 vectors, row i for digest i
    32 bytes           sha256 of everything above (a torn or corrupted file is detected, not served)

Written atomically: a temp file in the same folder, fsync, ``os.replace``. A run killed midway
leaves the old file or the new one, never a torn one.

The file's vectors stay in the file: the cache keeps its digests (which row holds which text) and an
open handle, and reads rows when asked (``get_many``). Only vectors embedded since the file was
written are held in memory, until the next save. The indexes keep their own compact copies
(engines/embed/rows.py: int8), so at 300,000 vectors the 460 MB of float32 are on disk, not resident
twice; the handle keeps the file as it was read even if another process replaces it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import threading
import weakref
from itertools import chain
from pathlib import Path
from typing import IO, Iterable, Iterator, Sequence

import numpy as np

from engines.atomic import atomic_file
from engines.embed.digests import DIGEST, DigestIndex
from engines.embed.rows import Slab

MAGIC = b"OLAIVEC"
VERSION = 1
CHECK_BYTES = 8 << 20  # read per step while checking the file's digest: no whole-file buffer
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


class SavedRows:
    """A checked cache file held open: which row holds which digest, and its rows read on demand."""

    # A span of rows read at once when at least 1 row in SPARSE of it is wanted; rarer rows are read
    # one run at a time (a search's few hundred rows out of 300,000 must not read the file).
    SPAN = 4096
    SPARSE = 8

    def __init__(self, handle: IO[bytes], at: DigestIndex, vectors_offset: int, dims: int) -> None:
        self._handle = handle
        weakref.finalize(self, handle.close)  # closed with the last reader, not under one
        self.at = at  # digest -> row; never changed once made (readers hold it without the lock)
        self._offset = vectors_offset
        self._row_bytes = dims * 4
        self.dims = dims

    def read(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of file rows ``rows`` (any order, repeats allowed), as float32 rows."""
        out = np.empty((len(rows), self.dims), np.float32)
        order = np.argsort(rows, kind="stable")
        ordered = np.asarray(rows, np.int64)[order]
        rows_at = ordered.tolist()  # Python ints: a few numpy scalars per span cost more than its read
        i = 0
        while i < len(rows_at):
            j = int(np.searchsorted(ordered, rows_at[i] + self.SPAN, "left"))
            if (j - i) * self.SPARSE >= rows_at[j - 1] - rows_at[i] + 1:
                reads = [(i, j)]  # dense: the whole span in one read
            else:  # sparse: each run of consecutive rows on its own
                cuts = (np.flatnonzero(np.diff(ordered[i:j]) != 1) + 1 + i).tolist()
                reads = list(zip([i, *cuts], [*cuts, j]))
            for a, b in reads:
                first = rows_at[a]
                out[order[a:b]] = self._rows(first, rows_at[b - 1] - first + 1)[ordered[a:b] - first]
            i = j
        return out

    def _rows(self, start: int, count: int) -> np.ndarray:
        size = count * self._row_bytes
        data = os.pread(self._handle.fileno(), size, self._offset + start * self._row_bytes)
        if len(data) != size:
            raise OSError(f"cache file cut short while open (row {start})")
        return np.frombuffer(data, dtype="<f4").reshape(count, self.dims)



class VectorCache:
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
        self._load()

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
        with self._lock:
            rows = dict(self._rows)  # a reader may hold the old map: it is never changed in place
            for key, vec in zip(keys, self._slab.take(np.asarray(vectors, dtype=np.float32))):
                rows[key] = vec
            self._rows = rows

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


def _open_file(path: Path, model_id: str, dims: int, check: bool = True) -> SavedRows:
    """The file at ``path`` held open, its digest checked (``check``: False for the file just written)."""
    handle = open(path, "rb")  # noqa: SIM115 - held by the SavedRows returned
    try:
        head = handle.read(len(MAGIC) + 1 + 4)
        if len(head) < len(MAGIC) + 1 + 4 or head[: len(MAGIC)] != MAGIC:
            raise ValueError("not a vector cache file")
        if head[len(MAGIC)] != VERSION:
            raise ValueError(f"cache version {head[len(MAGIC)]}, expected {VERSION}")
        (header_len,) = struct.unpack_from("<I", head, len(MAGIC) + 1)
        header_bytes = handle.read(header_len)
        try:
            header = json.loads(header_bytes)
            count = int(header["count"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError("unreadable header") from exc
        if header.get("model_id") != model_id or header.get("dims") != dims:
            raise ValueError("written for another model")
        keys_at = len(head) + header_len
        vectors_at = keys_at + count * DIGEST
        size = os.fstat(handle.fileno()).st_size
        if size != vectors_at + count * dims * 4 + DIGEST:
            raise ValueError("truncated or corrupt: its size does not match its header")
        digests = handle.read(count * DIGEST)
        if check and not _digest_matches(handle, head + header_bytes + digests, size - DIGEST):
            raise ValueError("checksum mismatch: truncated or corrupt")
        return SavedRows(handle, DigestIndex(digests), vectors_at, dims)
    except BaseException:
        handle.close()
        raise


def _digest_matches(handle: IO[bytes], start: bytes, body_size: int) -> bool:
    digest = hashlib.sha256(start)
    left = body_size - len(start)
    while left > 0:
        part = handle.read(min(CHECK_BYTES, left))
        if not part:
            return False
        digest.update(part)
        left -= len(part)
    return digest.digest() == handle.read(DIGEST)


def _write_file(path: Path, model_id: str, dims: int, keys: list[bytes], chunks: Iterable[np.ndarray]) -> None:
    header = json.dumps({"model_id": model_id, "dims": dims, "count": len(keys)}).encode()
    digest = hashlib.sha256()
    with atomic_file(path, prefix=path.name + ".", sync_folder=True) as out:
        rows = (memoryview(np.ascontiguousarray(chunk, dtype="<f4").reshape(-1)).cast("B") for chunk in chunks)
        for part in chain((MAGIC + bytes([VERSION]), struct.pack("<I", len(header)), header, b"".join(keys)), rows):
            digest.update(part)
            out.write(part)
        out.write(digest.digest())
