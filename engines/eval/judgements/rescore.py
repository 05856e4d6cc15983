"""A run over a person's grades scored again after a grade changed, without asking the engine again.

A grade changes the score, never the answer: each request row of a run keeps every configuration's
top 10 (engines/eval/runner.py), and every judged figure (suite.py's ``judged_metrics``: nDCG@10,
right first, good recall@10, unrated@10) reads no deeper. So the figures are computed again from the
kept rows and the grades as they are now, and averaged as the runner averages them (a figure that is
None for a request is left out of its mean; ``summed`` figures are counted). The times stay the run's.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from engines.eval.judgements.suite import judged_metrics
from engines.eval.runner import Request, Table

TIMES = ("p50_ms", "p90_ms", "requests")


def rescored(table: Table, requests: Sequence[Request], summed: frozenset[str] = frozenset(),
             score: Callable[[Sequence[str], Mapping[str, float]], Mapping] = judged_metrics) -> Table:
    """``table`` with every figure computed again from its rows' kept answers and ``requests``' grades."""
    judged = {r.id: r.judged for r in requests}
    rows, figured, raw = [], set(), {}  # raw: (request, config) -> figures unrounded, averaged as the runner does
    for row in table.requests:
        configs = {}
        for name, got in row["configs"].items():
            figures = score(got["top"], judged.get(row["id"], {}))
            figured.update(figures)
            raw[row["id"], name] = figures
            configs[name] = {**got, **{k: None if v is None else round(float(v), 4) for k, v in figures.items()}}
        rows.append({**row, "configs": configs})
    out = Table(table.engine, table.dataset, table.split, requests=rows)
    for name, before in table.metrics.items():
        sums: dict[str, float] = {}
        counts: dict[str, int] = {}
        for row in rows:
            for k in figured:
                v = raw[row["id"], name].get(k)
                sums.setdefault(k, 0.0)
                counts.setdefault(k, 0)
                if v is not None:
                    sums[k] += v
                    counts[k] += 1
        metrics = {k: (int(v) if k in summed else round(v / counts[k], 4)) if counts[k] else None for k, v in sums.items()}
        out.metrics[name] = {**metrics, **{k: before[k] for k in TIMES if k in before}}
    return out
