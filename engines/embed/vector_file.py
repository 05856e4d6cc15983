"""The vector cache's file: its layout, read with what is whole kept, and written whole.

Layout (version 2), little-endian::

    b"OLAIVEC" + version byte
    uint32 header length, then a JSON header {"model_id", "dims", "count"}
    count x 32 bytes   sha256 digests of the texts
    count x 4 bytes    CRC-32 of each row's vector bytes
    32 bytes           sha256 of everything above: the head (a damaged head: the file is discarded)
    count x dims x 4   float32 vectors, row i for digest i

A file cut short, or with a row damaged, keeps every row whose bytes are whole and match their
check: what is lost is embedded again, not the whole file (cutting 1 KB off a 300,000-row file
costs one row, where version 1's one checksum over the whole file cost all of them). Version 1
files (one sha256 after the vectors) are still read, whole or not at all, and written anew as
version 2 by the next save. Written atomically: a temp file in the same folder, fsync, ``os.replace``.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import weakref
import zlib
from array import array
from pathlib import Path
from typing import IO, Iterable

import numpy as np

from engines.atomic import atomic_file
from engines.embed.digests import DIGEST, DigestIndex

MAGIC = b"OLAIVEC"
VERSION = 2
READS = (1, 2)  # versions read (1: one checksum over the whole file)
ROW_CHECK = 4  # bytes of a row's CRC-32
CHECK_BYTES = 8 << 20  # read per step while checking the file: no whole-file buffer


class SavedRows:
    """A checked cache file held open: which row holds which digest, and its rows read on demand."""

    # A span of rows read at once when at least 1 row in SPARSE of it is wanted; rarer rows are read
    # one run at a time (a search's few hundred rows out of 300,000 must not read the file).
    SPAN = 4096
    SPARSE = 8

    def __init__(self, handle: IO[bytes], at: DigestIndex, vectors_offset: int, dims: int,
                 file_rows: np.ndarray | None = None) -> None:
        self._handle = handle
        weakref.finalize(self, handle.close)  # closed with the last reader, not under one
        self.at = at  # digest -> row; never changed once made (readers hold it without the lock)
        self._offset = vectors_offset
        self._row_bytes = dims * 4
        self.dims = dims
        self._file_rows = file_rows  # row -> its row in the file, where damaged rows were left out (else None)
        self.lost = 0  # rows of the file left out as cut short or corrupt

    def read(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of rows ``rows`` (any order, repeats allowed), as float32 rows."""
        out = np.empty((len(rows), self.dims), np.float32)
        rows = np.asarray(rows, np.int64)
        if self._file_rows is not None:
            rows = self._file_rows[rows]
        order = np.argsort(rows, kind="stable")
        ordered = rows[order]
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


def open_file(path: Path, model_id: str, dims: int, check: bool = True) -> SavedRows:
    """The file at ``path`` held open, its checks made (``check``: False for the file just written).
    ValueError when nothing in it can be served; ``lost`` on the result: rows left out as damaged."""
    handle = open(path, "rb")  # noqa: SIM115 - held by the SavedRows returned
    try:
        head = handle.read(len(MAGIC) + 1 + 4)
        if len(head) < len(MAGIC) + 1 + 4 or head[: len(MAGIC)] != MAGIC:
            raise ValueError("not a vector cache file")
        version = head[len(MAGIC)]
        if version not in READS:
            raise ValueError(f"cache version {version}, expected {VERSION}")
        (header_len,) = struct.unpack_from("<I", head, len(MAGIC) + 1)
        header_bytes = handle.read(header_len)
        try:
            header = json.loads(header_bytes)
            count = int(header["count"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError("unreadable header") from exc
        if header.get("model_id") != model_id or header.get("dims") != dims:
            raise ValueError("written for another model")
        size = os.fstat(handle.fileno()).st_size
        keys_at = len(head) + header_len
        if version == 1:
            return _open_whole(handle, head + header_bytes, keys_at, count, dims, size, check)
        checks_at = keys_at + count * DIGEST
        vectors_at = checks_at + count * ROW_CHECK + DIGEST
        if size < vectors_at:
            raise ValueError("truncated: its head is cut short")
        digests = handle.read(count * DIGEST)
        checks = handle.read(count * ROW_CHECK)
        if hashlib.sha256(head + header_bytes + digests + checks).digest() != handle.read(DIGEST):
            raise ValueError("checksum mismatch in its head: corrupt")
        whole = _whole_rows(handle, vectors_at, np.frombuffer(checks, "<u4"), dims, size) if check else \
            np.ones(count, bool)
        if whole.all():
            saved = SavedRows(handle, DigestIndex(digests), vectors_at, dims)
        else:
            kept = np.flatnonzero(whole)
            if not len(kept):
                raise ValueError("truncated or corrupt: no row whole")
            keys = b"".join(digests[i * DIGEST:(i + 1) * DIGEST] for i in kept.tolist())
            saved = SavedRows(handle, DigestIndex(keys), vectors_at, dims, file_rows=kept)
        saved.lost = int(count - whole.sum())
        return saved
    except BaseException:
        handle.close()
        raise


def _whole_rows(handle: IO[bytes], vectors_at: int, checks: np.ndarray, dims: int, size: int) -> np.ndarray:
    """Which rows are whole in the file and match their CRC-32, read ``CHECK_BYTES`` at a time."""
    row_bytes = dims * 4
    count = len(checks)
    whole = np.zeros(count, bool)
    present = max(0, min(count, (size - vectors_at) // row_bytes)) if row_bytes else count
    step = max(1, CHECK_BYTES // max(row_bytes, 1))
    handle.seek(vectors_at)
    for first in range(0, present, step):
        last = min(present, first + step)
        data = handle.read((last - first) * row_bytes)
        for i in range(last - first):
            whole[first + i] = zlib.crc32(data[i * row_bytes:(i + 1) * row_bytes]) == checks[first + i]
    return whole


def _open_whole(handle: IO[bytes], start: bytes, keys_at: int, count: int, dims: int, size: int,
                check: bool) -> SavedRows:
    """A version 1 file: one checksum over all of it, so it is served whole or not at all."""
    vectors_at = keys_at + count * DIGEST
    if size != vectors_at + count * dims * 4 + DIGEST:
        raise ValueError("truncated or corrupt: its size does not match its header")
    digests = handle.read(count * DIGEST)
    if check and not _digest_matches(handle, start + digests, size - DIGEST):
        raise ValueError("checksum mismatch: truncated or corrupt")
    return SavedRows(handle, DigestIndex(digests), vectors_at, dims)


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


def write_file(path: Path, model_id: str, dims: int, keys: list[bytes], chunks: Iterable[np.ndarray]) -> None:
    """Version 2: the head with room for the row checks, the vectors streamed, then the checks and the
    head's checksum written into their place, all before the rename."""
    header = json.dumps({"model_id": model_id, "dims": dims, "count": len(keys)}).encode()
    start = MAGIC + bytes([VERSION]) + struct.pack("<I", len(header)) + header + b"".join(keys)
    checks = array("I")
    with atomic_file(path, prefix=path.name + ".", sync_folder=True) as out:
        out.write(start)
        checks_at = out.tell()
        out.write(bytes(len(keys) * ROW_CHECK + DIGEST))  # filled in below
        row_bytes = dims * 4
        for chunk in chunks:
            data = memoryview(np.ascontiguousarray(chunk, dtype="<f4").reshape(-1)).cast("B")
            checks.extend(zlib.crc32(data[i:i + row_bytes]) for i in range(0, len(data), row_bytes))
            out.write(data)
        if len(checks) != len(keys):
            raise ValueError(f"{len(checks)} vectors written for {len(keys)} keys")
        check_bytes = checks.tobytes() if sys.byteorder == "little" else _swapped(checks)
        out.seek(checks_at)
        out.write(check_bytes)
        out.write(hashlib.sha256(start + check_bytes).digest())


def _swapped(checks: array) -> bytes:
    other = array("I", checks)
    other.byteswap()
    return other.tobytes()
