"""Any item of a corpus found by its title or its path, to be graded whether a search showed it or not.

A person grading a query knows the note, symbol or product that should have come up; before this they
could grade it only through a CSV naming the engine's internal id (``pkg/_client.py::BaseClient.timeout@257``).
The engine lists its items through the contract (``Engine.listing``: id, title, where); an item is found
when every word typed occurs in its title, its place or its id (case and accents folded), titles that
hold the words first. Where no item holds every word (a typo), rapidfuzz's ratio over the titles and
places ranks the nearest. An engine that lists nothing is searched through its evidence tiers instead.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

SHOWN = 30  # items offered at most: a person narrows by typing more
FUZZY_CUTOFF = 70  # rapidfuzz partial ratio a title or place must reach when no item holds every word typed


@dataclass(frozen=True)
class Found:
    id: str
    title: str
    where: str


def _fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))


def find(engine, typed: str, limit: int = SHOWN) -> list[Found]:
    """The items of ``engine``'s corpus ``typed`` names by title or path (or id), best first."""
    words = _fold(typed).split()
    if not words:
        return []
    listed = [Found(*item) for item in engine.listing()]
    if not listed:
        return _searched(engine, typed, limit)
    ranked = []
    for n, item in enumerate(listed):
        title = _fold(item.title)
        if all(w in title or w in _fold(item.where) or w in _fold(item.id) for w in words):
            in_title = sum(w in title for w in words)
            ranked.append((title != " ".join(words), -in_title, not title.startswith(words[0]), len(title), n, item))
    if ranked:
        return [r[-1] for r in sorted(ranked, key=lambda r: r[:5])[:limit]]
    return _nearest(listed, " ".join(words), limit)


def _nearest(listed: list[Found], typed: str, limit: int) -> list[Found]:
    from rapidfuzz import fuzz, process

    choices = {n: f"{_fold(item.title)} {_fold(item.where)}" for n, item in enumerate(listed)}
    best = process.extract(typed, choices, scorer=fuzz.partial_ratio, limit=limit, score_cutoff=FUZZY_CUTOFF)
    return [listed[n] for _text, _score, n in best]


def _searched(engine, typed: str, limit: int) -> list[Found]:
    try:
        answer = engine.collect(typed, engine.search(typed, limit=limit, tiers=engine.evidence_tiers or None))
    except (ValueError, OSError):
        return []
    return [Found(h.id, h.title, h.where) for h in answer.hits]
