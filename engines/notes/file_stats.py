"""Each source file's stat as its notes were read, held for the saved index (engines/notes/store.py).

Held as columns, not an object a file: on the 100,000-note vault the FileStat objects, with their
ints and their hex digests, held 25.5 MB of a warm open; these columns hold ~4 MB (the paths are the
notes' own strings). A FileStat is made only for the one file asked about.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Iterable, Sequence

from engines.notes.columns import DIGEST_BYTES

_NO_DIGEST = bytes(DIGEST_BYTES)


@dataclass(slots=True)
class FileStat:
    size: int  # -1: not trusted (read again next open)
    mtime_ns: int
    digest: bytes | None  # blake2b of the bytes (its first DIGEST_BYTES)
    problems: Sequence  # [[path, cause, skipped]]: said again on each open, as a fresh read says them
    dated_by_mtime: bool  # a note took the file's mtime as its date: a new mtime means a new date


class FileStats:
    """path -> FileStat, in the walk's order, as columns."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._sizes = array("q")
        self._mtimes = array("q")
        self._digests = bytearray()  # DIGEST_BYTES a file; zeros where it has none
        self._flags = bytearray()  # bit 1: has a digest; bit 2: dated by its mtime
        self._problems: dict[int, Sequence] = {}

    def __len__(self) -> int:
        return len(self.paths)

    @classmethod
    def of(cls, paths: list[str], sizes: Sequence[int], mtimes_ns: Sequence[int], digests: Sequence[bytes | None],
           problems: dict[int, Sequence], dated_by_mtime: Sequence[bool]) -> "FileStats":
        """Every file at once, by column (``problems`` by row, only where there are any)."""
        stats = cls()
        stats.paths = paths
        stats._sizes, stats._mtimes = array("q", sizes), array("q", mtimes_ns)
        stats._digests = bytearray(b"".join([d or _NO_DIGEST for d in digests]))
        stats._flags = bytearray([(1 if d else 0) | (2 if dated else 0) for d, dated in zip(digests, dated_by_mtime)])
        stats._problems = problems
        if not len(paths) == len(stats._sizes) == len(stats._mtimes) == len(stats._flags):
            raise ValueError("file stats of unequal lengths")
        return stats

    def rows(self) -> dict[str, int]:
        """path -> its row (made when asked: a save, the watcher; not held)."""
        return {path: i for i, path in enumerate(self.paths)}

    def row(self, i: int) -> FileStat:
        flags = self._flags[i]
        digest = bytes(self._digests[i * DIGEST_BYTES:(i + 1) * DIGEST_BYTES]) if flags & 1 else None
        return FileStat(self._sizes[i], self._mtimes[i], digest, self._problems.get(i, ()), bool(flags & 2))

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

