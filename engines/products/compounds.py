"""Finnish and Swedish compounds split against a lexicon: appelsiinimehu -> appelsiini|mehu, havredryck -> havre|dryck.

The lexicon is the words of Fineli's Finnish and Swedish food names and of the knowledge map
(``engines/products/words.json``, written by tools/fineli_words.py). A word splits where its tail is
a known word and its head is one too, allowing the linking letters the two languages put between
parts (Swedish "s": kycklings|filé, Finnish genitive "n": kanan|muna); the longest known tail wins
and the head is split again, so the last part is the head noun (the kind) and the others narrow it.

A word a buyer types that no lexicon or catalogue holds whole is split more loosely (``split_said``):
its last part may also be a *bound* part, one that the lexicon's words only hold as a compound's first
part ("bröst" of "bröstfilé", "knäcke" of "knäckebröd": the tail of "kycklingbröst", issue 46), and
the catalogue's own words count as known. Never for a word known whole: "kycklingfärs" is Fineli's
chicken meatloaf, a thing of its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Iterable

from engines.products.modifiers import ANIMAL_OF

MIN_PART = 3  # a shorter part ("te", "öl") splits too much: "kaffe" would be "kaf"|"fe" with a 2-letter part
MIN_BOUND = 4  # a bound part this long at least ("brost", "knacke"); 3-letter ones are mostly chance prefixes
LINKS = ("s", "n")


class Splitter:
    def __init__(self, lexicon: Iterable[str]) -> None:
        self.lexicon = frozenset(w for w in lexicon if len(w) >= MIN_PART and w.isalpha())
        self.split = lru_cache(maxsize=16384)(self._split)
        self._bound: frozenset[str] | None = None

    def _split(self, word: str) -> tuple[str, ...]:
        """The parts of a folded word, the head last; ``(word,)`` when it is no compound of known words."""
        for cut in range(MIN_PART, len(word) - MIN_PART + 1):  # the longest tail first
            tail = word[cut:]
            if tail not in self.lexicon:
                continue
            head = self._known_head(word[:cut])
            if head:
                return (*self.split(head), tail)
        return (word,)

    def _known_head(self, head: str) -> str | None:
        if head in self.lexicon:
            return head
        if head[-1:] in LINKS and head[:-1] in self.lexicon:
            return head[:-1]
        return None

    def is_compound(self, word: str) -> bool:
        return len(self.split(word)) > 1

    @property
    def bound(self) -> frozenset[str]:
        """Parts the lexicon holds only inside compounds whose other part is a known word: a first part
        ("brost" of "brost|file"), or a last part that follows two known words or more ("kotlett" of
        "gris|kotlett", "lamm|kotlett"; one would let chance cuts in: "kon|brost" of "kal|kon|brost").
        Built once on first use (~6,000 words, tens of milliseconds)."""
        if self._bound is None:
            found, tails = set(), {}
            for w in self.lexicon:
                for cut in range(MIN_PART, len(w) - MIN_PART + 1):
                    head, tail = w[:cut], w[cut:]
                    if len(head) >= MIN_BOUND and head not in self.lexicon and tail in self.lexicon:
                        found.add(head)
                    if len(tail) >= MIN_BOUND and tail not in self.lexicon and head in self.lexicon:
                        tails.setdefault(tail, set()).add(head)
            self._bound = frozenset(found | {t for t, heads in tails.items() if len(heads) >= 2})
        return self._bound

    def split_said(self, word: str, known: Callable[[str], bool] = lambda w: False) -> tuple[str, ...]:
        """A word as said, split as ``split`` does and, where that finds no parts, with the catalogue's
        words (``known``) as known and a bound part allowed last: "kycklingbrost" -> kyckling|brost."""
        parts = self.split(word)
        loose = self._split_loose(word, known)
        # the longest parts first: "vildsvinsfars" is vildsvin|fars (an animal the catalogue names), not vild|svin|...
        return loose if len(loose) > 1 and (len(parts) == 1 or len(loose) < len(parts)) else parts

    def _split_loose(self, word: str, known: Callable[[str], bool]) -> tuple[str, ...]:
        whole = lambda tail: tail in self.lexicon or known(tail)  # noqa: E731
        bound = lambda tail: len(tail) >= MIN_BOUND and tail in self.bound  # noqa: E731
        for tail_known in (whole, bound):  # a tail known whole first, then a bound one
            parts = self._split_at(word, known, tail_known)
            if len(parts) > 1:
                return parts
        return (word,)

    def _split_at(self, word: str, known: Callable[[str], bool], tail_known) -> tuple[str, ...]:
        if word[:2] in ANIMAL_OF and tail_known(word[2:]) and len(word) - 2 >= MIN_PART:
            return (word[:2], word[2:])  # a 2-letter animal: "ox|filé" (Sweden's word for Finland's nöt)
        for cut in range(MIN_PART, len(word) - MIN_PART + 1):
            tail = word[cut:]
            if not tail_known(tail):
                continue
            head = word[:cut]
            if head[-1:] in LINKS and not (head in self.lexicon or known(head)) and len(head) > MIN_PART:
                head = head[:-1]  # "vildsvins|färs": the Swedish linking s
            if known(head):  # a word the catalogue (or the animals' list) holds whole stays whole
                return (head, tail)
            if head in self.lexicon:
                return (*self.split(head), tail)
        return (word,)
