"""The words leg's index: built in the background when the notes change, and always of the notes held now."""

from __future__ import annotations

import threading

from engines.notes.corpus import Note
from engines.notes.words import WordsIndex


def note(i: int, body: str) -> Note:
    return Note(id=f"n{i}", title=f"note {i}", body=body, where=f"n{i}.md", path=f"/n{i}.md", content_hash=str(i))


def test_a_search_always_reads_the_notes_held_now_however_fast_they_change():
    index = WordsIndex()
    for n in range(30):  # edits arrive faster than the background builds finish
        index.set_notes([note(i, "dielectric constant" if i == n else "plain text") for i in range(n + 1)])
    ranking = index.ranked("dielectric")
    assert ranking.scores.size == 30
    assert [ranking.notes[i].id for i in ranking.order] == ["n29"], "the last set of notes, not an older build"


def test_searches_while_the_index_builds_wait_for_that_one_build():
    index = WordsIndex()
    index.set_notes([note(i, f"word{i % 7} shared") for i in range(2000)])
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(index.ranked("word3").order.size)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert answers == [286] * 4  # 2000 notes, every seventh holds word3
    assert index._building == {}, "no build left pending"
