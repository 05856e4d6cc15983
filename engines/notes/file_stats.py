"""Each source file's stat as its notes were read, held for the saved index (engines/notes/store.py).

Held as columns, not an object a file: on the 100,000-note vault the FileStat objects, with their
ints and their hex digests, held 25.5 MB of a warm open; these columns hold ~4 MB (the paths are the
notes' own strings). A FileStat is made only for the one file asked about.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

DIGEST_BYTES = 16  # the saved digest: blake2b's first 32 hex characters


@dataclass(slots=True)
class FileStat:
    size: int  # -1: not trusted (read again next open)
    mtime_ns: int
    digest: str | None  # blake2b of the bytes (32 hex characters)
    problems: Sequence  # [[path, cause, skipped]]: said again on each open, as a fresh read says them
    dated_by_mtime: bool  # a note took the file's mtime as its date: a new mtime means a new date


class FileStats:
    """path -> FileStat, in the order added, as columns."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._sizes = array("q")
        self._mtimes = array("q")
        self._digests = bytearray()  # DIGEST_BYTES a file; zeros where it has none
        self._flags = bytearray()  # bit 1: has a digest; bit 2: dated by its mtime
        self._problems: dict[int, Sequence] = {}

    def __len__(self) -> int:
        return len(self.paths)

    def add(self, path: str, size: int, mtime_ns: int, digest: str | None, problems: Sequence,
            dated_by_mtime: bool) -> None:
        """One more file, as FileStat's fields (no FileStat made: 100,000 of them on an open)."""
        raw = _raw(digest)
        self.paths.append(path)
        self._sizes.append(size)
        self._mtimes.append(mtime_ns)
        self._digests += raw or bytes(DIGEST_BYTES)
        self._flags.append((1 if raw else 0) | (2 if dated_by_mtime else 0))
        if problems:
            self._problems[len(self.paths) - 1] = problems

    def rows(self) -> dict[str, int]:
        """path -> its row (made when asked: a save, the watcher; not held)."""
        return {path: i for i, path in enumerate(self.paths)}

    def row(self, i: int) -> FileStat:
        flags = self._flags[i]
        digest = self._digests[i * DIGEST_BYTES:(i + 1) * DIGEST_BYTES].hex() if flags & 1 else None
        return FileStat(self._sizes[i], self._mtimes[i], digest, self._problems.get(i, ()), bool(flags & 2))

    def get(self, path: str) -> FileStat | None:
        i = self.rows().get(path)
        return None if i is None else self.row(i)

    def items(self) -> Iterator[tuple[str, FileStat]]:
        return ((path, self.row(i)) for i, path in enumerate(self.paths))

    def distrust(self, paths: Iterable[str]) -> None:
        """These files are read again at the next open, whatever their stat then."""
        rows = self.rows()
        for path in paths:
            i = rows.get(path)
            if i is not None:
                self._sizes[i] = -1

    def copy(self) -> "FileStats":
        kept = FileStats()
        kept.paths = list(self.paths)
        kept._sizes, kept._mtimes = array("q", self._sizes), array("q", self._mtimes)
        kept._digests, kept._flags = bytearray(self._digests), bytearray(self._flags)
        kept._problems = dict(self._problems)
        return kept


def _raw(digest: str | None) -> bytes | None:
    """The digest's bytes; None for none, or for one that is not what a save writes (a damaged index:
    the file is then hashed again when its stat changes, as one never hashed)."""
    if not digest:
        return None
    try:
        raw = bytes.fromhex(digest)
    except ValueError:
        return None
    return raw if len(raw) == DIGEST_BYTES else None
