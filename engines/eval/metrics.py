"""Ranking metrics over graded or binary judgements; every function takes the ranked ids first."""

from __future__ import annotations

import math
from typing import Mapping, Sequence


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at(ranked: Sequence[str], judged: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with the judgement as the gain (binary qrels: 1 for relevant)."""
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([judged.get(doc, 0.0) for doc in ranked[:k]]) / ideal


def mrr_at(ranked: Sequence[str], relevant: set[str] | Mapping[str, float], k: int = 10) -> float:
    for i, doc in enumerate(ranked[:k]):
        if doc in relevant and (not isinstance(relevant, Mapping) or relevant[doc] > 0):
            return 1.0 / (i + 1)
    return 0.0


def recall_at(ranked: Sequence[str], relevant: set[str] | Mapping[str, float], k: int) -> float:
    wanted = {d for d in relevant if not isinstance(relevant, Mapping) or relevant[d] > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(ranked[:k])) / len(wanted)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# -- graded judgements (Icecat: 0 irrelevant .. 3 exact) -------------------------------------------
# Each returns None when the request has no product judged ``grade`` or better: the figure is not
# defined for it, and the runner averages over the requests where it is.

def right_first(ranked: Sequence[str], judged: Mapping[str, float], grade: float = 3.0) -> float | None:
    """1.0 when the first ranked id is judged ``grade`` or better, else 0.0."""
    if not any(g >= grade for g in judged.values()):
        return None
    return 1.0 if ranked and judged.get(ranked[0], 0.0) >= grade else 0.0


def in_top(ranked: Sequence[str], judged: Mapping[str, float], k: int = 3, grade: float = 3.0) -> float | None:
    """1.0 when one of the first ``k`` ids is judged ``grade`` or better, else 0.0."""
    if not any(g >= grade for g in judged.values()):
        return None
    return 1.0 if any(judged.get(doc, 0.0) >= grade for doc in ranked[:k]) else 0.0


def graded_recall_at(ranked: Sequence[str], judged: Mapping[str, float], k: int, grade: float = 3.0) -> float | None:
    """The share of the ids judged ``grade`` or better that are among the first ``k`` ranked."""
    wanted = {doc for doc, g in judged.items() if g >= grade}
    if not wanted:
        return None
    return len(wanted & set(ranked[:k])) / len(wanted)
