"""Finnish and Swedish compounds split against a lexicon: appelsiinimehu -> appelsiini|mehu, havredryck -> havre|dryck.

The lexicon is the words of Fineli's Finnish and Swedish food names and of the knowledge map
(``engines/products/words.json``, written by tools/fineli_words.py). A word splits where its tail is
a known word and its head is one too, allowing the linking letters the two languages put between
parts (Swedish "s": kycklings|filé, Finnish genitive "n": kanan|muna); the longest known tail wins
and the head is split again, so the last part is the head noun (the kind) and the others narrow it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

MIN_PART = 3  # a shorter part ("te", "öl") splits too much: "kaffe" would be "kaf"|"fe" with a 2-letter part
LINKS = ("s", "n")


class Splitter:
    def __init__(self, lexicon: Iterable[str]) -> None:
        self.lexicon = frozenset(w for w in lexicon if len(w) >= MIN_PART and w.isalpha())
        self.split = lru_cache(maxsize=16384)(self._split)

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
