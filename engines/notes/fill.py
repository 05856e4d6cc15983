"""The fill's small judgements, apart from engine.py (which orders the tiers): whether a note's shared
words are incidental, a query of filters alone, and a leg's head past what was already answered."""

from __future__ import annotations

import numpy as np

from engines.answer import Hit
from engines.notes.corpus import Note
from engines.notes.exact import TIER as EXACT

FUSION_K = 60  # Cormack et al.'s constant, as the hybrid baseline uses it
LEG_DEPTH = 100  # each leg's head that takes part in the fusion (more when the room is larger)
# The two legs count the same. Tried and not shipped: meaning counting more. On the dev queries
# (`olai-tui eval notes --dataset vaswani|cranfield --split dev --configs merged`, nDCG@10) meaning's
# weight 1 / 1.5 / 2 / 2.5 / 3 scored Vaswani 0.5201 / 0.5223 / 0.5236 / 0.5232 / 0.5207, Cranfield
# 0.3984 / 0.4033 / 0.4055 / 0.4047 / 0.3998 (roadmap dev 43 / 43 / 43 / 42 / 44 of 55), but with 2
# the held-out halves fell (Vaswani 0.454 -> 0.448, Cranfield 0.454 -> 0.444): the dev gain did not
# carry. (That reading of the held-out halves decided this; docs/tried-and-not-shipped.md says so.)
LEG_WEIGHTS = {"words": 1.0, "semantic": 1.0}  # the words and semantic tiers
# Weak guesses: at most this many, the best by meaning, and only when nothing else answered. Three, as
# the roadmap dev set scores an answer by its first three rows (engines/eval/roadmap/configs.py).
WEAK_GUESSES = 3


def words_incidental(meaning, m: int | None, floors) -> bool:
    """The note shares words with the query but not its meaning: its best passage is under this
    notebook's weak bound (what three off-topic probes in four reach). Such words are incidental ("a
    bread recipe" and a note on wiring that calls an overloaded socket "a recipe for disaster"), so
    they are not evidence. Where meaning cannot judge (tier off, note not yet embedded, notebook not
    measured) the words alone decide.

    Measured on the roadmap dev set: of the notes shown for their words, 26 of the 29 right ones and
    59 of the 317 wrong ones reach the weak bound; paraphrases with a right node in the top 3 went
    from 35 to 43 of 55. Vaswani and Cranfield dev merged nDCG@10 0.5204 -> 0.5201 and 0.3984 ->
    0.3984 (before the meaning weight above)."""
    if meaning is None or m is None or floors.ceiling is None:
        return False
    return bool(meaning.best[m] < floors.weak)


def filtered_only(notes: list[Note], allowed: set[int], limit: int) -> list[Hit]:
    """A query of filters alone: every note they let through, newest first (evidence: they passed)."""
    order = sorted(allowed, key=lambda i: (-(notes[i].date or 0.0), notes[i].id))
    return [Hit(id=notes[i].id, title=notes[i].title, where=notes[i].where, tier=EXACT, score=1.0)
            for i in order[: max(limit, 0)]]


def leg_head(notes: list[Note], order: np.ndarray, answered: set[str], depth: int) -> list[str]:
    """The ids of a leg's best ``depth`` notes, leaving out those already answered."""
    head: list[str] = []
    for i in order.tolist():
        note_id = notes[i].id
        if note_id not in answered:
            head.append(note_id)
            if len(head) >= depth:
                break
    return head
