"""The metric functions on hand-computed cases, and the runner's split and caching."""

from __future__ import annotations

import math

import pytest

from engines.eval.metrics import mrr_at, ndcg_at, percentile, recall_at
from engines.eval.runner import Request, run, split_of


def test_ndcg_of_a_known_ranking():
    judged = {"a": 3.0, "b": 2.0, "c": 1.0}
    # ranking b, x, a: DCG = 2/log2(2) + 0 + 3/log2(4) = 2 + 1.5 = 3.5
    # ideal a, b, c:   3/1 + 2/log2(3) + 1/2 = 4.761859...
    ideal = 3 + 2 / math.log2(3) + 0.5
    assert ndcg_at(["b", "x", "a"], judged, 10) == pytest.approx(3.5 / ideal)
    assert ndcg_at(["a", "b", "c"], judged, 10) == pytest.approx(1.0)
    assert ndcg_at(["x", "y"], judged, 10) == 0.0
    assert ndcg_at(["c", "b", "a"], judged, 1) == pytest.approx(1 / 3)


def test_mrr_and_recall_of_known_rankings():
    assert mrr_at(["x", "y", "a"], {"a": 1.0}, 10) == pytest.approx(1 / 3)
    assert mrr_at(["x", "y", "a"], {"a": 1.0}, 2) == 0.0
    assert recall_at(["a", "x", "b"], {"a": 1, "b": 1, "c": 1, "d": 0}, 2) == pytest.approx(1 / 3)
    assert recall_at(["a", "x", "b"], {"a": 1, "b": 1, "c": 1}, 10) == pytest.approx(2 / 3)


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert percentile([5], 90) == 5
    assert math.isnan(percentile([], 50))


def test_the_split_is_a_stable_third_by_hash():
    texts = [f"query number {i}" for i in range(300)]
    held = [t for t in texts if split_of(t) == "heldout"]
    assert 70 < len(held) < 130
    assert [split_of(t) for t in texts] == [split_of(t) for t in texts]


def test_the_runner_scores_every_config_with_the_same_code_and_caches_answers():
    requests = [Request("1", "alpha", {"a": 1.0}, "dev"), Request("2", "beta", {"b": 1.0}, "dev")]
    calls = []

    def perfect():
        return lambda q: calls.append(q) or (["a"] if q == "alpha" else ["b"])

    def backwards():
        return lambda q: ["x", "a"] if q == "alpha" else ["x", "y", "b"]

    tables = run("test", "toy", requests, {"perfect": perfect, "backwards": backwards}, split="dev", fresh=True)
    metrics = tables[0].metrics
    assert metrics["perfect"]["mrr@10"] == 1.0
    assert metrics["backwards"]["mrr@10"] == pytest.approx((1 / 2 + 1 / 3) / 2, abs=1e-4)  # tables round to 4 places
    assert len(calls) == 2
    run("test", "toy", requests, {"perfect": perfect}, split="dev")
    assert len(calls) == 2, "a second run reads the cached answers"
    run("test", "toy", requests, {"perfect": perfect}, split="dev", fresh=True)
    assert len(calls) == 4
