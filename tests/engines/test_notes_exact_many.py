"""The exact tier's ranking by numpy over every place a word occurs (engines/notes/exact.py, ``_Places``),
used when a query matches thousands of notes, and over the places in the matching notes' own text
(``_Within``), used from a few hundred matches: the same notes in the same order, with the same totals, as
the ranking a note at a time, on notes of a small alphabet (words that overlap themselves, "aa" in
"aaaa", in titles, tags and bodies; multi-byte UTF-8), over a haystack scanned in blocks a few bytes
long so that places fall across every block boundary; and for a memory-mapped haystack read back."""

from __future__ import annotations

import random

import pytest

from engines.notes import exact
from engines.notes.corpus import Note
from engines.notes.exact import ExactMatcher

ALPHABET = list("aabbab c") + ["é", "日"]


def _notes(rng: random.Random, count: int) -> list[Note]:
    def text(most: int) -> str:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, most)))

    return [Note(id=f"{rng.choice('xyz')}{i:04d}.md", title=text(8), body=text(60), where=f"{i}.md", path=f"/v/{i}.md",
                 tags=tuple(text(5).split()[:2])) for i in range(count)]


def _queries(rng: random.Random) -> list[str]:
    asked = ["a", "b", "ab", "aa", "aba", "bab", "aab", "abba", "a b", "aa ab", "é", "日", "a 日", "ba é", "x0", "c"]
    return asked + ["".join(rng.choice("ab ") for _ in range(rng.randint(1, 5))).strip() or "a" for _ in range(12)]


def _answers(matcher: ExactMatcher, queries: list[str], limit: int, allowed=None) -> list:
    out = []
    for query in queries:
        result = matcher.search(query, limit, allowed)
        out.append((query, [(h.id, h.score) for h in result.hits], result.matched))
    return out


@pytest.mark.parametrize("limit", [0, 1, 10, 200])
def test_ranking_by_places_gives_what_ranking_a_note_at_a_time_gives(monkeypatch, limit):
    rng = random.Random(limit)
    matcher = ExactMatcher(_notes(rng, 900))
    queries = _queries(rng)
    allowed = set(rng.sample(range(900), 400))
    monkeypatch.setattr(exact, "RANK_BY_PLACES_FROM", 10**9)  # a note at a time
    monkeypatch.setattr(exact, "RANK_WITHIN_FROM", 10**9)
    expected = _answers(matcher, queries, limit) + _answers(matcher, queries, limit, allowed)
    within = []
    real_ranked = exact._Within.ranked
    monkeypatch.setattr(exact._Within, "ranked", lambda self, *a: within.append(a) or real_ranked(self, *a))
    monkeypatch.setattr(exact, "RANK_WITHIN_FROM", 1)  # by places in the matching notes' own text
    assert _answers(matcher, queries, limit) + _answers(matcher, queries, limit, allowed) == expected
    assert len(within) >= len(queries)  # the matching notes' own places ranked them (most queries, twice)
    scans = []
    real_scan = exact._Places._scan
    monkeypatch.setattr(exact._Places, "_scan", lambda self, word: scans.append(word) or real_scan(self, word))
    monkeypatch.setattr(exact._Places, "BLOCK", 53)  # places across block boundaries, often
    monkeypatch.setattr(exact, "RANK_BY_PLACES_FROM", 1)
    assert _answers(matcher, queries, limit) + _answers(matcher, queries, limit, allowed) == expected
    assert {b"a", b"ab", b"aba", b"\xc3\xa9"} <= set(scans)  # the places were what ranked them


def test_a_word_whose_places_overlap_is_ranked_a_note_at_a_time(monkeypatch):
    notes = [Note(id=f"{i}.md", title="t", body=body, where=f"{i}.md", path=f"/v/{i}.md")
             for i, body in enumerate(["aaaa", "aa aa aa", "aaa", "aa"])]
    matcher = ExactMatcher(notes)
    monkeypatch.setattr(exact, "RANK_BY_PLACES_FROM", 1)
    places = exact._Places(matcher)
    assert places.best([0, 1, 2, 3], [b"aa"], 4) is None and b"aa" in places.overlapping
    # bytes.count: "aaaa" holds "aa" twice, "aa aa aa" three times
    assert [h.id for h in matcher.search("aa", 4).hits] == ["1.md", "0.md", "2.md", "3.md"]


def test_a_memory_mapped_haystack_is_ranked_by_its_places(tmp_path, monkeypatch):
    import mmap

    rng = random.Random(5)
    notes = _notes(rng, 300)
    built = ExactMatcher(notes)
    haystack, starts, lengths, bloom = built.parts()
    (tmp_path / "hay").write_bytes(haystack)
    with open(tmp_path / "hay", "rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    read_back = ExactMatcher.from_parts(notes, mapped, starts, lengths, bloom)
    monkeypatch.setattr(exact, "RANK_BY_PLACES_FROM", 10**9)
    expected = _answers(built, ["a", "ab", "b a"], 10)
    monkeypatch.setattr(exact, "RANK_BY_PLACES_FROM", 1)
    assert _answers(read_back, ["a", "ab", "b a"], 10) == expected
    monkeypatch.setattr(exact, "RANK_BY_PLACES_FROM", 10**9)
    monkeypatch.setattr(exact, "RANK_WITHIN_FROM", 1)  # the matching notes' text copied out of the map
    assert _answers(read_back, ["a", "ab", "b a"], 10) == expected
