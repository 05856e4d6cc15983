"""Every note's words as the notes index keeps them: one CSR row per note (its word ids and counts),
found again by what the note's words depend on, so words are counted again only for notes whose
text changed.

Apart from store.py, which saves and reads the index: these rows are what the words leg's BM25
matrix is built from, whether they came from a saved index or were counted in this process.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engines.notes.corpus import Note
from engines.notes.positions import Positions
from engines.notes.words import note_words, until_stopped

VOCAB_SLACK = 1000  # unused words kept before the vocabulary is compacted


def words_key(note: Note) -> str:
    """What a note's words depend on: its title and text (content_hash) and its aliases."""
    return words_key_of(note.content_hash, note.aliases)


def words_key_of(content_hash: str, aliases: tuple[str, ...]) -> str:
    if not aliases:
        return content_hash
    return hashlib.sha256("\0".join((content_hash,) + aliases).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Rows:
    """Every note's words as one CSR: row i is note i's word ids and counts; ``of``: words key -> row."""
    vocab: list[str]
    ids: dict[str, int]
    ptr: np.ndarray
    terms: np.ndarray
    tfs: np.ndarray
    of: Positions  # asked only when notes changed (made then: engines/notes/positions.py)


def assemble(saved: Rows | None, notes: Sequence[Note], keys: list[str], stop: threading.Event) -> Rows:
    """The words rows of ``notes``: saved rows by their key, the rest counted here (a Python loop
    only over the notes not seen before; words.Stopped once ``stop`` is set)."""
    vocab = list(saved.vocab) if saved is not None else []
    ids = dict(saved.ids) if saved is not None else {}
    found = np.fromiter(((saved.of.get(k, -1) if saved is not None else -1) for k in keys), dtype=np.int64,
                        count=len(keys))
    new_terms: list[int] = []
    new_tfs: list[int] = []
    new_lens: list[int] = []
    for i in until_stopped(np.flatnonzero(found < 0).tolist(), stop):
        counts = Counter(note_words(notes[i]))
        for word in counts:
            if word not in ids:
                ids[word] = len(vocab)
                vocab.append(word)
        new_terms += map(ids.__getitem__, counts)
        new_tfs += counts.values()
        new_lens.append(len(counts))
    old_ptr = saved.ptr if saved is not None else np.zeros(1, dtype=np.int64)
    base = len(old_ptr) - 1  # new rows follow the saved ones: row base + j is the j-th new note
    ptr = np.concatenate((np.asarray(old_ptr, dtype=np.int64), old_ptr[-1] + np.cumsum(new_lens, dtype=np.int64)))
    terms = np.concatenate((saved.terms if saved is not None else np.zeros(0, np.int32),
                            np.asarray(new_terms, np.int32)))
    tfs = np.concatenate((saved.tfs if saved is not None else np.zeros(0, np.int32), np.asarray(new_tfs, np.int32)))
    rows = found.copy()
    rows[found < 0] = base + np.arange(int((found < 0).sum()))
    starts, lens = ptr[rows], ptr[rows + 1] - ptr[rows]
    out_ptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    gather = np.repeat(starts - out_ptr[:-1], lens) + np.arange(int(out_ptr[-1]), dtype=np.int64)
    terms, tfs = terms[gather], tfs[gather]
    used = np.unique(terms)
    if len(vocab) - len(used) > max(VOCAB_SLACK, len(used) // 2):
        # words no note holds any more (notes deleted or edited in a long session): dropped, so the
        # vocabulary does not grow for the life of the process; word ids are renumbered (scores unchanged)
        renumber = np.full(len(vocab), -1, dtype=np.int32)
        renumber[used] = np.arange(len(used), dtype=np.int32)
        vocab = [vocab[i] for i in used.tolist()]
        ids = {word: i for i, word in enumerate(vocab)}
        terms = renumber[terms]
    return Rows(vocab, ids, out_ptr, terms, tfs, Positions(keys))


def empty_matrix(words: int) -> dict[str, np.ndarray]:
    return {"data": np.zeros(0, np.float32), "indices": np.zeros(0, np.int32), "indptr": np.zeros(words + 1, np.int64)}
