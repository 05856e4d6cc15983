"""The embedding tier's side of a code answer: the symbols nearest a query by meaning, and the rows a
merged answer shows (kept apart from engine.py, which orders the tiers)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.answer import RESEMBLANCE, Hit, TierReport
from engines.code.lexical_tier import TIER as LEXICAL
from engines.code.merge import EMBEDDING, Merged
from engines.code.symbols import Symbol
from engines.embed.query import query_vector
from engines.lexical import top_of


@dataclass
class Meaning:
    ranked: list[tuple[int, float]]  # (position, cosine), best first, above the floor, at most CANDIDATES
    above_floor: np.ndarray  # positions of every symbol above the floor
    # every embedded symbol's position and its cosine to the query, as the vectors scored them (None where
    # only the ranked rows are known: Milvus); read by position only where asked (``cosines_of``)
    rows: np.ndarray | None = None
    cosines: np.ndarray | None = None

    def cosines_of(self, positions: list[int]) -> np.ndarray:
        """The query's cosine to each of ``positions`` (NaN where unknown): what the static table's score
        fusion weighs the lexical tier's rows by (merge.py ``weigh``)."""
        if self.rows is None or self.cosines is None or not len(self.rows):
            known = dict(self.ranked)
            return np.asarray([known.get(p, np.nan) for p in positions], np.float64)
        # ``rows`` ascend (the index's order): each asked position found by bisection, not through an
        # array the size of the corpus made for every query
        asked = np.asarray(positions, np.int64)
        at = np.minimum(np.searchsorted(self.rows, asked), len(self.rows) - 1)
        return np.where(self.rows[at] == asked, self.cosines[at], np.nan).astype(np.float64)


def nearest(embedder, vectors, query: str, candidates: int) -> "Meaning | TierReport":
    """The symbols nearest the query above the embedder's floor, best first (at most ``candidates``),
    and every position above it; a TierReport when the model cannot answer."""
    vector = query_vector(embedder, query, EMBEDDING)
    if isinstance(vector, TierReport):
        return vector
    rows, cosines, ranking = vectors.scores(vector)
    if len(rows) == 0:
        return Meaning([], rows)
    above = cosines >= embedder.info().floor  # the floor is on the embedder's cosine scale
    # Ordered by the density-corrected score; +2 keeps every corrected score positive for
    # top_of, which drops what is below the floor (-inf).
    best = top_of(np.where(above, ranking + 2.0, -np.inf), candidates)
    return Meaning([(int(rows[i]), float(cosines[i])) for i, _ in best], rows[above], rows, cosines)


def hits_of(symbols: list[Symbol], merged: list[Merged]) -> list[Hit]:
    hits = []
    for m in merged:
        s = symbols[m.position]
        extras = {"kind": s.kind, "language": s.language, "summary": s.summary, "path": s.path, "line": s.line,
                  "end_line": s.end_line, "ranks": m.ranks,
                  "scores": {t: round(v, 4) for t, v in m.scores.items()}}
        if m.fused is not None:
            extras["fused"] = round(m.fused, 6)
        marker = RESEMBLANCE if LEXICAL not in m.ranks else ""
        hits.append(Hit(id=s.id, title=s.title, where=s.where, tier=m.tier, score=round(m.score, 4),
                        marker=marker, extras=extras))
    return hits


def union_total(lexical, query: str, wanted: tuple[str, ...], meaning: Meaning) -> int:
    """Every symbol above either tier's floor, each counted once, uncapped (``lexical``: the
    code engine's LexicalIndex)."""
    found = np.zeros(len(lexical.symbols), bool)  # a mask, not a set of up to every symbol per query
    found[meaning.above_floor] = True
    if LEXICAL in wanted:
        found |= lexical.index.scores(lexical.query_words(query)) > 0
    return int(found.sum())
