"""What a load reports for the input it could not use: one line per file, line or folder.

One shape for every engine: notes name a file or ``file:LINE`` of an outline, code a file or a
folder (``dir/``), products ``file:LINE`` of a catalogue. Bad input never stops a load; each bad
piece is named once with its cause.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Problem:
    path: str  # the file, "file:LINE" or "folder/", relative to the corpus root, as named to the user
    cause: str
    skipped: bool = True  # False: the item was still read (a note's malformed front matter, read as text)

    def __str__(self) -> str:
        return f"{self.path}: {self.cause}"

    def said(self) -> str:
        """The line a user reads: "skipped PATH: CAUSE", or "PATH: CAUSE" for an item still read."""
        return f"skipped {self}" if self.skipped else str(self)

    @property
    def where(self) -> str:
        """The catalogue readers' name for ``path`` ("file:line")."""
        return self.path
