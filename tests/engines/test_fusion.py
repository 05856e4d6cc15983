"""Reciprocal rank fusion: ranks, not scores, with weights and per-source quotas."""

from __future__ import annotations

import pytest

from engines.fusion import rrf


def test_a_document_both_lists_hold_beats_one_list_alone():
    fused = rrf({"lexical": ["a", "b", "c"], "embedding": ["c", "d"]})
    assert fused[0][0] == "c"
    assert fused[0][2] == {"lexical": 3, "embedding": 1}
    assert fused[0][1] == pytest.approx(1 / 63 + 1 / 61)


def test_ties_keep_the_order_of_first_appearance():
    fused = rrf({"one": ["a", "b"], "two": ["b", "a"]})
    assert [doc for doc, _, _ in fused] == ["a", "b"]  # equal scores: "a" appeared first
    fused = rrf({"one": ["x"], "two": ["y"]})
    assert [doc for doc, _, _ in fused] == ["x", "y"]


def test_weights_scale_each_list_and_quotas_cut_its_tail():
    lists = {"lexical": ["a", "b", "c"], "embedding": ["c", "b", "a"]}
    assert rrf(lists, weights={"lexical": 0.1})[0][0] == "c"
    assert rrf(lists, weights={"embedding": 0.1})[0][0] == "a"
    fused = rrf(lists, quotas={"lexical": 1})
    assert fused[0][0] == "a" and fused[0][2] == {"lexical": 1, "embedding": 3}
    ranks = {doc: r for doc, _, r in fused}
    assert ranks["b"] == {"embedding": 2} and ranks["c"] == {"embedding": 1}


def test_a_repeated_id_counts_once_at_its_first_rank_and_k_must_not_be_negative():
    fused = rrf({"one": ["a", "a", "b"]}, k=0)
    assert [(d, s) for d, s, _ in fused] == [("a", 1.0), ("b", pytest.approx(1 / 3))]
    with pytest.raises(ValueError):
        rrf({"one": ["a"]}, k=-1)
    assert rrf({}) == []
