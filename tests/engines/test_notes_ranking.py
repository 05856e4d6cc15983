"""The semantic leg's ranking at a vault's size: the head the fill reads is the full order's head, ties
and left-out notes included, without sorting every note."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engines.notes.meaning_ranking import Ranked


def _ranking(rank: np.ndarray) -> Ranked:
    notes = [SimpleNamespace(id=f"n{i}") for i in range(len(rank))]
    return Ranked(notes, {n.id: i for i, n in enumerate(notes)}, rank, rank.copy())


def _sorted_order(rank: np.ndarray) -> list[int]:
    return sorted((i for i in range(len(rank)) if rank[i] > -np.inf), key=lambda i: (-rank[i], i))


def test_the_head_is_the_full_orders_head_with_ties_and_unembedded_notes():
    rng = np.random.default_rng(22)
    for trial in range(200):
        size = int(rng.integers(1, 3000))
        # few distinct values: many ties, the hard case for a partial sort
        rank = rng.choice(np.linspace(-0.2, 0.9, int(rng.integers(1, 40))), size).astype(np.float32)
        rank[rng.random(size) < 0.2] = -np.inf  # not embedded yet
        expected = _sorted_order(rank)
        for n in (0, 1, 3, 10, 100, size // 3, size):
            assert _ranking(rank).head(n).tolist() == expected[:n], (trial, size, n)
        assert _ranking(rank).order.tolist() == expected


def test_only_leaves_the_other_notes_out_of_the_head_and_the_scores():
    rank = np.array([0.9, 0.8, 0.7, 0.6, 0.5], dtype=np.float32)
    kept = _ranking(rank).only({"n1", "n3"})
    assert kept.head(10).tolist() == [1, 3] and kept.order.tolist() == [1, 3]
    assert kept.best[0] == -np.inf and kept.best[1] == np.float32(0.8)
