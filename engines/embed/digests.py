"""Which row of a vector cache file holds which digest, in compact arrays rather than a dict.

A dict from 32-byte digests to rows held 331,000 bytes objects, their int rows and the table: 42 MB
of the 100,000-note vault's memory with meaning on (tracemalloc). Here the file's own digests stay as
one bytes object (32 bytes a row), with their first 8 bytes as integers, sorted, and the row each
came from (8 + 8 bytes a row): ~16 MB. A lookup is a binary search: ~1 µs for one key (``get``), and
``rows_of`` answers many keys at once in numpy. Two digests sharing their first 8 bytes (one chance in
2^64 a pair) are told apart by the whole digest.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Iterator, Sequence

import numpy as np

DIGEST = 32
_PREFIX = np.dtype(">u8")  # a digest's first 8 bytes, compared as the bytes compare


class DigestIndex:
    """A read-only map digest -> row over ``digests`` (a file's digests, 32 bytes each, row after row)."""

    def __init__(self, digests: bytes) -> None:
        if len(digests) % DIGEST:
            raise ValueError("digests are not whole")
        self._digests = digests
        self._count = len(digests) // DIGEST
        prefixes = np.frombuffer(digests, _PREFIX)[:: DIGEST // 8] if self._count else np.zeros(0, _PREFIX)
        order = np.argsort(prefixes, kind="stable")
        # arrays that get bisects as Python ints (no numpy call per step), seen by rows_of through numpy
        self._sorted_list = array("Q", prefixes[order].astype(np.uint64).tobytes())
        self._rows_list = array("q", order.astype(np.int64).tobytes())
        self._sorted = np.frombuffer(self._sorted_list, np.uint64) if self._count else np.zeros(0, np.uint64)
        self._rows = np.frombuffer(self._rows_list, np.int64) if self._count else np.zeros(0, np.int64)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[bytes]:
        """The digests in the file's order."""
        d = self._digests
        return (d[i:i + DIGEST] for i in range(0, len(d), DIGEST))

    def __contains__(self, key: bytes) -> bool:
        return self.get(key) is not None

    def get(self, key: bytes, default: int | None = None) -> int | None:
        if len(key) != DIGEST:
            return default
        prefix = int.from_bytes(key[:8], "big")
        keys, rows, d = self._sorted_list, self._rows_list, self._digests
        j = bisect_left(keys, prefix)
        while j < len(keys) and keys[j] == prefix:
            row = rows[j]
            if d[row * DIGEST:(row + 1) * DIGEST] == key:
                return row
            j += 1
        return default

    def rows_of(self, keys: Sequence[bytes]) -> np.ndarray:
        """Each key's row (int64), -1 where the file does not hold it."""
        out = np.full(len(keys), -1, np.int64)
        if not len(keys) or not self._count:
            return out
        if any(len(k) != DIGEST for k in keys):
            return np.fromiter((self.get(k, -1) for k in keys), np.int64, count=len(keys))
        asked = np.frombuffer(b"".join(keys), np.uint8).reshape(-1, DIGEST)
        prefixes = asked[:, :8].copy().view(_PREFIX).reshape(-1).astype(np.uint64)
        at = np.minimum(np.searchsorted(self._sorted, prefixes), self._count - 1)
        rows = self._rows[at]
        held = np.frombuffer(self._digests, np.uint8).reshape(-1, DIGEST)
        found = (self._sorted[at] == prefixes) & (held[rows] == asked).all(axis=1)
        out[found] = rows[found]
        # a shared first 8 bytes (one chance in 2^64 a pair): the slow path finds the right one
        for i in np.flatnonzero(~found & (self._sorted[at] == prefixes)).tolist():
            out[i] = self.get(keys[i], -1)
        return out
