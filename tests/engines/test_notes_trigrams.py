"""The exact tier's trigram filter (engines/notes/trigrams.py) never loses a note that holds a word:
the tier's matches equal a plain substring search over the same folded notes, for words long enough
to go through the filter and words too short for it, on notes of Latin, accented, Greek, CJK and
emoji text (multi-byte UTF-8 across the trigram boundaries)."""

from __future__ import annotations

import random

import numpy as np

from engines.notes import trigrams
from engines.notes.corpus import Note
from engines.notes.exact import ExactMatcher, query_words

ALPHABET = list("abcdefghij klmno") + ["é", "ß", "λ", "日本", "✓", "🌱", "-", "."]


def note(i: int, body: str) -> Note:
    return Note(id=f"n{i:04d}.md", title=f"Note {i}", body=body, where=f"n{i:04d}.md", path=f"/v/n{i:04d}.md")


def test_the_filter_lets_through_every_note_holding_a_word_and_the_tier_matches_a_plain_search():
    rng = random.Random(22)
    notes = [note(i, "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 120)))) for i in range(1500)]
    matcher = ExactMatcher(notes)
    folded = [" ".join((n.title,) + n.aliases).casefold() + "\n" + (n.id + " " + " ".join(n.tags)).casefold()
              + "\n" + n.body.casefold() for n in notes]
    words = set()
    for _ in range(400):  # pieces of the notes (so they are found) and random strings (mostly not)
        source = rng.choice(folded)
        start = rng.randrange(max(1, len(source)))
        words.add(source[start:start + rng.randint(1, 9)].strip())
        words.add("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))))
    long_enough = 0
    for word in sorted(w for w in words if len(w.split()) == 1):
        (asked,) = query_words(word) or [None]
        if asked is None:
            continue
        expected = [i for i, text in enumerate(folded) if asked in text]
        assert matcher.search(word, 5).matched == expected, word
        needle = asked.encode("utf-8")
        if len(needle) >= trigrams.MIN_WORD:
            long_enough += 1
            through = set(trigrams.candidates(matcher.parts()[3], needle).tolist())
            assert set(expected) <= through, word
    assert long_enough > 100, "too few words went through the filter to say anything"


def test_the_filter_is_one_column_of_bits_per_note_and_tells_notes_apart():
    notes = [note(i, "seedlings under fleece") for i in range(3)] + [note(3, "")]
    bloom = ExactMatcher(notes).parts()[3]
    assert bloom.shape == (trigrams.BITS // 64, 4) and bloom.dtype == np.uint64
    assert list(trigrams.candidates(bloom, b"fleece")) == [0, 1, 2], "the empty note has no such trigram"
    assert 0 < np.unpackbits(bloom[:, 3].copy().view(np.uint8)).sum() < np.unpackbits(bloom[:, 0].copy().view(np.uint8)).sum()


def test_an_edit_folds_only_the_notes_it_changed_and_matches_a_fresh_build(monkeypatch):
    from engines.notes import exact

    rng = random.Random(7)
    notes = [note(i, "".join(rng.choice(ALPHABET) for _ in range(80))) for i in range(300)]
    before = ExactMatcher(notes)
    edited = list(notes)
    edited[10] = note(10, "fleece over the beans 🌱")  # changed
    del edited[20]  # deleted
    edited.insert(5, note(999, "added: plum jam"))  # added
    folds = []
    real = exact._utf8
    monkeypatch.setattr(exact, "_utf8", lambda text: folds.append(text) or real(text))
    after = ExactMatcher(edited, previous=before)
    assert len(folds) == 3 * 2, "only the changed and the added note are folded (title, label, body each)"
    monkeypatch.setattr(exact, "_utf8", real)
    fresh = ExactMatcher(edited)
    assert after.parts()[:3] == fresh.parts()[:3]
    np.testing.assert_array_equal(after.parts()[3], fresh.parts()[3])
    assert [h.id for h in after.search("plum", 5).hits] == ["n0999.md"]
