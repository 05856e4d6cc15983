"""The exact tier: every query word, case-folded, found as a substring of a note. Evidence, not resemblance.

A note matches when each query word occurs in its title, id, tags or body. Ranking puts a word
found in the title above one found in the id or tags, above one found only in the body; ties go to
the note that repeats the words more, then to the id, so the order is deterministic.

Speed: all notes are kept as one case-folded haystack. The longest word is looked for first: in
the notes a trigram filter lets through (engines/notes/trigrams.py), each searched within its own
bounds; a word too short for the filter by one ``find`` per matching note across the haystack (a hit
jumps to the next note). The remaining words are checked only against the notes the first one left.

A query whose words match thousands of notes (the first letters typed: "p" holds in 100,000 notes of
the vault) is found and ranked by numpy over every place its words occur (``_Places``), not a note at
a time in Python: "p" took 923-1,078 ms and held the interpreter throughout, beside the interface's thread;
the same order comes out either way (tests/engines/test_notes_exact_many.py).

The haystack is UTF-8 bytes, not a str: one character outside Latin-1 in any note ("✓") makes
Python store the whole str at two or four bytes a character, and ``find`` walks every byte. At the
100,000-note vault (69 million characters, stored at two bytes each) a word took ~70 ms to find as
a str. A UTF-8 needle found in UTF-8 text always starts on a character, so the matches are the same.
Read back from the notes index (engines/notes/store.py) it is that file memory-mapped, not copied.
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engines.answer import Hit
from engines.notes import trigrams
from engines.notes.corpus import Note, held_list

TIER = "exact"
TITLE, LABEL, BODY = 3.0, 2.0, 1.0  # where a word was found: title > id or tags > body
SEPARATOR = b"\x00"  # between notes in the haystack: never inside a query word
# Matches, per word not yet scanned, from which the ranking is done by numpy over the words' places
# rather than a note at a time. At the vault (69 MB of haystack, 2 cores, /tmp/prof/prefix2.py): a scan
# takes 100-150 ms a word, mostly outside the interpreter's lock; a note at a time ~12 µs a note, all
# of it holding the lock (the interface's thread waits). "p": 923 -> 92 ms; "e": 1,080 -> 200 ms.
RANK_BY_PLACES_FROM = 8_000
# Matches from which the ranking is done by numpy over the words' places in those notes' own text (their
# bytes copied out, a few MB), not a note at a time: "electron density" matches 5,188 notes of the
# vault and took 80-90 ms so, holding the interpreter, while the interface typed beside it.
RANK_WITHIN_FROM = 400

_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")


def query_words(query: str) -> list[str]:
    """The words a query asks for: split on white space, case-folded, outer punctuation dropped.

    A word that is only punctuation is kept as it is (a search for "c++" or "?!" means those
    characters); duplicates are dropped.
    """
    words: list[str] = []
    for raw in query.casefold().split():
        raw = "".join(ch for ch in raw if ch.isprintable())
        word = _EDGE_PUNCTUATION.sub("", raw) or raw
        if word and word not in words:
            words.append(word)
    return words


@dataclass(frozen=True)
class ExactResult:
    hits: list[Hit]
    matched: list[int]  # indices of every matching note, uncapped

    @property
    def total(self) -> int:
        return len(self.matched)


class ExactMatcher:
    def __init__(self, notes: Sequence[Note], previous: "ExactMatcher | None" = None) -> None:
        """``previous``: the matcher these notes replace (an edit): the notes it held, the same objects,
        keep their folded text and trigram filter, so an edit folds and hashes only what changed."""
        self.notes = held_list(notes)
        # Each note's folded title, label and body live only in the haystack, found by their lengths:
        # a copy of each beside it held 100,000 notes' text twice (~150 MB of a vault's resident memory).
        kept = {id(n): j for j, n in enumerate(previous.notes)} if previous is not None else {}
        parts, starts, lengths, offset = [], array("q"), array("q"), 0
        reused: list[tuple[int, int]] = []  # (note here, its index in previous)
        for i, n in enumerate(self.notes):
            j = kept.get(id(n))
            if j is not None:
                start, title_end, label_end, end = previous._bounds(j)
                text = previous._haystack[start:end]
                lengths.extend(previous._lengths[2 * j:2 * j + 2])
                reused.append((i, j))
            else:
                title = _utf8(" ".join((n.title,) + n.aliases).casefold())  # aliases are other titles: they rank as the title does
                label = _utf8((n.id + " " + " ".join(n.tags)).casefold())
                text = title + b"\n" + label + b"\n" + _utf8(n.body.casefold())
                lengths.extend((len(title), len(label)))
            starts.append(offset)
            parts.append(text)
            offset += len(text) + 1
        self._haystack = SEPARATOR.join(parts)
        self._starts = starts
        self._lengths = lengths
        if not reused:
            self._bloom = trigrams.build(self._haystack, starts)
        else:
            self._bloom = _merged_bloom(self._haystack, starts, previous._bloom, reused)

    @classmethod
    def from_parts(cls, notes: Sequence[Note], haystack: bytes, starts: array,
                   lengths: array, bloom: np.ndarray | None = None) -> "ExactMatcher":
        """The matcher of ``notes`` from the parts a matcher of the same notes gave (``parts``): the notes
        index keeps them, so a vault opened again skips folding 100,000 notes (~0.4 s of a 2 s open)
        and hashing their trigrams (None: hashed here)."""
        matcher = cls.__new__(cls)
        matcher.notes = list(notes)
        matcher._haystack, matcher._starts, matcher._lengths = haystack, starts, lengths
        matcher._bloom = bloom if bloom is not None else trigrams.build(haystack, starts)
        return matcher

    def parts(self) -> tuple[bytes, array, array, np.ndarray]:
        """The haystack, each note's start in it, its folded title's and label's lengths (two a note, one
        after the other), the trigram filter. Arrays of int64, not lists: 100,000 notes' starts and
        length pairs held 10.4 MB as Python ints and tuples (tracemalloc), 2.4 MB so."""
        return self._haystack, self._starts, self._lengths, self._bloom

    def _bounds(self, i: int) -> tuple[int, int, int, int]:
        """Where note ``i`` lies in the haystack: its start, the ends of its title and label, its end.
        Every test below reads the haystack between bounds: a slice would copy the note first."""
        start, title, label = self._starts[i], self._lengths[2 * i], self._lengths[2 * i + 1]
        end = self._starts[i + 1] - 1 if i + 1 < len(self._starts) else len(self._haystack)
        return start, start + title, start + title + 1 + label, end

    def _holding(self, needles: Sequence[bytes], places: "_Places | None" = None) -> list[int]:
        """Indices of the notes holding every word (UTF-8), in corpus order; ``places``: where a word too
        short for the filter is found (by numpy) in a large corpus."""
        if not needles or not self.notes:
            return []
        ordered = sorted(needles, key=len, reverse=True)
        filtered = [w for w in ordered if len(w) >= trigrams.MIN_WORD]
        if filtered:  # the notes every long word's trigrams let through, each then searched for every word
            candidates, unchecked = trigrams.candidates(self._bloom, *filtered).tolist(), ordered
        else:
            first = ordered[0]
            candidates = places.notes_holding(first) if places is not None else self._notes_containing(first)
            unchecked = ordered[1:]
        # (Finding the words by numpy in the candidates' copied text, as _Within ranks them, was tried: the
        # copy of 10,000-20,000 candidates the filter lets through for "dark theme" cost more than their
        # finds, 16 -> 46 ms.)
        hay, starts, last = self._haystack, self._starts, len(self._starts) - 1
        for word in unchecked:
            if not candidates:
                break
            candidates = [i for i in candidates
                          if hay.find(word, starts[i], starts[i + 1] - 1 if i < last else len(hay)) >= 0]
        return candidates

    def search(self, query: str, limit: int, allowed: set[int] | None = None) -> ExactResult:
        """The ranked hits (at most ``limit``), every matching note's index, uncapped; ``allowed``: the
        indices the query's filters let through (None: all)."""
        needles = [_utf8(w) for w in query_words(query)]
        places = _Places(self) if len(self.notes) >= RANK_BY_PLACES_FROM else None
        found = self._holding(needles, places)
        if allowed is not None:
            found = [i for i in found if i in allowed]
        unscanned = sum(1 for w in needles if places is None or not places.scanned(w))
        ranked = None
        if places is not None and len(found) >= RANK_BY_PLACES_FROM * max(unscanned, 1):
            ranked = places.best(found, needles, max(limit, 0))
        if ranked is None and len(found) >= RANK_WITHIN_FROM:
            ranked = _Within(self, found).ranked(needles, max(limit, 0))
        if ranked is None:
            ranked = sorted(found, key=lambda i: self._rank_key(i, needles))
        hits = []
        for i in ranked[: max(limit, 0)]:
            note = self.notes[i]
            hits.append(Hit(id=note.id, title=note.title, where=note.where, tier=TIER, score=self._score(i, needles)))
        return ExactResult(hits, found)

    def _notes_containing(self, word: bytes) -> list[int]:
        """Every note holding ``word``, by one pass over the haystack (a word too short for the filter)."""
        found, pos, hay, starts = [], 0, self._haystack, self._starts
        while True:
            pos = hay.find(word, pos)
            if pos < 0:
                return found
            note = bisect.bisect_right(starts, pos) - 1
            found.append(note)
            if note + 1 >= len(starts):
                return found
            pos = starts[note + 1]

    def _score(self, i: int, words: Sequence[bytes]) -> float:
        hay, (start, title_end, label_end, _) = self._haystack, self._bounds(i)
        total = 0.0
        for w in words:
            total += (TITLE if hay.find(w, start, title_end) >= 0 else
                      LABEL if hay.find(w, title_end + 1, label_end) >= 0 else BODY)
        return round(total / len(words), 4)

    def _rank_key(self, i: int, words: Sequence[bytes]) -> tuple:
        """(-score, -repeats, id): _score's sum and the repeats in one walk over the words (every match
        is ranked, 5,188 of them for "electron density" at 100,000 notes)."""
        hay, (start, title_end, label_end, end) = self._haystack, self._bounds(i)
        total, repeats = 0.0, 0
        for w in words:
            total += (TITLE if hay.find(w, start, title_end) >= 0 else
                      LABEL if hay.find(w, title_end + 1, label_end) >= 0 else BODY)
            # title and body: the whole note text but its label (a word holds no "\n", so none spans two parts)
            repeats += _count(hay, w, start, end) - _count(hay, w, title_end + 1, label_end)
        return (-round(total / len(words), 4), -repeats, self.notes[i].id)


class _Places:
    """Where a query's words occur in a matcher's haystack, found by numpy a block at a time, and what
    _rank_key asks of each note, for every note at once: in its title, in its label, how often in its
    title and body. One search's words are scanned once each."""

    BLOCK = 1 << 23  # bytes scanned at a time: the scan's temporary arrays stay a few MB

    def __init__(self, matcher: ExactMatcher) -> None:
        self.matcher = matcher
        self.hay = np.frombuffer(matcher._haystack, dtype=np.uint8)
        self.starts = np.frombuffer(matcher._starts, dtype=np.int64)
        lengths = np.frombuffer(matcher._lengths, dtype=np.int64).reshape(-1, 2)
        self.title_end = self.starts + lengths[:, 0]
        self.label_end = self.title_end + 1 + lengths[:, 1]
        self._words: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.overlapping: set[bytes] = set()  # words two of whose places overlap somewhere ("aa" in "aaa")

    def scanned(self, word: bytes) -> bool:
        return word in self._words

    def of(self, word: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per note: places of ``word`` in it, places in its label, whether one lies in its title."""
        if word not in self._words:
            self._words[word] = self._scan(word)
        return self._words[word]

    def _scan(self, word: bytes):
        hay, n = self.hay, len(word)
        # Each note's bounds, as the places a word of n bytes may start from: [start, title) in its
        # title, [label start, label) in its label, up to the next note's start in it at all. In this
        # order they never go down, so how many places lie under each is one search into the places.
        starts = self.starts
        bounds = np.empty((len(starts), 4), dtype=np.int64)
        bounds[:, 0] = starts
        bounds[:, 1] = np.maximum(self.title_end - n + 1, starts)
        bounds[:, 2] = self.title_end + 1
        bounds[:, 3] = np.maximum(self.label_end - n + 1, bounds[:, 2])
        bounds = np.append(bounds.ravel(), len(hay))
        under = np.zeros(len(bounds), dtype=np.int64)  # places before each bound
        anchor = self._rarest(word)  # the byte compared across the block: the fewest places to check
        borders = _overlaps_itself(word)
        seen, last = 0, -len(hay)
        for base in range(0, max(len(hay) - n + 1, 0), self.BLOCK):
            block = hay[base:base + self.BLOCK + n - 1]  # a place near the end lies wholly in the block
            room = len(block) - n + 1
            places = np.flatnonzero(block[anchor:anchor + room] == word[anchor])
            for k in range(n):
                if k != anchor:
                    places = places[block[places + k] == word[k]]
            if borders and len(places) and (np.any(np.diff(places) < n) or places[0] + base - last < n):
                self.overlapping.add(word)
            if len(places):
                last = base + int(places[-1])
            lo, hi = np.searchsorted(bounds, (base, base + room))
            under[lo:hi] = seen + np.searchsorted(places, bounds[lo:hi] - base)
            seen += len(places)
            under[hi:] = seen
        at = under[:-1].reshape(-1, 4)
        after = under[4::4]  # the next note's start (the haystack's end after the last)
        return after - at[:, 0], at[:, 3] - at[:, 2], at[:, 1] > at[:, 0]

    def _rarest(self, word: bytes) -> int:
        """The position in ``word`` of its rarest byte in the haystack (a sample of every 61st byte)."""
        counts = getattr(self.matcher, "_byte_counts", None)
        if counts is None:
            counts = self.matcher._byte_counts = np.bincount(self.hay[::61], minlength=256)
        return min(range(len(word)), key=lambda k: counts[word[k]])

    def notes_holding(self, word: bytes) -> list[int]:
        """The notes ``word`` occurs in, in corpus order."""
        return np.flatnonzero(self.of(word)[0]).tolist()

    def best(self, found: list[int], words: Sequence[bytes], limit: int) -> list[int] | None:
        """The first ``limit`` of ``found`` in _rank_key's order; None where a word's places overlap
        (``bytes.count`` counts overlapping places once: those are ranked a note at a time)."""
        chosen = np.asarray(found, dtype=np.int64)
        total = np.zeros(len(chosen), dtype=np.int64)  # _rank_key's score times the words: the same order
        repeats = np.zeros(len(chosen), dtype=np.int64)
        for w in words:
            everywhere, in_label, in_title = (part[chosen] for part in self.of(w))
            total += np.where(in_title, int(TITLE), np.where(in_label > 0, int(LABEL), int(BODY)))
            repeats += everywhere - in_label  # title and body, as _rank_key counts them
        if self.overlapping.intersection(words):
            return None
        order = np.lexsort((-repeats, -total))
        if limit and len(order) > limit:  # only the first limit and those tied with the last of them
            last = order[limit - 1]
            order = np.flatnonzero((total > total[last]) | ((total == total[last]) & (repeats >= repeats[last])))
        notes = self.matcher.notes
        ranked = sorted(order.tolist(), key=lambda j: (-int(total[j]), -int(repeats[j]), notes[found[j]].id))
        return [found[j] for j in ranked[:limit]]


class _Within:
    """Some notes of a matcher (``among``: those a query matched) as a matcher of their own, their text
    copied out of the haystack one after the other, so that _Places ranks them by numpy over a few MB
    instead of a note at a time or over the whole haystack."""

    def __init__(self, matcher: ExactMatcher, among: list[int]) -> None:
        self.among = among
        hay = matcher._haystack
        chosen = np.asarray(among, dtype=np.int64)
        every_start = np.frombuffer(matcher._starts, dtype=np.int64)
        begins = every_start[chosen]
        ends = np.append(every_start[1:] - 1, len(hay))[chosen]
        self._haystack = SEPARATOR.join([hay[b:e] for b, e in zip(begins.tolist(), ends.tolist())])
        # int64 arrays, which _Places reads as it reads a matcher's array("q")s (np.frombuffer)
        self._starts = np.concatenate(([0], np.cumsum(ends - begins + 1)[:-1])).astype(np.int64)
        self._lengths = np.frombuffer(matcher._lengths, dtype=np.int64).reshape(-1, 2)[chosen].ravel()
        self.notes = [matcher.notes[i] for i in among]
        self.places = _Places(self)

    def ranked(self, words: Sequence[bytes], limit: int) -> list[int] | None:
        """The first ``limit`` of these notes in _rank_key's order, as _Places.best."""
        best = self.places.best(list(range(len(self.among))), words, limit)
        return None if best is None else [self.among[row] for row in best]


def _overlaps_itself(word: bytes) -> bool:
    """A word one of whose places can begin inside another ("ele" in "elele"): ``bytes.count`` counts
    such places once, numpy's places each, so a scan of such a word looks for places that overlap."""
    return any(word[:k] == word[-k:] for k in range(1, len(word)))


def _count(hay, word: bytes, start: int, end: int) -> int:
    """``word``'s occurrences in hay[start:end]; a haystack read back from the index is memory-mapped, and a
    map has ``find`` but no ``count``: the note is copied out to count (a note, not the haystack)."""
    return hay.count(word, start, end) if isinstance(hay, bytes) else hay[start:end].count(word)


def _merged_bloom(haystack: bytes, starts: list[int], previous: np.ndarray,
                  reused: list[tuple[int, int]]) -> np.ndarray:
    """The filter of every note: the reused notes' columns copied from ``previous``, the rest hashed."""
    n = len(starts)
    here, there = (np.asarray(side, dtype=np.int64) for side in zip(*reused))
    out = np.empty((previous.shape[0], n), dtype=np.uint64)
    out[:, here] = previous[:, there]
    fresh = np.setdiff1d(np.arange(n, dtype=np.int64), here)
    if len(fresh):
        ends = [starts[i + 1] - 1 if i + 1 < n else len(haystack) for i in fresh.tolist()]
        pieces = [haystack[starts[i]:end] for i, end in zip(fresh.tolist(), ends)]
        sub_starts = np.concatenate(([0], np.cumsum([len(p) + 1 for p in pieces])[:-1])).tolist()
        out[:, fresh] = trigrams.build(SEPARATOR.join(pieces), sub_starts)
    return out


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate (a file read with errors kept) too
