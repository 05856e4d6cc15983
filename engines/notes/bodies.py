"""Note bodies read back from the notes index when asked for, not held in memory.

A warm open of a 100,000-note vault held every body as a str: 65 MB of its resident memory, read
once for the meaning tier's keys and then for the few notes a search shows. A note read back from
the index (engines/notes/store.py) holds a ``SavedBody``: its number in the index's bodies file,
an int whose class holds the file open; ``Note.body`` reads it with one ``pread``
(engines/notes/corpus.py). A generation the index has since replaced is still read through the open
handle (an unlinked file lives on until it is closed).
"""

from __future__ import annotations

import codecs
import os
import weakref
from array import array
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.notes.corpus import stored_body

ENCODING = "utf-8"
ERRORS = "surrogatepass"  # as the notes were decoded: a lone surrogate in a file's name or text survives
CHECK_BYTES = 8 << 20  # read per step while checking that the file decodes


class SavedBodies:
    """One bodies file (every body as UTF-8, one after the other) and where each body ends, in bytes."""

    def __init__(self, path: Path, ends: np.ndarray) -> None:
        handle = open(path, "rb")
        # closed once no note reads it: the notes' class refers to this object, so the collector frees both
        weakref.finalize(self, handle.close)
        self._fd = handle.fileno()
        self._handle = handle
        size = os.fstat(self._fd).st_size
        if len(ends) and int(ends[-1]) != size or (np.diff(ends) < 0).any() or (len(ends) and int(ends[0]) < 0):
            raise ValueError("the bodies file disagrees with its ends")
        self._ends = array("q", [0])  # 8 bytes a note; a list of ints held ~36
        self._ends.extend(ends.tolist())
        self._check()
        self.body = type("SavedBody", (SavedBody,), {"__slots__": (), "bodies": self})  # body(i): note i's

    def _check(self) -> None:
        """The file decodes (a damaged index is found at its open, not at some note's read), a step at a
        time: the text is not kept, and no step holds the whole file."""
        decoder = codecs.getincrementaldecoder(ENCODING)(ERRORS)
        at = 0
        while data := os.pread(self._fd, CHECK_BYTES, at):
            decoder.decode(data)
            at += len(data)
        decoder.decode(b"", final=True)  # UnicodeDecodeError, a ValueError, for the caller

    def __len__(self) -> int:
        return len(self._ends) - 1

    def raw(self, i: int) -> bytes:
        start, end = self._ends[i], self._ends[i + 1]
        return os.pread(self._fd, end - start, start) if end > start else b""

    def text(self, i: int) -> str:
        return _decoded(self.raw(i))

    def texts(self, first: int, count: int) -> list[str]:
        """Bodies first .. first + count - 1, by one read."""
        ends, base = self._ends, self._ends[first]
        data = os.pread(self._fd, ends[first + count] - base, base)
        return [_decoded(data[ends[i] - base:ends[i + 1] - base]) for i in range(first, first + count)]


class SavedBody(int):
    """A note's number in a bodies file, its body read when asked for. An int whose class knows the file
    (``SavedBodies.body``): one small object a note; an object holding the file and the number took
    two (8 MB at the 100,000-note vault)."""

    __slots__ = ()
    bodies: SavedBodies

    def text(self) -> str:
        return self.bodies.text(self)

    def raw(self) -> bytes:
        return self.bodies.raw(self)

    def __reduce__(self):  # a copied or pickled note carries its text, not an open file
        return str, (self.text(),)


def encoded(body: "str | SavedBody") -> bytes:
    """A body as the bodies file holds it: a saved one copied as its bytes, without decoding it."""
    return body.raw() if isinstance(body, SavedBody) else body.encode(ENCODING, ERRORS)


def _decoded(data: bytes) -> str:
    try:
        return data.decode(ENCODING, ERRORS)
    except UnicodeDecodeError:  # the file cut short under us (only another program does that)
        return data.decode(ENCODING, "replace")


def bodies_of(notes: Sequence) -> list[str]:
    """The notes' bodies; those read back from the index, one read for each run of consecutive ones (a
    read per note was ~0.3 s of the 100,000-note vault's keying for the meaning tier)."""
    stored = [stored_body(note) for note in notes]
    out: list[str] = []
    i = 0
    while i < len(stored):
        body = stored[i]
        if not isinstance(body, SavedBody):
            out.append(body)
            i += 1
            continue
        j = i + 1
        while j < len(stored) and stored[j].__class__ is body.__class__ and stored[j] == body + (j - i):
            j += 1
        out += body.bodies.texts(body, j - i)
        i = j
    return out
