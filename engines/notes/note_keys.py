"""Each note's text keys (the vector cache's 32-byte digests), kept in one bytes object.

As a list of lists of bytes, the 331,000 keys of the 100,000-note vault held 30 MB (tracemalloc: the
bytes objects 21.4 MB, the lists 8.9 MB) for as long as the meaning tier lived; here they take 32
bytes a key and 8 a note (11 MB). A note's keys are cut out when asked for: a search asks for the
128 notes it rescores, a stack of the rows for every ready note once.
"""

from __future__ import annotations

from array import array
from typing import Iterable, Iterator, Sequence

import numpy as np

from engines.embed.digests import DIGEST


class NoteKeys(Sequence):
    def __init__(self, per_note: Iterable[Sequence[bytes]] = ()) -> None:
        blobs, starts = [], array("q", [0])
        for keys in per_note:
            blobs.append(b"".join(keys))
            starts.append(starts[-1] + len(keys))
        self._blob, self._starts = b"".join(blobs), starts

    @classmethod
    def joined(cls, parts: Iterable["NoteKeys"]) -> "NoteKeys":
        out = cls()
        blobs = []
        for part in parts:
            base = out._starts[-1]
            out._starts.extend(base + s for s in part._starts[1:])
            blobs.append(part._blob)
        out._blob = b"".join(blobs)
        return out

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, i: int) -> list[bytes]:  # type: ignore[override]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        blob = self._blob
        return [blob[at:at + DIGEST] for at in range(self._starts[i] * DIGEST, self._starts[i + 1] * DIGEST, DIGEST)]

    def __iter__(self) -> Iterator[list[bytes]]:
        return (self[i] for i in range(len(self)))

    def as_bytes(self) -> bytes:
        """Every key, note after note, 32 bytes each, in one bytes object."""
        return self._blob

    def bounds(self) -> np.ndarray:
        """Where each note's keys start among all the keys, and (last) how many there are (int64)."""
        return np.frombuffer(self._starts, np.int64)

    def all(self) -> list[bytes]:
        """Every key, note after note."""
        blob = self._blob
        return [blob[at:at + DIGEST] for at in range(0, len(blob), DIGEST)]

    def distinct_sorted(self) -> bytes:
        """Every distinct key once, in byte order, joined: what identifies the notebook's passages (the
        floor's cache key). Sorted in numpy as raw bytes (void items compare as ``memcmp``, as bytes do):
        ``sorted(set(all()))`` took ~1.1 s of the vault's first meaning answer and left ~60 MB of freed
        objects in the heap; this takes 0.2 s (as fixed-width strings, 0.7 s)."""
        return np.unique(np.frombuffer(self._blob, dtype=f"V{DIGEST}")).tobytes()

    def layout(self, notes: Sequence[int]) -> tuple[list[bytes], list[bytes], list[int]]:
        """These notes' keys as the meaning index lays its rows out (semantic.note_rows), found for all the
        notes at once: one call per note took ~1 s of a 100,000-note vault's first meaning answer."""
        at = np.asarray(notes, np.int64)
        bounds = np.frombuffer(self._starts, np.int64)
        first, last = bounds[at], bounds[at + 1] - 1  # a note's passages, then its whole text's key
        counts = last - first
        ends = np.cumsum(counts)
        starts = ends - counts
        passages = np.repeat(first - starts, counts) + np.arange(int(ends[-1]) if len(ends) else 0)
        blob = self._blob
        return ([blob[k * DIGEST:(k + 1) * DIGEST] for k in passages.tolist()],
                [blob[k * DIGEST:(k + 1) * DIGEST] for k in last.tolist()], starts.tolist())
