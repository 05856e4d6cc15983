"""The notes index's columns: every field of every note and source file comes back as written."""

from __future__ import annotations

import numpy as np
import pytest

from engines.notes.columns import FileColumns, NoteColumns, split_blob, strings_blob
from engines.notes.corpus import Note


def round_trip_strings(strings):
    blob, ends = strings_blob(strings)
    return split_blob(blob.decode("utf-8", "surrogatepass"), ends)


def test_strings_of_any_text_come_back_whole():
    strings = ["", "plain", "nul\0inside", "line\nbreaks", "é and 漢字", "lone \udc80 surrogate", "", "🦉"]
    assert round_trip_strings(strings) == strings
    assert round_trip_strings([]) == []


def test_notes_come_back_field_for_field():
    notes = [
        Note(id="a.md", title="A", body="", where="a.md", path="/v/a.md", tags=("x", "y"), content_hash="h1",
             date=1.5e9),
        Note(id="o.jsonl#2", title="Child\0odd", body="", where="o.jsonl:3", path="/v/o.jsonl", parent="o.jsonl#1",
             content_hash="h2", aliases=("kid", "sprog")),
        Note(id="b.md", title="", body="", where="b.md", path="/v/b.md", content_hash="h3", date=None),
    ]
    strings, shape, dates = NoteColumns.of(notes)
    columns = NoteColumns.read(round_trip_strings(strings), shape, dates)
    back = [columns.note(i, n.body, n.path) for i, n in enumerate(notes)]
    assert back == notes
    assert columns.ids() == ["a.md", "o.jsonl#2", "b.md"]
    assert columns.content_key(1) == ("h2", ("kid", "sprog"))


def test_files_come_back_with_their_problems():
    files = [["a.md", 10, 123, bytes(range(16)), 0, 1, [], False], ["o.jsonl", 20, 456, None, 1, 2, [["o.jsonl", "line 2: not JSON", False]], True]]
    strings, numbers, problems = FileColumns.of(files)
    columns = FileColumns.read(round_trip_strings(strings), numbers, problems, notes=3)
    back = [[rel, size, mtime_ns, digest, first, count, columns.problems.get(i, []), bool(dated)]
            for i, (rel, (size, mtime_ns, first, count, dated), digest)
            in enumerate(zip(columns.rels, columns.numbers, columns.digests))]
    assert back == files
    assert columns.index() == {"a.md": 0, "o.jsonl": 1}


def test_columns_that_disagree_are_refused():
    strings, shape, dates = NoteColumns.of([Note(id="a", title="A", body="", where="a", path="/a", tags=("t",))])
    with pytest.raises(ValueError):
        NoteColumns.read(strings[:-1], shape, dates)
    with pytest.raises(ValueError):
        FileColumns.read(["a.md", ""], np.array([[1, 2, 0, 5, 0]]), {}, notes=3)  # notes past the end
