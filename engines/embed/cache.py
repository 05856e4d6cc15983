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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import threading
from itertools import chain
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from engines.atomic import atomic_file
from engines.embed.rows import Slab

MAGIC = b"OLAIVEC"
VERSION = 1
DIGEST = 32


def cache_root() -> Path:
    from engines.locations import cache_root as root

    return root()


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _file_name(model_id: str, scope: str) -> str:
    scope_tag = hashlib.sha256(scope.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model_id) + "-" + scope_tag + ".vec"


class VectorCache:
    """An in-memory map digest -> vector, loaded from and saved to one file per model.

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
        self._rows: dict[bytes, np.ndarray] = {}
        self._slab = Slab(dims)  # where put_many's rows are copied (engines/embed/rows.py)
        self._dirty = False
        self._persist = True
        self._loaded_stat: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._load()

    # -- reading -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: bytes) -> bool:
        return key in self._rows

    def get(self, key: bytes) -> np.ndarray | None:
        return self._rows.get(key)

    def adopt(self, keys: Sequence[bytes], rows: Sequence[np.ndarray]) -> None:
        """Hold these keys' vectors as ``rows``: the same values, kept by an index that copied them
        (engines/embed/rows.py), so the process holds them once. A key not held is not added."""
        with self._lock:
            held = self._rows
            for key, row in zip(keys, rows):
                if key in held:
                    held[key] = row

    def put_many(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if len(keys) != len(vectors):
            raise ValueError("keys and vectors differ in length")
        with self._lock:
            for key, vec in zip(keys, self._slab.take(np.asarray(vectors, dtype=np.float32))):
                self._rows[key] = vec
            self._dirty = True

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
            rows = _read_file(self.path, self.model_id, self.dims)
        except (OSError, ValueError) as exc:
            self._notice(f"vector cache {self.path} discarded ({exc}); rebuilding it")
            return
        self._rows = rows
        self._loaded_stat = (stat.st_mtime_ns, stat.st_size)

    # -- writing -------------------------------------------------------------------------------
    def save(self, keep: Iterable[bytes] | None = None) -> bool:
        """Write the cache if it changed. ``keep``: if given, drop every other vector first.

        Returns True when the file was written. Vectors another process saved meanwhile are kept.
        """
        with self._lock:
            if keep is not None:
                keep = set(keep)
                stale = [k for k in self._rows if k not in keep]
                for k in stale:
                    del self._rows[k]
                self._dirty = self._dirty or bool(stale)
            if not self._dirty or not self._persist:
                return False
            self._merge_newer_file(keep)
            keys = list(self._rows)
            try:
                _write_file(self.path, self.model_id, self.dims, keys, [self._rows[k] for k in keys])
            except OSError as exc:
                self._persist = False
                self._notice(f"vector cache {self.path} not writable ({exc.strerror or exc}); running without persistence")
                return False
            stat = self.path.stat()
            self._loaded_stat = (stat.st_mtime_ns, stat.st_size)
            self._dirty = False
            return True

    def _merge_newer_file(self, keep: set[bytes] | None) -> None:
        try:
            stat = self.path.stat()
        except OSError:
            return
        if self._loaded_stat == (stat.st_mtime_ns, stat.st_size):
            return
        try:
            theirs = _read_file(self.path, self.model_id, self.dims)
        except (OSError, ValueError):
            return
        for key, vec in theirs.items():
            if key not in self._rows and (keep is None or key in keep):
                self._rows[key] = vec

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)


def _read_file(path: Path, model_id: str, dims: int) -> dict[bytes, np.ndarray]:
    data = path.read_bytes()
    if len(data) < len(MAGIC) + 1 + 4 + DIGEST or data[: len(MAGIC)] != MAGIC:
        raise ValueError("not a vector cache file")
    if data[len(MAGIC)] != VERSION:
        raise ValueError(f"cache version {data[len(MAGIC)]}, expected {VERSION}")
    body, trailer = data[:-DIGEST], data[-DIGEST:]
    if hashlib.sha256(body).digest() != trailer:
        raise ValueError("checksum mismatch: truncated or corrupt")
    offset = len(MAGIC) + 1
    (header_len,) = struct.unpack_from("<I", body, offset)
    offset += 4
    header = json.loads(body[offset : offset + header_len])
    offset += header_len
    if header.get("model_id") != model_id or header.get("dims") != dims:
        raise ValueError("written for another model")
    count = int(header["count"])
    keys_end = offset + count * DIGEST
    if len(body) != keys_end + count * dims * 4:
        raise ValueError("size does not match its header")
    keys = [body[offset + i * DIGEST : offset + (i + 1) * DIGEST] for i in range(count)]
    matrix = np.frombuffer(body, dtype="<f4", count=count * dims, offset=keys_end).reshape(count, dims)
    rows: dict[bytes, np.ndarray] = {}
    for at in range(0, count, STACK_ROWS):  # a few thousand rows per call, as _chunks (the index's thread)
        rows.update(zip(keys[at:at + STACK_ROWS], matrix[at:at + STACK_ROWS]))
    return rows


STACK_ROWS = 4096  # rows stacked per call: one np.stack of 300,000 rows held the interpreter ~0.2 s


def _chunks(rows: list[np.ndarray]):
    """The rows as little-endian float32 bytes, a few thousand rows at a time: a save runs on the
    index's thread, and one long call would hold the interpreter (the workbench's drawing with it);
    nor is a second copy of every vector made to write them (460 MB at 300,000)."""
    for at in range(0, len(rows), STACK_ROWS):
        chunk = np.ascontiguousarray(np.stack(rows[at:at + STACK_ROWS]), dtype="<f4")
        yield memoryview(chunk.reshape(-1)).cast("B")


def _write_file(path: Path, model_id: str, dims: int, keys: list[bytes], rows: list[np.ndarray]) -> None:
    header = json.dumps({"model_id": model_id, "dims": dims, "count": len(keys)}).encode()
    digest = hashlib.sha256()
    with atomic_file(path, prefix=path.name + ".", sync_folder=True) as out:
        for part in chain((MAGIC + bytes([VERSION]), struct.pack("<I", len(header)), header, b"".join(keys)),
                          _chunks(rows)):
            digest.update(part)
            out.write(part)
        out.write(digest.digest())
