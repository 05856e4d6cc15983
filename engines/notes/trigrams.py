"""Which notes may hold a word: a Bloom filter of each note's byte trigrams, for the exact tier.

A note's row has a bit set for every three consecutive bytes of its folded text (hashed into
``BITS``); a word can only be in notes whose row has every bit of the word's own trigrams. The
filter never loses a note that holds the word (a trigram inside a note is always set); it lets
through some that do not, which the exact tier then checks with ``find`` in the note's bounds.

Why: the exact tier found a word by one ``find`` across the whole haystack: at 100,000 notes (66 MB
folded) that pass alone was 30-60 ms, whatever the word. With the filter, the longest query word's
candidates come from a few columns of one array (about 1 ms at 100,000 notes) and only they are
searched. Measured on tools/make_vault.py's vault (2026-12-02, the machine busy: tools numbers in
docs/bench-notes.md): 2,048 bits a note sets ~19 % of them; "palette" 312 candidates for 121
notes holding it, "friction" 3,878 for 862; words of common trigrams ("theme": the, hem, eme) still
let through a quarter of the vault, where checking the candidates costs what the pass did. 1,024
bits (a third of them set) let through about twice as many. 256 bytes a note: 25.6 MB at 100,000
notes, kept in the notes index so a vault opened again does not hash its text again.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

BITS = 2048
MIN_WORD = 4  # bytes: a three-byte word is one trigram, set in a fifth of the notes: the pass is as quick
_SHIFT = np.uint32(32 - 11)  # the top 11 bits of a 32-bit multiplicative hash: 2,048 slots
_GOLDEN = np.uint32(2654435761)
_NOTES_A_CHUNK = 4096  # a chunk's bit matrix is 4,096 x 2,048 booleans: 8 MB at a time


def _codes(text: np.ndarray) -> np.ndarray:
    """Each trigram's slot, for the trigram starting at every byte but the last two."""
    a = text.astype(np.uint32)
    return (((a[:-2] << 16) | (a[1:-1] << 8) | a[2:]) * _GOLDEN) >> _SHIFT


def build(haystack: bytes, starts: Sequence[int]) -> np.ndarray:
    """The filter of every note: (BITS // 64) x notes uint64, a column-major array (one row of words per
    slot group), so a query reads a few contiguous rows. ``starts``: each note's first byte; a note
    ends one byte (the separator) before the next starts. Only trigrams inside a note count, so a
    note's column depends on its own text alone (an edit copies the columns of the notes it kept)."""
    n = len(starts)
    out = np.zeros((n, BITS // 8), np.uint8)
    text = np.frombuffer(haystack, dtype=np.uint8)
    bounds = np.append(np.asarray(starts, dtype=np.int64), len(text))
    ends = bounds[1:] - 1
    if n:
        ends[-1] = len(text)  # the last note has no separator after it
    for first in range(0, n, _NOTES_A_CHUNK):
        last = min(n, first + _NOTES_A_CHUNK)
        chunk = text[bounds[first]:bounds[last]]
        if len(chunk) < 3:
            continue
        codes = _codes(chunk)
        owner = np.repeat(np.arange(last - first, dtype=np.int64), np.diff(bounds[first:last + 1]))[:len(codes)]
        inside = np.arange(len(codes), dtype=np.int64) + 3 <= ends[first:last][owner] - bounds[first]
        bits = np.zeros((last - first, BITS), dtype=bool)
        bits[owner[inside], codes[inside]] = True
        out[first:last] = np.packbits(bits, axis=1, bitorder="little")
    return np.ascontiguousarray(out.view(np.uint64).T)


def candidates(bloom: np.ndarray, *words: bytes) -> np.ndarray:
    """Ascending indices of the notes whose filter holds every trigram of every word (each len >= 3)."""
    wanted = np.zeros(BITS, dtype=bool)
    for word in words:
        wanted[_codes(np.frombuffer(word, dtype=np.uint8))] = True
    masks = np.packbits(wanted, bitorder="little").view(np.uint64)
    keep = None
    for row in np.flatnonzero(masks):
        holds = (bloom[row] & masks[row]) == masks[row]
        keep = holds if keep is None else keep & holds
    return np.flatnonzero(keep)
