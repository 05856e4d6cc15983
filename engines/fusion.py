"""Reciprocal rank fusion of named ranked lists (Cormack, Clarke and Büttcher, SIGIR 2009).

A document's fused score is the sum over the lists that hold it of ``weight / (k + rank)``. Ranks,
not scores, are fused, so lists whose scores live on different scales (BM25 and cosine) combine
without calibration. ``quotas`` lets only the head of a list take part (a long noisy tail of one
source then cannot outvote a short precise one).
"""

from __future__ import annotations

from typing import Mapping, Sequence


def rrf(lists: Mapping[str, Sequence[str]], k: int = 60, quotas: Mapping[str, int] | None = None,
        weights: Mapping[str, float] | None = None) -> list[tuple[str, float, dict[str, int]]]:
    """Fuse ranked id lists. Returns (id, fused score, {source: 1-based rank}) best first.

    Equal fused scores keep the order in which the ids first appear, reading the lists in the
    order given and each list from its head. A repeated id within one list counts at its first rank.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, not {k}")
    fused: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for source, ids in lists.items():
        weight = 1.0 if weights is None else float(weights.get(source, 1.0))
        head = ids if quotas is None or source not in quotas else ids[: max(0, quotas[source])]
        for rank, doc in enumerate(head, start=1):
            seen = ranks.setdefault(doc, {})
            if source in seen:
                continue
            seen[source] = rank
            fused[doc] = fused.get(doc, 0.0) + weight / (k + rank)
    order = {doc: i for i, doc in enumerate(fused)}  # dicts keep first-appearance order
    ranked = sorted(fused, key=lambda doc: (-fused[doc], order[doc]))
    return [(doc, fused[doc], ranks[doc]) for doc in ranked]
