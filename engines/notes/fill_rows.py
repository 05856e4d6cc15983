"""The fill batch's rows: the words and meaning legs' rankings fused (reciprocal rank fusion), each
note shown only for the evidence that admits it (the rules are engine.py's docstring).

Apart from engine.py, which runs the exact tier and the two legs: this is what the fill makes of the
rankings once the legs have answered, and it reads nothing but them.
"""

from __future__ import annotations

import numpy as np

from engines.answer import RESEMBLANCE, WEAK_GUESS, Batch, Hit, TierReport
from engines.fusion import rrf
from engines.notes.fill import LEG_DEPTH, leg_head, words_incidental
from engines.notes.knobs import KNOBS
from engines.notes.static_first import said_static

WORDS = "words"
SEMANTIC = "semantic"
FILL_TIERS = (WORDS, SEMANTIC)


def fill_rows(words, meaning, floors, answered: set[str], room: int, on: list[str],
              reports: dict[str, TierReport], allowed: set[str] | None = None) -> Batch:
    """The fill batch from the words leg's ranking and the meaning leg's (either None: off or not
    answering) and this notebook's floors: at most ``room`` notes past the ``answered`` ones, each row
    labelled with the leg that admitted it; ``on``'s ``reports`` counted; ``allowed``: the note ids
    the query's filters let through (None: every note)."""
    floor = floors.confident + KNOBS.value("floor_shift")
    if allowed is not None:  # filtered before anything is ranked: a note they drop is in no leg
        words = words.only(allowed) if words is not None else None
        meaning = meaning.only(allowed) if meaning is not None else None

    depth = max(LEG_DEPTH, room)
    legs = {}
    for tier, ranking in ((WORDS, words), (SEMANTIC, meaning)):
        if ranking is not None:
            # the head past the answered notes lies within the first depth + len(answered)
            legs[tier] = leg_head(ranking.notes, ranking.head(depth + len(answered)), answered, depth)
    hits: list[Hit] = []
    weak: list[int] = []  # meaning rows under the confident floor, over the weak bound, in fused order
    incidental: list[int] = []  # words rows whose meaning is under the weak bound, in fused order
    for doc, _, ranks in rrf(legs, k=KNOBS.value("fusion_k"),
                              weights={WORDS: KNOBS.value("words_weight"), SEMANTIC: KNOBS.value("meaning_weight")}):
        if len(hits) >= room:
            break
        w = words.index_of.get(doc) if words is not None else None
        m = meaning.index_of.get(doc) if meaning is not None else None
        by_words = w is not None and words.enough(w)
        if by_words and words_incidental(meaning, m, floors):
            by_words = False
            if len(incidental) < room:
                incidental.append(w)  # shown only if nothing else, weak guesses included, answers
        by_meaning = m is not None and meaning.best[m] >= floor
        if by_words and by_meaning:  # both would show it: the leg that ranked it higher names it
            by_meaning = ranks.get(SEMANTIC, depth + 1) < ranks.get(WORDS, depth + 1)
        if by_meaning:
            hits.append(meaning_row(meaning, m, RESEMBLANCE))
        elif by_words:
            note = words.notes[w]
            hits.append(Hit(id=doc, title=note.title, where=note.where, tier=WORDS,
                            score=round(float(words.scores[w]), 4)))
        elif m is not None and meaning.best[m] >= floors.weak and len(weak) < min(KNOBS.value("weak_guesses"), room):
            weak.append(m)  # a weak guess, shown only if nothing else answers
        # else: too few of the query's words and not close enough in meaning: never shown
    if not hits and not answered and weak:  # (answered: the exact matches, all shown when room > 0)
        # nothing in evidence and nothing confident: the best neighbours by meaning, said to be guesses
        for m in weak:
            hits.append(meaning_row(meaning, m, WEAK_GUESS, strength="weak"))
        reports[SEMANTIC].reason = (f"no confident match (this notebook's floor {floor:.3f}): "
                                    f"{len(weak)} weak guess{'es' if len(weak) > 1 else ''} by meaning")
    fell_back = not hits and not answered and bool(incidental)
    if fell_back:
        # nothing at all answers but notes that hold the words: they are still word evidence, and
        # an empty answer to a fair question is the worst a search box gives
        for w in incidental:
            note = words.notes[w]
            hits.append(Hit(id=note.id, title=note.title, where=note.where, tier=WORDS,
                            score=round(float(words.scores[w]), 4)))
    for tier in on:
        report = reports[tier]
        if report.status in ("answered", "indexing"):
            report.count = sum(1 for h in hits if h.tier == tier)
            if report.status == "answered" and not report.count:
                report.status = "empty"
    if meaning_orders(words):
        in_meaning_order(hits, meaning)
    shown: set[str] = set()
    if words is not None:
        for i in words.shown().tolist():
            note_id = words.notes[i].id
            m = meaning.index_of.get(note_id) if meaning is not None else None
            if fell_back or not words_incidental(meaning, m, floors):
                shown.add(note_id)
    if meaning is not None:
        shown.update(meaning.notes[i].id for i in np.flatnonzero(meaning.best >= floor).tolist())
    shown.update(h.id for h in hits if h.marker == WEAK_GUESS)
    said_static(hits, meaning)
    return Batch(hits=hits, tiers=[reports[t] for t in FILL_TIERS], total=len(answered) + len(shown - answered))


def meaning_row(meaning, m: int, marker: str, **extras) -> Hit:
    """A row meaning admitted. Its score is what ranks it in the semantic tier (the mean of its best
    passage's cosine and its whole note's); ``passage`` is its best passage's cosine, what the floor
    admits it by. Before 2026-12-06 the score shown was the passage's, and rows appeared out of the
    order of their scores ("seedlings": 0.394, 0.408, 0.429, 0.390)."""
    note = meaning.notes[m]
    return Hit(id=note.id, title=note.title, where=note.where, tier=SEMANTIC, score=round(float(meaning.rank[m]), 4),
               marker=marker, extras={**extras, "passage": round(float(meaning.best[m]), 4)})


def meaning_orders(words) -> bool:
    """Whether meaning's rows stand in the semantic tier's own order: where no note holds enough of the
    query's words (the words tier has no evidence, only single shared words), else in the fusion's."""
    return words is None or not len(words.shown())


def in_meaning_order(hits: list[Hit], meaning) -> None:
    """The rows meaning admitted, in the places the fusion gave them, put in the semantic tier's own
    order (in place): the fusion decides where meaning's rows stand among the words' rows, the tier
    which of its rows comes first. Fused as they were, "protecting young plants from snails" put
    "Sowing dates 2024" over the slugs note, which the tier alone ranks first: the words leg's weak
    hold on "plants" lifted it."""
    at = [i for i, h in enumerate(hits) if h.tier == SEMANTIC]
    if len(at) < 2 or meaning is None:
        return
    rows = sorted((hits[i] for i in at), key=lambda h: -float(meaning.rank[meaning.index_of[h.id]]))
    for i, row in zip(at, rows):
        hits[i] = row
