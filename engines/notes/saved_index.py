"""A saved generation of the notes index read back (engines/notes/store.py's docstring lays it out):
the notes' fields, their bodies, the words rows and matrix, and the exact tier's parts.

Apart from store.py, which decides what an open reuses and writes a new generation: this reads one,
on a thread of its own while the folder is walked, and says when it cannot be used (``Stale``).
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from pathlib import Path

import numpy as np

from engines.index_folder import MANIFEST, Stale, load_array, map_bytes, read_manifest
from engines.notes import trigrams
from engines.notes.bodies import SavedBodies
from engines.notes.columns import FileColumns, NoteColumns, split_blob
from engines.notes.corpus import Note
from engines.notes.positions import Positions
from engines.notes.word_rows import Rows, words_key_of

# the layout's version: store.py writes it, a read here takes no other
FORMAT = 3  # 2: notes and source files as columns (engines/notes/columns.py), not JSON lists; 3: bodies
# ended in bytes, read when asked for (engines/notes/bodies.py)


def saved_source_files(folder: Path) -> int:
    """How many source files the saved index in ``folder`` holds, as its manifest says (0: none, or
    it does not say: the open walks here, and the read names any fault)."""
    try:
        count = json.loads((folder / MANIFEST).read_bytes()).get("source_files")
    except (OSError, ValueError, AttributeError):
        return 0
    return count if isinstance(count, int) else 0


class Reading(threading.Thread):
    """The saved index read on a thread of its own: ``saved`` (None: none, or unusable: ``stale`` says why)."""

    def __init__(self, folder: Path, top: str) -> None:
        super().__init__(name="notes-index-read", daemon=True)
        self.folder, self.top = folder, top
        self.saved: SavedGeneration | None = None
        self.stale: Stale | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            try:
                self.saved = SavedGeneration.read(self.folder, self.top)
            except Stale:
                # another process (or this one's last save) may have moved the manifest on and removed
                # the generation being read: a second read finds the new one; a damaged index fails again
                self.saved = SavedGeneration.read(self.folder, self.top)
        except Stale as why:
            self.stale = why
        except BaseException as error:  # noqa: BLE001 - raised again on the opening thread
            self.error = error

    def join(self, timeout: float | None = None) -> None:
        super().join(timeout)
        if self.error is not None:
            raise self.error

    def read(self) -> None:
        """The same read on the calling thread."""
        self.run()
        if self.error is not None:
            raise self.error


class SavedGeneration:
    """One saved generation, read back: the notes' fields, their bodies, the words rows and matrix."""

    def __init__(self, folder: Path, manifest: dict) -> None:
        generation = manifest.get("generation")
        try:
            names = {name.split(".")[0]: name for name in manifest["files"]}
            if any(name.split(".")[1] != generation for name in manifest["files"]):
                raise KeyError("generation")

            def strings(name: str) -> list[str]:
                text = (folder / names[name]).read_bytes().decode("utf-8", "surrogatepass")
                ends = load_array(folder, names[f"{name[:-1]}_ends"], mmap=False)
                if len(ends) and int(ends[-1]) != len(text):
                    raise ValueError(f"{name} disagrees with its ends")
                return split_blob(text, ends)

            self.notes = NoteColumns.read(strings("note_strings"), load_array(folder, names["note_shape"], mmap=False),
                                          load_array(folder, names["note_dates"], mmap=False))
            self.files = FileColumns.read(strings("file_strings"),
                                          load_array(folder, names["file_numbers"], mmap=False),
                                          manifest["problems"], len(self.notes))
            self.file_of = self.files.index()
            self.bodies = SavedBodies(folder / names["bodies"], load_array(folder, names["body_ends"], mmap=False))
            vocab = json.loads((folder / names["vocab"]).read_bytes().decode("utf-8", "surrogatepass"))
            ptr = load_array(folder, names["rows_ptr"])
            self.keys = self._words_keys()
            self.rows = Rows(vocab, {w: i for i, w in enumerate(vocab)}, ptr, load_array(folder, names["rows_terms"]),
                             load_array(folder, names["rows_tfs"]), Positions(self.keys))
            self.matrix = {k: load_array(folder, names[f"bm25_{k}"]) for k in ("data", "indices", "indptr")}
            self.exact = self._exact_parts(folder, names)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OSError) as error:
            raise Stale(f"damaged ({type(error).__name__}: {' '.join(str(error).split())[:60]})") from None
        if not (len(self.notes) == len(self.bodies) == len(ptr) - 1 and len(self.matrix["indptr"]) == len(vocab) + 1):
            raise Stale("damaged (its arrays disagree in length)")

    def _exact_parts(self, folder: Path, names: dict[str, str]) -> tuple | None:
        if "exact" not in names or "exact_bounds" not in names:
            return None
        bounds = load_array(folder, names["exact_bounds"], mmap=False)
        haystack = map_bytes(folder, names["exact"])
        if bounds.shape != (len(self.notes), 3) or (len(bounds) and int(bounds[-1, 0]) > len(haystack)):
            raise Stale("damaged (the exact haystack disagrees with the notes)")
        bloom = load_array(folder, names["exact_trigrams"]) if "exact_trigrams" in names else None
        if bloom is not None and bloom.shape != (trigrams.BITS // 64, len(self.notes)):
            raise Stale("damaged (the exact trigram filter disagrees with the notes)")
        return (haystack, array("q", bounds[:, 0].astype(np.int64).tobytes()),
                array("q", bounds[:, 1:].astype(np.int64).tobytes()), bloom)

    @classmethod
    def read(cls, folder: Path, top: str) -> "SavedGeneration | None":
        manifest = read_manifest(folder, FORMAT, top)
        return None if manifest is None else cls(folder, manifest)

    def every_note(self, top: str) -> tuple[list[Note], list[str], list[int]]:
        """Every saved note, each as if its file were where it was saved; with each file's path and
        where its notes start in that list (files read again or moved take theirs from notes_in)."""
        cut = top if top.endswith(os.sep) else top + os.sep
        paths = [cut + rel for rel in self.files.rels]  # as the walk names it (a non-ASCII name may not match)
        notes: list[Note] = []
        starts: list[int] = []
        for path, (_, _, first, count, _) in zip(paths, self.files.numbers):
            starts.append(len(notes))
            notes += self.notes_in(first, count, path)
        return notes, paths, starts

    def notes_in(self, first: int, count: int, path: str) -> list[Note]:
        """The notes of one file, saved as ``count`` notes from ``first``."""
        body, note = self.bodies.body, self.notes.note
        return [note(i, body(i), path) for i in range(first, first + count)]

    def _words_keys(self) -> list[str]:
        """Each note's words key (as word_rows.words_key), without making the notes."""
        keys = [self.notes.strings[at + 3] for at in self.notes.first]
        for i in self.notes.with_aliases():
            content_hash, aliases = self.notes.content_key(i)
            keys[i] = words_key_of(content_hash, aliases)
        return keys
