"""The notes index's notes and source files as columns: strings in one text with their ends, numbers
in arrays. Read back by slicing, not by parsing JSON.

In format 1 they were JSON lists, one per note and one per file (the notes' in notes.G.json, the
files' in the manifest). At 100,000 notes (/tmp/vault-100k, warm, quiet, 2026-12-03 00:40 UTC, the
collector paused as the engine pauses it) reading the index took 0.57-0.59 s with them and 0.49 s
as columns; with the bodies' ends read as a list and the index read while the folder is walked,
the engine's warm open went from 2.20-2.27 s to 2.05-2.11 s (three alternated runs each).

A note's strings, in order: id, title, where ("" when it is the id), content hash, its tags, its
aliases, its parent (when it has one); ``note_shape`` holds per note how many tags and aliases and
whether it has a parent, ``note_dates`` its date (NaN: none). A file's strings: its path relative to
the folder and its blake2b ("" when none); ``file_numbers`` per file: size, mtime_ns, first note,
notes, dated by mtime (0/1); its problems are few and stay JSON, by file number.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Sequence

import numpy as np

from engines.notes.bodies import SavedBody
from engines.notes.corpus import Note, keep_body

# Each field's slot setter, in the dataclass's order (the body's is the slot behind its property,
# engines/notes/corpus.py); note() below sets them in this order.
(_id, _title, _body, _where, _path, _tags, _parent, _hash, _aliases, _date) = (
    keep_body if f.name == "body" else Note.__dict__[f.name].__set__ for f in dataclasses.fields(Note))
FIXED = 4  # id, title, where, content hash
DIGEST_BYTES = 16  # a source file's digest: blake2b's first 16 bytes (engines/notes/store.py)


def strings_blob(strings: Sequence[str]) -> tuple[bytes, np.ndarray]:
    """The strings as one UTF-8 text and the character offset where each ends."""
    ends = np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)))
    return "".join(strings).encode("utf-8", "surrogatepass"), ends


def split_blob(text: str, ends: np.ndarray) -> list[str]:
    """The strings strings_blob joined (``text`` decoded)."""
    bounds = ends.tolist()
    return [text[a:b] for a, b in zip([0] + bounds[:-1], bounds)]


@dataclasses.dataclass
class NoteColumns:
    strings: list[str]  # every note's strings, note after note (module doc)
    first: list[int]  # per note, its first string
    shape: list[list[int]]  # per note: tags, aliases, has a parent
    dates: list[float | None]
    # one tuple per distinct set of tags, shared by the notes that have it: the vault's 100,000 notes
    # have a few hundred, and a tuple each held 6.4 MB (tracemalloc)
    tag_sets: dict[tuple, tuple] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.first)

    @staticmethod
    def of(notes: Sequence[Note]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(strings, shape, dates) to write."""
        strings: list[str] = []
        shape = np.zeros((len(notes), 3), dtype=np.int32)
        dates = np.full(len(notes), np.nan)
        for i, note in enumerate(notes):
            strings += (note.id, note.title, "" if note.where == note.id else note.where, note.content_hash)
            strings += note.tags
            strings += note.aliases
            if note.parent is not None:
                strings.append(note.parent)
            shape[i] = (len(note.tags), len(note.aliases), note.parent is not None)
            if note.date is not None:
                dates[i] = note.date
        return strings, shape, dates

    @classmethod
    def read(cls, strings: list[str], shape: np.ndarray, dates: np.ndarray) -> "NoteColumns":
        if shape.ndim != 2 or shape.shape[1] != 3 or len(dates) != len(shape) or (shape < 0).any():
            raise ValueError("note columns of another shape")
        counts = FIXED + shape.sum(axis=1, dtype=np.int64)
        first = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        if int(counts.sum()) != len(strings):
            raise ValueError("note strings and shapes disagree")
        # One string per distinct tag, not one per note that has it: the vault's 200,310 tags are 29
        # words, and their copies held ~12 MB.
        tag_counts = shape[:, 0].astype(np.int64)
        tag_at = np.repeat(first + FIXED - np.cumsum(tag_counts) + tag_counts, tag_counts) + np.arange(int(tag_counts.sum()))
        for at in tag_at.tolist():
            strings[at] = sys.intern(strings[at])
        return cls(strings, first.tolist(), shape.tolist(), [None if d != d else d for d in dates.tolist()])

    def ids(self) -> list[str]:
        strings = self.strings
        return [strings[at] for at in self.first]

    def content_key(self, i: int) -> tuple[str, tuple[str, ...]]:
        """(content hash, aliases) of note i: what its words depend on."""
        at, (tags, aliases, _) = self.first[i], self.shape[i]
        return self.strings[at + 3], tuple(self.strings[at + FIXED + tags:at + FIXED + tags + aliases])

    def with_aliases(self) -> list[int]:
        return [i for i, (_, aliases, _) in enumerate(self.shape) if aliases]

    def note(self, i: int, body: str | SavedBody, path: str) -> Note:
        """Note i as a Note, each slot set straight (the frozen dataclass's __init__ goes through
        object.__setattr__ and the body's property: 100,000 notes in 0.19 s, not 0.14)."""
        s, at = self.strings, self.first[i]
        tags, aliases, parent = self.shape[i]
        tail = at + FIXED
        note = object.__new__(Note)
        tag_set = tuple(s[tail:tail + tags])
        _id(note, s[at])
        _title(note, s[at + 1])
        _body(note, body)
        _where(note, s[at + 2] or s[at])
        _path(note, path)
        _tags(note, self.tag_sets.setdefault(tag_set, tag_set))
        _parent(note, s[tail + tags + aliases] if parent else None)
        _hash(note, s[at + 3])
        _aliases(note, tuple(s[tail + tags:tail + tags + aliases]) if aliases else ())
        _date(note, self.dates[i])
        return note


@dataclasses.dataclass
class FileColumns:
    """Per source file: (relative path, size, mtime_ns, blake2b or None, first note, notes, problems, dated).
    A digest is DIGEST_BYTES bytes in memory, their hex in the file."""

    rels: list[str]
    numbers: list[list[int]]  # size, mtime_ns, first, count, dated
    digests: list[bytes | None]
    problems: dict[int, list]

    @staticmethod
    def of(files: Sequence[list]) -> tuple[list[str], np.ndarray, dict[str, list]]:
        """(strings, numbers, problems) to write, from [rel, size, mtime_ns, digest, first, count, problems, dated]."""
        strings: list[str] = []
        numbers = np.zeros((len(files), 5), dtype=np.int64)
        problems: dict[str, list] = {}
        for i, (rel, size, mtime_ns, digest, first, count, said, dated) in enumerate(files):
            strings += (rel, digest.hex() if digest else "")
            numbers[i] = (size, mtime_ns, first, count, dated)
            if said:
                problems[str(i)] = said
        return strings, numbers, problems

    @classmethod
    def read(cls, strings: list[str], numbers: np.ndarray, problems: dict, notes: int) -> "FileColumns":
        if numbers.ndim != 2 or numbers.shape[1] != 5 or 2 * len(numbers) != len(strings):
            raise ValueError("file columns of another shape")
        if len(numbers) and ((numbers[:, 2] < 0).any() or (numbers[:, 3] < 0).any()
                             or (numbers[:, 2] + numbers[:, 3] > notes).any()):
            raise ValueError("a file's notes outside the notes")
        said = {int(k): v for k, v in problems.items()}
        if any(not 0 <= k < len(numbers) or not isinstance(v, list) for k, v in said.items()):
            raise ValueError("problems of no file")
        return cls(strings[0::2], numbers.tolist(), [digest_bytes(d) for d in strings[1::2]], said)

    def index(self) -> dict[str, int]:
        return {rel: i for i, rel in enumerate(self.rels)}


def digest_bytes(saved: str) -> bytes | None:
    """A saved digest's bytes; None for none, or for one that is not what a save writes (a damaged
    index: the file is hashed again when its stat changes, as one never hashed)."""
    if len(saved) != 2 * DIGEST_BYTES:
        return None
    try:
        return bytes.fromhex(saved)
    except ValueError:
        return None
