"""The figures a person's grades are scored with, on hand-worked rankings (the library computes them:
engines/eval/metrics.py)."""

from __future__ import annotations

import math

import pytest

from engines.eval.judgements.suite import judged_metrics
from engines.eval.metrics import ndcg_at, unrated_at


def test_unrated_rows_are_counted_in_the_top_ten_only():
    judged = {"a": 3, "b": 0}
    assert unrated_at(["a", "x", "b", "y"], judged, 10) == 2
    assert unrated_at(["a", "b"], judged, 10) == 0
    assert unrated_at([f"u{i}" for i in range(15)], judged, 10) == 10
    assert unrated_at(["x", "y"], {}, 10) == 2


def test_a_query_graded_only_irrelevant_has_no_ndcg_and_no_right_first():
    figures = judged_metrics(["a", "b"], {"a": 0.0, "b": 0.0})
    assert figures == {"ndcg@10": None, "right_first": None, "good_recall@10": None, "unrated@10": 0}


def test_right_first_asks_for_a_three_and_good_recall_counts_twos_and_threes():
    judged = {"a": 2.0, "b": 3.0, "c": 1.0}
    figures = judged_metrics(["a", "x", "b"], judged)
    assert figures["right_first"] == 0.0  # a is good (2), not exactly right (3)
    assert figures["good_recall@10"] == 1.0  # a and b are both in the top 10
    # DCG 2 + 0 + 3/2 = 3.5; ideal 3 + 2/log2 3 + 1/2
    assert figures["ndcg@10"] == pytest.approx(3.5 / (3 + 2 / math.log2(3) + 0.5))
    assert figures["unrated@10"] == 1


def test_a_repeated_id_counts_once_at_its_first_place():
    assert ndcg_at(["a", "a", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(1.0)
