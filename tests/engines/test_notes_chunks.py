"""What the notes index embeds (engines/notes/chunks.py). The texts are the vector cache's keys: a
change to them re-embeds every note of every user, so they are pinned."""

from __future__ import annotations

import hashlib
from pathlib import Path

from engines.notes.chunks import PASSAGE_WORDS, note_texts, passages, whole
from engines.notes.corpus import Note, load_corpus

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "notes"


def test_the_demo_notebooks_texts_are_the_ones_every_cache_was_keyed_by():
    # digest of note_texts over the demo notebook as the texts were cut before 2026-12-03 (the body
    # cut and tidied twice, the decoration pattern compiled per call): the faster cut is the same cut
    digest = hashlib.sha256()
    for note in load_corpus(DEMO).notes:
        for text in note_texts(note):
            digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
    assert digest.hexdigest() == "3b2ec6bb815c71513be0b7ac29a0f7fc192b1964ad15bd33f174955ffe634111"


def test_a_note_is_its_title_its_passages_of_at_most_150_words_and_its_whole_text():
    body = "# Heading\n\n" + " ".join(f"w{i}." for i in range(400)) + "\n\n- a  list\u00a0item\n\n\n[[target|the label]] here"
    note = Note(id="n.md", title="  The   title ", body=body, where="n.md", path="/n.md", aliases=("other name",))
    texts = note_texts(note)
    assert texts == passages(note) + [whole(note)]
    assert texts[:2] == ["The title", "other name"]
    assert all(len(t.split()) <= PASSAGE_WORDS for t in texts[2:-1]) and len(texts) > 5
    assert "a list item" in texts[-2] and "the label" in texts[-2] and "[[" not in texts[-2]
    assert texts[-1].startswith("The title Heading w0. w1.") and "  " not in texts[-1]
    empty = Note(id="e.md", title="", body=" \n\n ", where="e.md", path="/e.md")
    assert note_texts(empty) == ["e.md", "e.md"], "never empty: the id stands for a note with no words"
