"""Files written whole or not at all: a temporary file beside the target, flushed to disk, renamed over
it. A reader (or a run killed midway) sees the old file or the new one, never half of one; a failed
write leaves no temporary file behind. Every cache and index the engines keep is written this way.
Processes that write one file take turns on an flock beside it (``taking_turns``).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Iterator


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "wb", prefix: str | None = None, suffix: str = ".tmp",
                sync_folder: bool = False) -> Iterator[IO]:
    """``with atomic_file(path) as out: out.write(...)``: ``path`` holds what was written once the block
    ends without an error. ``prefix``: the temporary file's name start (default ``.NAME.``: hidden, and
    a sweep can find what a crash left); ``sync_folder``: also flush the rename itself to disk."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix if prefix is not None else f".{path.name}.", suffix=suffix,
                               dir=path.parent)
    try:
        with os.fdopen(fd, mode) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_folder:
        with suppress(OSError):  # not every filesystem lets a folder be opened and synced
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)


@contextmanager
def taking_turns(lock: str | os.PathLike, shared: bool = False) -> Iterator[None]:
    """Held while a file is written (``shared``: read) by one process of several: an flock on ``lock``
    (made with its folder where missing), which the kernel lets go of when its holder dies. A reader
    opens the lock read-only (an flock needs no write access), and on a folder it cannot write (a
    read-only data folder, one that is missing) reads without it: no writer can be there either."""
    import fcntl

    lock = Path(lock)
    if shared:
        fd = _reader_lock(lock)
        if fd is None:  # nowhere a writer could be: the folder cannot be written (issue 57)
            yield
            return
    else:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor lets go of the flock


def _reader_lock(lock: Path) -> int | None:
    try:
        return os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        return os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None
