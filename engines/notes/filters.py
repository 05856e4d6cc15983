"""Filters read from a notes query, applied inside every tier before anything is ranked.

    #garden  tag:garden        notes carrying the tag (nested tags too: #garden matches garden/veg)
    in:kitchen                 notes in that folder, at any depth (in:garden/cold-frames: a path of folders)
    path:bread                 notes whose file path holds the text
    after:2024-03-01           notes dated that day or later (front matter date, else the file's mtime)
    before:2024-03-01          notes dated before that day (YYYY, YYYY-MM and YYYY-MM-DD are read)

Several filters all apply (a note must pass each kind); several ``in:`` or ``path:`` are
alternatives. What is left of the query is searched as usual. A word that looks like a filter but
is not one (``after:soon``, a tag no note carries, a folder the notebook does not have) is searched
as a word, and the answer's ``understood`` says so: a typo never silently empties an answer.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Sequence

from engines.notes.corpus import Note

KEYS = {"tag": "tag", "tags": "tag", "in": "in", "folder": "in", "path": "path", "after": "after", "before": "before"}
SHAPED = re.compile(r"^([A-Za-z]+):(.*)$")
HASHTAG = re.compile(r"^#([^\W\d_][\w/-]*)$")
DATE = re.compile(r"^(\d{4})(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?$")
SYNTAX = "#tag, tag:NAME, in:FOLDER, path:TEXT, after:YYYY-MM-DD, before:YYYY-MM-DD"


@dataclass
class Filters:
    tags: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    after: tuple[str, float] | None = None  # (as written, seconds since the epoch)
    before: tuple[str, float] | None = None

    @property
    def active(self) -> bool:
        return bool(self.tags or self.folders or self.paths or self.after or self.before)

    def allows(self, note: Note) -> bool:
        if self.tags:
            held = {t.casefold() for t in note.tags}
            if not all(any(h == t or h.startswith(t + "/") for h in held) for t in self.tags):
                return False
        if self.folders and not any(_in_folder(note, f) for f in self.folders):
            return False
        if self.paths and not any(p in _file_of(note).casefold() for p in self.paths):
            return False
        if self.after and (note.date is None or note.date < self.after[1]):
            return False
        if self.before and (note.date is None or note.date >= self.before[1]):
            return False
        return True


@dataclass
class ReadQuery:
    words: str  # the query without its filters: what the tiers search
    filters: Filters
    said: list[str] = field(default_factory=list)  # words that looked like filters, searched as words: why

    def understood(self) -> dict:
        f = self.filters
        return {"words": self.words, "tags": list(f.tags), "folders": list(f.folders), "paths": list(f.paths),
                "after": f.after[0] if f.after else None, "before": f.before[0] if f.before else None,
                "notes": list(self.said)}

    @property
    def read_anything(self) -> bool:
        return self.filters.active or bool(self.said)


def might_filter(query: str) -> bool:
    """Cheap: could any word of the query be a filter? (Most queries: no, and nothing more is done.)"""
    return "#" in query or ":" in query


def read_query(query: str, notes: Sequence[Note]) -> ReadQuery:
    filters = Filters()
    kept: list[str] = []
    said: list[str] = []
    tags = folders = None  # what the notebook holds, gathered on first need
    for word in query.split():
        tag = HASHTAG.match(word)
        shaped = SHAPED.match(word)
        key = KEYS.get(shaped.group(1).casefold()) if shaped else None
        if not tag and key is None:
            kept.append(word)
            continue
        value = (tag.group(1) if tag else shaped.group(2)).strip().strip("/").casefold()
        if key in ("tag", None):
            value = value.lstrip("#")
            tags = tags if tags is not None else {t.casefold() for n in notes for t in n.tags}
            if value and any(t == value or t.startswith(value + "/") for t in tags):
                filters.tags.append(value)
                continue
            why = f"no note is tagged #{value}" if value else "a tag needs a name (#garden, tag:garden)"
        elif key == "in":
            folders = folders if folders is not None else {f for n in notes for f in _folders(n)}
            if value and value in folders:
                filters.folders.append(value)
                continue
            why = f"no folder {value!r} in this notebook" if value else "in: needs a folder (in:kitchen)"
        elif key == "path":
            if value:
                filters.paths.append(value)
                continue
            why = "path: needs some text (path:bread)"
        else:
            moment = _date(value)
            if moment is not None:
                setattr(filters, key, (value, moment))
                continue
            why = f"not a date ({key}:YYYY-MM-DD)"
        kept.append(word)
        said.append(f"{word!r} searched as a word: {why}")
    return ReadQuery(" ".join(kept), filters, said)


def _file_of(note: Note) -> str:
    """The note's file path relative to the notebook (an outline node: its file)."""
    return note.id.split("#", 1)[0] if "#" in note.id and note.where != note.id else note.id


def _folders(note: Note) -> set[str]:
    """Every folder path the note lies in: a/b/c.md -> {a, a/b, b} (any folder name, and each path from the top)."""
    parts = _file_of(note).casefold().split("/")[:-1]
    out = {"/".join(parts[:i]) for i in range(1, len(parts) + 1)}
    out.update(parts)
    out.update("/".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1))
    return out


def _in_folder(note: Note, folder: str) -> bool:
    return folder in _folders(note)


def _date(text: str) -> float | None:
    m = DATE.match(text)
    if not m:
        return None
    try:
        day = dt.date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()
