"""Watching a corpus's folders with watchfiles: the thread, the debounce, and new or gone folders.

The notes and code watchers differ only in which files they read and how they apply a batch
(engines/notes/live.py, engines/code/live.py); this holds what they share.
"""

from __future__ import annotations

import os
import threading
from typing import Iterable

DEBOUNCE_MS = 50  # watchfiles' default 1,600 ms would make an edit wait too long to show


class FolderWatcher:
    """Starts a daemon thread that hands each debounced batch of changed paths to ``apply``.

    Subclasses say what to watch (``roots``), which files are theirs (``is_watched_file``,
    ``files_under``) and what a batch does (``apply``); ``engine.file_paths()`` lists the files read."""

    thread_name = "olai-watch"

    def __init__(self, engine) -> None:
        self.engine = engine
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.changes_seen = 0

    # -- what a subclass says -----------------------------------------------------------------------
    def roots(self) -> list[str]:
        raise NotImplementedError

    def recursive(self) -> bool:
        return True

    def is_watched_file(self, path: str) -> bool:
        raise NotImplementedError

    def files_under(self, folder: str) -> Iterable[str]:
        raise NotImplementedError

    def apply(self, paths: set[str]) -> None:
        raise NotImplementedError

    # -- the thread ----------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None and self.roots():
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        from watchfiles import watch

        try:
            for changes in watch(*self.roots(), stop_event=self._stop, debounce=DEBOUNCE_MS, step=20,
                                 recursive=self.recursive(), raise_interrupt=False):
                self.apply({path for _, path in changes})
        except Exception:  # noqa: BLE001 - a watcher failing (folder gone) leaves search as it was
            return

    def _with_folders(self, paths: set[str]) -> set[str]:
        """The changed paths, a folder standing for the watched files under it.

        A folder created and filled at once (an unzip, a git checkout, 1,000 files written in a burst)
        is watched only from the moment its creation is seen: files written before that send no event
        (in the flood tests 35 of 1,000 notes and 24 of 1,000 modules were never reported). So a new
        folder is read whole, and a folder gone takes every file read from under it."""
        out: set[str] = set()
        known: list[str] | None = None
        for path in paths:
            if os.path.isdir(path):
                out.update(self.files_under(path))
            elif not os.path.exists(path) and not self.is_watched_file(path):
                known = self.engine.file_paths() if known is None else known
                inside = os.path.abspath(path).rstrip(os.sep) + os.sep
                out.update(p for p in known if p.startswith(inside))
            else:
                out.add(path)
        return out
