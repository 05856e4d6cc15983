"""Each note's text keys in one bytes object (engines/notes/note_keys.py): read back as the lists they were."""

import hashlib

import pytest

from engines.notes.note_keys import NoteKeys
from engines.notes.semantic import note_rows


def test_each_notes_keys_come_back_as_given_alone_or_joined_from_parts():
    per_note = [[hashlib.sha256(f"{n}-{k}".encode()).digest() for k in range(n % 4 + 1)] for n in range(50)]
    keys = NoteKeys(per_note)
    assert len(keys) == 50 and list(keys) == per_note and keys[-1] == per_note[-1]
    assert keys.all() == [k for of_note in per_note for k in of_note]
    joined = NoteKeys.joined([NoteKeys(per_note[:7]), NoteKeys([]), NoteKeys(per_note[7:])])
    assert list(joined) == per_note and joined.all() == keys.all()
    for notes in ([], [3], [5, 1, 7, 49], list(range(50))):
        assert keys.layout(notes) == note_rows(per_note, notes), "laid out as the index lays out lists"
    with pytest.raises(IndexError):
        keys[50]
    assert list(NoteKeys()) == [] and NoteKeys().all() == []


def test_the_distinct_sorted_keys_are_those_python_sorts_even_with_trailing_zero_bytes_and_repeats():
    digests = [hashlib.sha256(str(n).encode()).digest() for n in range(40)]
    odd = [b"\x00" * 32, b"a" + b"\x00" * 31, b"a" + b"\x00" * 30 + b"\x01", b"\xff" * 32]
    per_note = [digests[n:n + 3] + odd[n % 4:n % 4 + 1] for n in range(0, 40, 2)] + [digests[:5]]
    keys = NoteKeys(per_note)
    assert keys.distinct_sorted() == b"".join(sorted(set(keys.all())))
    assert NoteKeys().distinct_sorted() == b""
