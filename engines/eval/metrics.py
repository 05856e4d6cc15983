"""Ranking metrics over graded or binary judgements, computed by ir-measures (trec_eval's definitions,
through pytrec_eval); every function takes the ranked ids first.

Chosen by measurement (issue 47; docs/evaluation.md, "Metrics"): ir-measures with pytrec-eval-terrier
installs in 6.3 s and adds 146 MB (scipy, which it needs, is 144 MB of that; the paired test of
engines/eval/judgements/runs.py uses it too), and its first figure comes 0.1 s after import; ranx added
700 MB in 25.7 s and its first figure took 23.7 s of numba compiling (3.7 s on a warm cache) in a
fresh process, which every test and every `olai-tui eval` is. Figures are the same as the
hand-written functions these replaced gave on every shipped dataset (tests/judgements/test_metrics.py
holds both to hand-worked values).

A judgement is an integer grade (trec_eval's relevance): the gain nDCG weighs a row by, relevant
above 0. The ranking is given as ids best first; each id's score for the library is its rank's
complement, so trec_eval's own order (score, then id) is the ranking's.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import ir_measures
from ir_measures import RR, R, P, nDCG


def _qrels(judged: Mapping[str, float] | set[str]) -> dict[str, dict[str, int]]:
    if not isinstance(judged, Mapping):
        return {"q": {str(d): 1 for d in judged}}
    out = {}
    for doc, gain in judged.items():
        if gain != int(gain):
            raise ValueError(f"a judgement of {doc!r} is {gain}: trec_eval's grades are whole numbers")
        out[str(doc)] = int(gain)
    return {"q": out}


def _run(ranked: Sequence[str]) -> dict[str, dict[str, float]]:
    scores: dict[str, float] = {}
    for i, doc in enumerate(ranked):
        scores.setdefault(str(doc), float(len(ranked) - i))  # a repeated id counts at its first place
    return {"q": scores}


def calc(measures: Sequence, ranked: Sequence[str], judged: Mapping[str, float] | set[str]) -> dict:
    """Each measure's value for one ranking (0.0 where there is no ranking, as trec_eval scores it)."""
    qrels, run = _qrels(judged), _run(ranked)
    if not run["q"] or not qrels["q"]:
        return {m: 0.0 for m in measures}
    found = {m: 0.0 for m in measures}
    for metric in ir_measures.iter_calc(list(measures), qrels, run):
        found[metric.measure] = float(metric.value)
    return found


def ndcg_at(ranked: Sequence[str], judged: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with the judgement as the gain (binary qrels: 1 for relevant)."""
    if not any(g > 0 for g in judged.values()):
        return 0.0
    return calc([nDCG @ k], ranked, judged)[nDCG @ k]


def mrr_at(ranked: Sequence[str], relevant: set[str] | Mapping[str, float], k: int = 10) -> float:
    return calc([RR @ k], ranked, relevant)[RR @ k]


def recall_at(ranked: Sequence[str], relevant: set[str] | Mapping[str, float], k: int) -> float:
    return calc([R @ k], ranked, relevant)[R @ k]


RANKING = {"ndcg@10": nDCG @ 10, "mrr@10": RR @ 10, "recall@1": R @ 1, "recall@10": R @ 10, "recall@100": R @ 100}


def ranking_figures(ranked: Sequence[str], judged: Mapping[str, float]) -> dict[str, float]:
    """The usual figures of one ranking (runner.ranking_metrics), in one pass of the library (0.79 ms a
    request of 100 ranked ids; the hand-written functions took 0.025 ms: 0.5 s more over Vaswani's 93
    requests x 7 configurations, against runs of minutes)."""
    found = calc(list(RANKING.values()), ranked, judged)
    out = {name: found[measure] for name, measure in RANKING.items()}
    if not any(g > 0 for g in judged.values()):
        out["ndcg@10"] = 0.0
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# -- graded judgements (Icecat, a person's grades: 0 irrelevant .. 3 exact) ----------------------
# Each returns None when the request has no id judged ``grade`` or better: the figure is not
# defined for it, and the runner averages over the requests where it is.

def right_first(ranked: Sequence[str], judged: Mapping[str, float], grade: float = 3.0) -> float | None:
    """1.0 when the first ranked id is judged ``grade`` or better, else 0.0."""
    if not any(g >= grade for g in judged.values()):
        return None
    return in_top(ranked, judged, 1, grade)


def in_top(ranked: Sequence[str], judged: Mapping[str, float], k: int = 3, grade: float = 3.0) -> float | None:
    """1.0 when one of the first ``k`` ids is judged ``grade`` or better, else 0.0."""
    if not any(g >= grade for g in judged.values()):
        return None
    measure = P(rel=int(grade)) @ k
    return 1.0 if calc([measure], ranked, judged)[measure] > 0 else 0.0


def graded_recall_at(ranked: Sequence[str], judged: Mapping[str, float], k: int, grade: float = 3.0) -> float | None:
    """The share of the ids judged ``grade`` or better that are among the first ``k`` ranked."""
    if not any(g >= grade for g in judged.values()):
        return None
    measure = R(rel=int(grade)) @ k
    return calc([measure], ranked, judged)[measure]


def unrated_at(ranked: Sequence[str], judged: Mapping[str, float], k: int = 10) -> int:
    """How many of the first ``k`` ranked ids have no judgement (Quepid lists them: a figure over unrated
    rows is a guess): a count, not a ranking figure, so no library is asked for it."""
    return sum(1 for d in dict.fromkeys(str(d) for d in ranked[:k]) if d not in judged)
