"""The metric functions on hand-computed cases, and the runner's split and caching."""

from __future__ import annotations

import math

import pytest

from engines.eval.metrics import graded_recall_at, in_top, mrr_at, ndcg_at, percentile, recall_at, right_first
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


def test_a_run_started_from_a_script_outside_the_repository_keeps_its_answers_apart(tmp_path, monkeypatch):
    import sys
    import types

    requests = [Request("1", "alpha", {"a": 1.0}, "dev")]
    calls = []

    def config():
        return lambda q: calls.append(q) or ["a"]

    run("test", "apart", requests, {"c": config}, split="dev", fresh=True)  # started from pytest: in the repo
    experiment = tmp_path / "patched.py"
    experiment.write_text("# patches an engine at run time, then runs the evaluation\n")
    monkeypatch.setitem(sys.modules, "__main__", types.SimpleNamespace(__file__=str(experiment)))
    run("test", "apart", requests, {"c": config}, split="dev")
    assert len(calls) == 2, "the experiment's run did not read the shipped code's answers"
    run("test", "apart", requests, {"c": config}, split="dev")
    assert len(calls) == 2, "and its own are cached for it"
    experiment.write_text("# another patch\n")
    run("test", "apart", requests, {"c": config}, split="dev")
    assert len(calls) == 3


def test_graded_figures_of_known_rankings():
    judged = {"a": 3, "b": 2, "c": 3, "d": 0}
    assert right_first(["a", "b"], judged) == 1.0
    assert right_first(["b", "a"], judged) == 0.0, "a 2 first is not right"
    assert right_first([], judged) == 0.0
    assert right_first(["b"], {"b": 2, "x": 1}) is None, "no 3 to find: not defined"
    assert in_top(["d", "b", "c", "a"], judged, 3) == 1.0
    assert in_top(["d", "b", "x", "a"], judged, 3) == 0.0
    assert in_top(["b", "d"], {"b": 2}, 3) is None
    assert graded_recall_at(["c", "x", "b", "a"], judged, 3) == pytest.approx(1 / 2)
    assert graded_recall_at(["c", "x", "b", "a"], judged, 4) == 1.0
    assert graded_recall_at(["b", "c"], judged, 10, grade=2) == pytest.approx(2 / 3)
    assert graded_recall_at(["b"], {"b": 2}, 10) is None


def test_the_runner_averages_a_figure_over_the_requests_that_define_it():
    requests = [Request("1", "alpha", {"a": 3.0}, "dev"), Request("2", "beta", {"b": 1.0}, "dev"),
                Request("3", "gamma", {"c": 3.0}, "dev")]

    def score(ranked, judged):
        return {"right_first": right_first(ranked, judged), "mrr@10": mrr_at(ranked, judged, 10)}

    tables = run("test", "graded", requests, {"first": lambda: lambda q: [q[0]]}, split="dev", fresh=True,
                 score=score)
    m = tables[0].metrics["first"]
    assert m["right_first"] == 0.5, "beta has no 3: left out (1 of 2), not counted as a miss (1 of 3)"
    assert m["mrr@10"] == pytest.approx(2 / 3, abs=1e-4), "mrr is defined for all three"
    beta = next(r for r in tables[0].requests if r["query"] == "beta")
    assert beta["configs"]["first"]["right_first"] is None


def test_an_interrupted_run_keeps_the_answers_it_had_and_the_next_run_picks_up_from_there():
    requests = [Request(str(i), f"query {i}", {"a": 1.0}, "dev") for i in range(6)]
    calls: list[str] = []

    def stops_at_the_fourth():
        def rank(q):
            if len(calls) == 3:
                raise KeyboardInterrupt  # ctrl+c while the fourth request runs
            calls.append(q)
            return ["a"]
        return rank

    with pytest.raises(KeyboardInterrupt):
        run("test", "interrupted", requests, {"c": stops_at_the_fourth}, split="dev", fresh=True)
    assert calls == ["query 0", "query 1", "query 2"]

    def answers():
        return lambda q: calls.append(q) or ["a"]

    tables = run("test", "interrupted", requests, {"c": answers}, split="dev")
    assert calls[3:] == ["query 3", "query 4", "query 5"], "the three cached answers are not asked again"
    assert tables[0].metrics["c"]["mrr@10"] == 1.0 and tables[0].metrics["c"]["requests"] == 6


def test_counted_figures_are_summed_and_extras_travel_with_the_answer():
    from engines.eval.runner import Outcome

    requests = [Request("1", "alpha", {}, "dev"), Request("2", "beta", {}, "dev"), Request("3", "gamma", {}, "dev")]

    def score(outcome: Outcome, request: Request):
        return {"dropped": float(outcome.extras["flags"] == ["broke"]), "right_first": float(outcome.ranked[:1] == ["a"])}

    def ranker():
        return lambda q: (["a", "b"], {"flags": ["broke"] if q != "beta" else []})

    tables = run("test", "summed", requests, {"r": ranker}, split="dev", fresh=True, score_outcome=score,
                 summed=frozenset({"dropped"}))
    m = tables[0].metrics["r"]
    assert m["dropped"] == 2 and isinstance(m["dropped"], int), "two of three requests broke a rule: a count"
    assert m["right_first"] == 1.0
    alpha = next(r for r in tables[0].requests if r["query"] == "alpha")
    assert alpha["configs"]["r"]["flags"] == ["broke"]
    # a second run reads the extras back from the cache, so the figures agree
    again = run("test", "summed", requests, {"r": ranker}, split="dev", score_outcome=score,
                summed=frozenset({"dropped"}))
    assert again[0].metrics["r"]["dropped"] == 2
