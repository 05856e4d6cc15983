"""Keeping a notes engine live: watchfiles reports edits, the changed files are re-read.

Only the files that changed are loaded again; the semantic index then embeds only passages whose
text it has not seen (content hash), so one edit re-embeds one note.
"""

from __future__ import annotations

import os
from pathlib import Path

from engines.notes.corpus import load_file
from engines.notes.note_files import find_note_files, is_note_file
from engines.watching import FolderWatcher


class NotesWatcher(FolderWatcher):
    thread_name = "olai-notes-watch"

    def roots(self) -> list[str]:
        return [str(self.engine.root)]

    def recursive(self) -> bool:
        return self.engine.root.is_dir()  # an outline file is watched alone

    def is_watched_file(self, path: str) -> bool:
        return is_note_file(path)

    def files_under(self, folder: str) -> list[str]:
        return find_note_files(folder)[0]

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


def _hidden(path: Path, base: Path) -> bool:
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        return True
    return any(p.startswith(".") or p in ("__pycache__", "node_modules") for p in parts[:-1])
