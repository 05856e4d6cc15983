"""One process builds a vector cache entry at a time; the others follow what it embeds.

The builder is the process holding ``flock`` on ``<file>.lock`` (``lead``): the kernel lets go of it
when the holder dies, however it dies (fcntl from the standard library, no dependency; the filelock
package's Unix lock is the same call). The builder appends each batch to ``<file>.journal`` as it
lands (fixed-size records: digest, vector, CRC-32 of both; a torn tail costs the torn record) and
starts the journal anew after each save. Another process that needs the same vectors follows
(``refresh``): it reads the file when a save replaced it and the journal as it grows, so it answers
from what the builder embedded, and takes the lock over when the builder is gone, losing at most the
batch that was being embedded.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.atomic import atomic_file
from engines.embed.digests import DIGEST
from engines.embed.vector_file import ROW_CHECK

LOCK_SUFFIX = ".lock"
JOURNAL_SUFFIX = ".journal"


def records(keys: Sequence[bytes], vectors) -> bytes:
    """Journal records of these rows: digest, float32 vector, CRC-32 of both."""
    out = bytearray()
    for key, row in zip(keys, vectors):
        record = bytes(key) + np.ascontiguousarray(row, dtype="<f4").tobytes()
        out += record + struct.pack("<I", zlib.crc32(record))
    return bytes(out)


def read_records(data: bytes, dims: int) -> tuple[dict[bytes, np.ndarray], int]:
    """The whole records in ``data`` whose check holds, digest -> vector, and the bytes they span (a
    torn last record is left for the next read)."""
    size = DIGEST + dims * 4 + ROW_CHECK
    whole = len(data) // size
    found: dict[bytes, np.ndarray] = {}
    for i in range(whole):
        record = data[i * size:(i + 1) * size]
        body, (check,) = record[:-ROW_CHECK], struct.unpack("<I", record[-ROW_CHECK:])
        if zlib.crc32(body) == check:
            found[body[:DIGEST]] = np.frombuffer(body[DIGEST:], "<f4").copy()
    return found, whole * size


class SharedEntry:
    """The builder's lock and journal of a VectorCache (which this is mixed into: its ``path``,
    ``directory``, ``dims``, ``_rows``, ``_saved``, ``_lock``, ``_saving``, ``_persist``, ``_newer_file``,
    and the ``_leader``, ``_journal`` and ``_journal_read`` it sets up for this)."""

    @property
    def leading(self) -> bool:
        return self._leader is not None

    def lead(self, journal: bool = True) -> bool:
        """Become this entry's builder, unless another process is (True: this one builds now);
        ``journal``: append each batch to the journal (an index cheap to build again needs none)."""
        if self._leader is not None:
            return True
        if not self._persist:
            return True  # nothing on disk to share: no one to follow
        import fcntl  # POSIX; the cache is not shared where it is missing

        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(str(self.path) + LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return True  # no lock can be made (a read-only folder): no file can be shared either
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._leader = fd
        if not journal:
            return True
        try:
            self._journal = os.open(str(self.path) + JOURNAL_SUFFIX, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:
            self._journal = None
        return True

    def let_go(self) -> None:
        """Stop building: the lock goes, so another process may take the entry over."""
        with self._lock:
            journal, self._journal = self._journal, None
            leader, self._leader = self._leader, None
        if journal is not None:
            os.close(journal)
        if leader is not None:
            os.close(leader)  # closing the descriptor lets go of the flock

    def refresh(self) -> list[bytes]:
        """Take in what the builder saved or journalled since this process last looked; the keys new here."""
        before = set(self._rows)
        with self._saving:
            theirs = self._newer_file()
            if theirs is not None:
                try:
                    stat = self.path.stat()
                except OSError:
                    stat = None
                with self._lock:
                    old = self._saved
                    self._saved = theirs
                    self._rows = {k: v for k, v in self._rows.items() if k not in theirs.at}
                    if stat is not None:
                        self._loaded_stat = (stat.st_mtime_ns, stat.st_size)
                new = [k for k in theirs.at if old is None or k not in old.at]
                new = [k for k in new if k not in before]
            else:
                new = []
        return new + self._read_journal()

    def _append(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        try:
            os.write(self._journal, records(keys, vectors))
        except OSError:
            pass  # a full disk: the rows stay in memory for the next save, which says what failed

    def _read_journal(self) -> list[bytes]:
        """Rows the builder journalled since the last read (all of them if the journal was started anew)."""
        path = str(self.path) + JOURNAL_SUFFIX
        try:
            with open(path, "rb") as fh:
                stat = os.fstat(fh.fileno())
                inode, offset = self._journal_read
                if stat.st_ino != inode or stat.st_size < offset:
                    offset = 0
                fh.seek(offset)
                data = fh.read()
        except OSError:
            return []
        added, spanned = read_records(data, self.dims)
        self._journal_read = (stat.st_ino, offset + spanned)
        if not added:
            return []
        with self._lock:
            saved, rows = self._saved, dict(self._rows)
            new = [k for k in added if k not in rows and (saved is None or k not in saved.at)]
            for k in new:
                rows[k] = added[k]
            self._rows = rows
        return new

    def _journal_anew(self) -> None:
        """After a save: the journal holds only the rows the file does not (put while it was written)."""
        if self._journal is None:
            return
        path = Path(str(self.path) + JOURNAL_SUFFIX)
        with self._lock:
            saved, rows = self._saved, dict(self._rows)
        left = [k for k in rows if saved is None or k not in saved.at]
        try:
            with atomic_file(path, prefix=path.name + ".") as out:
                out.write(records(left, [rows[k] for k in left]))
            journal = os.open(path, os.O_WRONLY | os.O_APPEND)
        except OSError:
            return
        with self._lock:
            old, self._journal = self._journal, journal
        os.close(old)
