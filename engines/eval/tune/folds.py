"""Cross-validation over a person's queries: a setting is judged on queries it was not chosen on.

Each query falls in one of ``k`` folds, by a hash of its text (the same on every machine and run, and
a query added later does not move the others). For each fold the setting with the best mean over the
*other* folds' queries is chosen, and the fold's queries are scored with it: every query's held-out
score comes from a setting chosen without it. Their mean is the held-out score of the tune itself
(choosing on a handful of queries and scoring on the same ones would report the luck of the choice
as a gain). Ties go to the earlier setting, and today's is first: a change must win to be chosen.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

FOLDS = 5  # the usual k; fewer where there are fewer queries (leave-one-out then)


def fold_of(queries: Sequence[str], k: int) -> list[int]:
    """Each query's fold: the queries ordered by a hash of their text, dealt round the folds in turn
    (so the folds differ in size by one at most)."""
    order = sorted(range(len(queries)), key=lambda i: hashlib.sha256(queries[i].encode("utf-8", "surrogatepass")).digest())
    folds = [0] * len(queries)
    for place, i in enumerate(order):
        folds[i] = place % k
    return folds


def best(scores: Sequence[Sequence[float]], on: Sequence[int], changes: Sequence[int] | None = None) -> int:
    """The setting with the best mean over the queries ``on``; of equals, the one that changes fewest
    knobs from today's (``changes``: each setting's count), then the first: a change must earn its place."""
    on = list(on)
    means = [sum(row[q] for q in on) / len(on) for row in scores]
    top = max(means)
    tied = [i for i, m in enumerate(means) if m >= top - 1e-12]
    return min(tied, key=lambda i: (changes[i] if changes is not None else 0, i))


@dataclass
class CrossValidated:
    held_out: list[float]  # each query's score under the setting chosen on the other folds
    chosen: list[int]  # each fold's chosen setting
    folds: list[int]  # each query's fold
    k: int


def cross_validate(scores: Sequence[Sequence[float]], queries: Sequence[str], k: int = FOLDS,
                   changes: Sequence[int] | None = None) -> CrossValidated:
    """``scores[setting][query]``: each setting's figure on each query; ``changes``: as :func:`best` takes
    them. ValueError under two queries."""
    n = len(queries)
    if n < 2:
        raise ValueError("cross-validation needs two graded queries at least")
    k = max(2, min(k, n))
    folds = fold_of(queries, k)
    held = [0.0] * n
    chosen = []
    for f in range(k):
        train = [q for q in range(n) if folds[q] != f]
        pick = best(scores, train, changes)
        chosen.append(pick)
        for q in range(n):
            if folds[q] == f:
                held[q] = scores[pick][q]
    return CrossValidated(held, chosen, folds, k)
