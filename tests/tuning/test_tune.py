"""`olai-tui tune` (issue 62): the candidates, the folds (no query scores the setting chosen on it), and
a tune adopted and named by the next eval, over a tiny engine registered here whose ranking reads a knob."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from engines import registry
from engines.answer import Batch, Hit, TierReport
from engines.contract import Engine, EngineStatus, Passage, Ranked, ranked_by_search
from engines.eval.tune.candidates import candidates, tunable
from engines.eval.tune.folds import best, cross_validate, fold_of
from engines.knobs import Knob, Knobs
from olai_tui.cli import main

SHELF = Knobs("shelf",
              Knob("shortness", "float", 0.0, low=0.0, high=1.0, does="how much a shorter line ranks higher",
                   measured="0: not measured (a test engine)"),
              Knob("depth", "int", 100, low=10, high=100, rebuilds=True, does="read at build", measured="none"))


class ShelfEngine(Engine):
    """Lines of a file; a line holding a query word is a hit, ranked by words held less ``shortness``
    times its length (a tenth a word)."""

    name = "shelf"
    tiers = default_tiers = evidence_tiers = ("words",)
    knobs = SHELF

    def __init__(self, path: Path) -> None:
        self.path, self.problems = path, []
        self.lines = path.read_text(encoding="utf-8").splitlines()

    def items(self) -> int:
        return len(self.lines)

    @property
    def corpus_label(self) -> str:
        return self.path.name

    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        wanted = set(query.lower().split())
        w = SHELF.value("shortness")  # the read site: the knob's value in force
        scored = [(len(wanted & set(line.split())) - w * len(line.split()) / 10, -i, i)
                  for i, line in enumerate(self.lines) if wanted & set(line.split())]
        hits = [Hit(f"l{i}", self.lines[i], f"{i}", "words", s) for s, _, i in sorted(scored, reverse=True)[:limit]]
        yield Batch(hits, [TierReport("words", "answered", 0.1, len(hits))], total=len(hits))

    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        return ranked_by_search(self, tier, query, depth)

    def read(self, item_id: str) -> Passage:
        i = int(item_id[1:])
        return Passage(item_id, self.lines[i], str(i), self.lines[i])

    def status(self) -> EngineStatus:
        return EngineStatus(self.name, str(self.path), len(self.lines), [TierReport("words", "answered")])


WORDS = ["apple", "pear", "plum", "fig", "lime", "kiwi", "date", "sloe"]


@pytest.fixture
def shelf(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    # each fruit: a long line first (found first at shortness 0) and a short one after it, the right one
    lines = []
    for word in WORDS:
        lines += [f"{word} " + "filler " * 8, f"{word} short"]
    corpus = tmp_path / "shelf.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    grades = tmp_path / "grades.csv"
    grades.write_text("query,id,grade\n" + "".join(f"{w},l{2 * n + 1},3\n{w},l{2 * n},1\n" for n, w in enumerate(WORDS)))
    registry.register(registry.EngineSpec("shelf", "lines on a shelf", lambda path, **_: ShelfEngine(path),
                                          lambda: corpus, sample_query="apple", engine_class=lambda: ShelfEngine))
    yield corpus, grades
    registry.unregister("shelf")


def test_a_setting_chosen_on_a_query_never_scores_that_query():
    # two queries, two folds: setting 1 is perfect on q0 and poor on q1. Chosen on q0 alone it wins, so
    # q1 is scored with it; q0 is scored with the setting chosen on q1 alone: today's. A leak would give q0 1.0.
    scores = [[0.5, 0.5], [1.0, 0.4]]
    cv = cross_validate(scores, ["q0", "q1"], k=2)
    assert best(scores, [0, 1]) == 1  # in sample, setting 1 looks better (0.7 against 0.5)
    assert cv.held_out == [0.5, 0.4]  # held out, it is worse: the tune says so
    # in general: each query's score comes from the setting chosen on the other folds alone
    texts = [f"query {i}" for i in range(11)]
    grid = [[((s * 7 + q * 3) % 5) / 4 for q in range(11)] for s in range(6)]
    cv = cross_validate(grid, texts, k=4)
    for q in range(11):
        others = [o for o in range(11) if cv.folds[o] != cv.folds[q]]
        assert q not in others and cv.held_out[q] == grid[best(grid, others)][q]


def test_folds_are_even_and_the_same_on_every_run():
    texts = [f"q{i}" for i in range(13)]
    folds = fold_of(texts, 5)
    assert sorted(folds.count(f) for f in range(5)) == [2, 2, 3, 3, 3]
    assert fold_of(list(reversed(texts)), 5) == list(reversed(folds))  # by the text, not the order given


def test_ties_go_to_the_setting_that_changes_least():
    assert best([[0.5], [0.9], [0.9]], [0], changes=[0, 3, 1]) == 2
    assert best([[0.9], [0.9]], [0], changes=[0, 1]) == 0  # today's, where nothing beats it


def test_candidates_are_a_grid_when_it_fits_today_first_within_budget_and_leave_build_knobs():
    knobs = tunable(SHELF)
    assert [k.name for k in knobs] == ["shortness"]
    tried, how = candidates(knobs, {"shortness": 0.3, "depth": 100}, 30)
    assert how == "grid" and tried[0] == {"shortness": 0.3} and len(tried) == 6  # 5 points and today's
    from engines.notes.knobs import KNOBS

    today = {k.name: k.default for k in KNOBS}
    tried, how = candidates(tunable(KNOBS), today, 12)
    assert how == "coordinate sweep" and len(tried) == 12 and tried[0] == today  # the budget ends inside the sweep
    assert len({tuple(sorted(t.items())) for t in tried}) == 12
    assert all(sum(t[k] != today[k] for k in t) == 1 for t in tried[1:12])  # the sweep: one knob at a time
    tried, how = candidates(tunable(KNOBS), today, 40)  # notes' sweep is 24 settings: random ones after it
    assert how == "coordinate sweep + random" and len(tried) == 40


def test_tune_adopts_a_setting_that_wins_held_out_and_the_next_eval_names_and_scores_it(shelf, capsys):
    corpus, grades = shelf
    assert main(["tune", "shelf", "--corpus", str(corpus), "--judgements", str(grades), "--adopt", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["changes"]["shortness"] > 0 and out["held_out_score"] > out["today_score"]
    assert out["recommended"] == out["best"]
    assert out["left_out"] == ["depth"] and out["adopted"] and out["verdict"] == "not tested (under 10 queries, a paired t-test is decided by one query's swing)"
    assert [h["query"] for h in out["hurts"]] == [] and len(out["helps"]) == len(WORDS)
    assert main(["settings", "shelf", "--corpus", str(corpus), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in said["settings"]}
    assert rows["shortness"]["from"] == "this corpus" and rows["shortness"]["value"] == out["changes"]["shortness"]
    assert said["corpus_why"].startswith("olai-tui tune: held-out ") and "OLAI_RECALL" not in said["corpus_why"]
    assert main(["eval", "shelf", "--corpus", str(corpus), "--judgements", str(grades), "--configs", "answer", "--json"]) == 0
    captured = capsys.readouterr()
    ran = json.loads(captured.out)
    assert ran["configs"]["answer"]["metrics"]["ndcg@10"] == pytest.approx(out["best_in_sample"], abs=1e-4)
    assert ran["settings"]["knobs_from"]["shortness"] == "this corpus"
    assert "settings in force: shortness = " in captured.err and "(this corpus)" in captured.err
    # a second tune finds nothing better than what is now in force: nothing adopted
    assert main(["tune", "shelf", "--corpus", str(corpus), "--judgements", str(grades), "--adopt"]) == 0
    assert "not adopted: today's setting is the best tried" in capsys.readouterr().out


def test_tune_adopts_over_a_knob_the_corpus_has_by_hand_and_the_tune_leaves(shelf, capsys):
    from engines.knobs import adopt, corpora_path

    corpus, grades = shelf
    adopt(SHELF, corpus, {"depth": 50}, why="by hand")  # read at build: no tune moves it
    assert main(["tune", "shelf", "--corpus", str(corpus), "--judgements", str(grades), "--adopt", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    kept = json.loads(corpora_path().read_text())["shelf"]
    assert [entry["settings"] for entry in kept.values()] == [{"depth": 50, "shortness": out["best"]["shortness"]}]


def test_tune_says_what_is_wrong_with_its_arguments(shelf, capsys):
    corpus, grades = shelf
    assert main(["tune", "shelf", "--corpus", str(corpus)]) == 2
    assert "give --judged" in capsys.readouterr().err
    assert main(["tune", "shelf", "--corpus", str(corpus), "--judgements", str(grades), "--folds", "1"]) == 2
    assert "--folds 1: must be at least 2" in capsys.readouterr().err
    one = grades.parent / "one.csv"
    one.write_text("query,id,grade\napple,l1,3\n")
    assert main(["tune", "shelf", "--corpus", str(corpus), "--judgements", str(one)]) == 2
    assert "two queries" in capsys.readouterr().err


def test_the_hand_graded_demo_notebook_names_only_notes_it_holds(tmp_path, monkeypatch, capsys):
    """tests/data/grades/demo-notebook.csv (14 queries, graded by hand; docs/tuning.md tunes on it): every
    id is a note of the demo notebook, so no grade scores as not found."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("OLAI_RECALL", "off")
    grades = Path(__file__).resolve().parents[1] / "data" / "grades" / "demo-notebook.csv"
    assert main(["eval", "notes", "--judgements", str(grades), "--configs", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["notes"] == [] and out["configs"]["exact"]["metrics"]["requests"] == 14


def test_the_default_budget_tries_every_knob_alone_at_least():
    from engines.code.knobs import KNOBS as CODE
    from engines.eval.tune.candidates import sweep_size
    from engines.eval.tune.search import BUDGET, budget_for
    from engines.notes.knobs import KNOBS as NOTES
    from engines.products.knobs import KNOBS as PRODUCTS

    assert budget_for(NOTES) == budget_for(CODE) == BUDGET  # their sweeps (24, 26) fit in 30
    assert budget_for(PRODUCTS) == sweep_size(tunable(PRODUCTS)) > BUDGET
    tried, how = candidates(tunable(PRODUCTS), {k.name: k.default for k in PRODUCTS}, budget_for(PRODUCTS))
    assert how == "coordinate sweep" and {n for t in tried[1:] for n, v in t.items() if v != PRODUCTS.by_name[n].default} \
        == {k.name for k in tunable(PRODUCTS)}  # every tuned knob moved at least once


@pytest.mark.parametrize("p, adopted", [(None, True), (0.072, True), (0.15, False), (0.46, False)])
def test_a_held_out_gain_within_noise_is_not_adopted(p, adopted):
    """Adopting asks the held-out gain to be upward and, from ten queries, a paired t-test's two-sided p
    under 0.10 (one-sided 0.05): Icecat's public tune chose judge_pool 120 at p = 0.46 and it lost on the
    held-out split; click's adopted setting (p = 0.072) stays adopted; under ten queries no test is run."""
    from engines.eval.tune.search import Tuned, worth_adopting

    tuned = Tuned("products", "coordinate sweep", 30, 46, 5, {"judge_pool": 40}, {"judge_pool": 120},
                  0.7249, 0.7341, 0.75, p=p)
    ok, why = worth_adopting(tuned)
    assert ok is adopted and tuned.to_json()["recommended"] == ({"judge_pool": 120} if adopted else {"judge_pool": 40})
    assert (why == "") is adopted and ("within noise" in why) is (not adopted)
    worse = Tuned("products", "coordinate sweep", 30, 46, 5, {"judge_pool": 40}, {"judge_pool": 120}, 0.7249, 0.72, 0.75, p=0.01)
    assert worth_adopting(worse)[0] is False and "not over today's" in worse.why_not()


def test_knobs_that_move_nothing_are_put_back_before_a_setting_is_adopted():
    """A random draw that won on one knob carries others that move no query: they go back to today's
    value, so what is adopted names only what earned its place; a knob that does move stays."""
    from engines.eval.tune.search import without_passengers

    def scored(tried):  # knob "a" lifts every query, "c" lowers them, "b" and "d" move nothing
        return [[0.5 + 0.1 * (s["a"] != 0) - 0.05 * (s["c"] != 0)] * 3 for s in tried]

    today = {"a": 0, "b": 0, "c": 0, "d": 0}
    drawn = {"a": 1, "b": 7, "c": 0, "d": 2}
    chosen, row = without_passengers(today, drawn, scored([drawn])[0], scored)
    assert chosen == {"a": 1, "b": 0, "c": 0, "d": 0} and row == pytest.approx([0.6] * 3)
    both = {"a": 1, "b": 0, "c": 1, "d": 0}  # "c" costs: putting it back scores higher, so it goes back too
    assert without_passengers(today, both, scored([both])[0], scored)[0] == {"a": 1, "b": 0, "c": 0, "d": 0}
    alone = {"a": 1, "b": 0, "c": 0, "d": 0}
    assert without_passengers(today, alone, scored([alone])[0], scored)[0] == alone


def test_a_setting_tuned_with_recall_off_says_so_where_settings_shows_it(shelf, capsys, monkeypatch):
    """A tune under OLAI_RECALL=off chose without the meaning tiers: the adopted settings say so, since
    with them on the same values may rank worse (products' rrf_k 5 was such a choice)."""
    corpus, grades = shelf
    monkeypatch.setenv("OLAI_RECALL", "off")
    assert main(["tune", "shelf", "--corpus", str(corpus), "--judgements", str(grades), "--adopt"]) == 0
    capsys.readouterr()
    assert main(["settings", "shelf", "--corpus", str(corpus)]) == 0
    assert "this corpus's settings: olai-tui tune: held-out" in (out := capsys.readouterr().out)
    assert "with OLAI_RECALL=off (the meaning tiers off)" in out
