"""Keeping a notes engine live: watchfiles reports edits, the changed files are re-read.

Only the files that changed are loaded again; the semantic index then embeds only passages whose
text it has not seen (content hash), so one edit re-embeds one note.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engines.notes.corpus import _find_note_files, is_note_file, load_file
from engines.notes.engine import NotesEngine

DEBOUNCE_MS = 50  # watchfiles' default 1,600 ms would make an edit wait too long to show


class NotesWatcher:
    def __init__(self, engine: NotesEngine) -> None:
        self.engine = engine
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.changes_seen = 0

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="olai-notes-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        from watchfiles import watch

        root = self.engine.root
        try:
            for changes in watch(root, stop_event=self._stop, debounce=DEBOUNCE_MS, step=20,
                                 recursive=root.is_dir(), raise_interrupt=False):
                self.apply({path for _, path in changes})
        except Exception:  # noqa: BLE001 - a watcher failing (folder gone) leaves search as it was
            return

    def apply(self, paths: set[str]) -> None:
        """Re-read each changed path; a deleted or no-longer-note file drops its notes."""
        root = self.engine.root
        base = root if root.is_dir() else root.parent
        changed = {}
        for path in sorted(self._with_folders(paths)):
            if not is_note_file(path) or _hidden(Path(path), base):
                continue
            notes, problems = load_file(path, base) if os.path.isfile(path) else ([], [])
            changed[path] = notes
        if changed:
            self.engine.replace_files(changed)  # one rebuild for the whole batch
            self.changes_seen += len(changed)

    def _with_folders(self, paths: set[str]) -> set[str]:
        """The changed paths, a folder standing for the note files under it.

        A folder created and filled at once (an unzip, a git checkout, 1,000 notes written in a burst)
        is watched only from the moment its creation is seen: files written before that send no event
        (in the flood test 35 of 1,000 were never reported). So a new folder is read whole, and a
        folder gone takes every note under it."""
        out: set[str] = set()
        known: list[str] | None = None
        for path in paths:
            if os.path.isdir(path):
                out.update(_find_note_files(path)[0])
            elif not os.path.exists(path) and not is_note_file(path):
                known = self.engine.file_paths() if known is None else known
                inside = path.rstrip(os.sep) + os.sep
                out.update(p for p in known if p.startswith(inside))
            else:
                out.add(path)
        return out


def _hidden(path: Path, base: Path) -> bool:
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        return True
    return any(p.startswith(".") or p in ("__pycache__", "node_modules") for p in parts[:-1])
