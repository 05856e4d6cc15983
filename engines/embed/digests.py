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
ASKED_AT_ONCE = 32_768  # keys looked up in one numpy pass: ~4 MB of temporaries


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
        if any(len(k) != DIGEST for k in keys):
            return np.fromiter((self.get(k, -1) for k in keys), np.int64, count=len(keys))
        return self.rows_of_joined(b"".join(keys))

    def rows_of_joined(self, joined: bytes) -> np.ndarray:
        """``rows_of`` for keys given joined, 32 bytes each (no bytes object per key). Asked
        ``ASKED_AT_ONCE`` at a time: all 331,000 of the vault's keys at once made ~45 MB of
        temporaries, which the heap then kept."""
        count = len(joined) // DIGEST
        out = np.full(count, -1, np.int64)
        if not count or not self._count:
            return out
        asked_all = np.frombuffer(joined, np.uint8, count * DIGEST).reshape(-1, DIGEST)
        held = np.frombuffer(self._digests, np.uint8).reshape(-1, DIGEST)
        for at in range(0, count, ASKED_AT_ONCE):
            asked = asked_all[at:at + ASKED_AT_ONCE]
            prefixes = asked[:, :8].copy().view(_PREFIX).reshape(-1).astype(np.uint64)
            j = np.minimum(np.searchsorted(self._sorted, prefixes), self._count - 1)
            rows = self._rows[j]
            same_prefix = self._sorted[j] == prefixes
            found = same_prefix & (held[rows] == asked).all(axis=1)
            part = out[at:at + ASKED_AT_ONCE]
            part[found] = rows[found]
            # a shared first 8 bytes (one chance in 2^64 a pair): the slow path finds the right one
            for i in np.flatnonzero(~found & same_prefix).tolist():
                part[i] = self.get(asked[i].tobytes(), -1)
        return out
