"""The engine side of the workbench's settings view (issue 62): a run scored again after a grade gives what
the runner gives, a tried setting's deltas, the steps a knob takes, and an item found by title or path."""

from __future__ import annotations

import pytest

from engines.eval.judgements.finding import find
from engines.eval.judgements.rescore import rescored
from engines.eval.judgements.suite import open_judged
from engines.eval.tune.search import answers_of
from engines.eval.tune.trial import step, steps, try_setting
from engines.knobs import Knob
from tests.tuning.test_tune import SHELF, WORDS, ShelfEngine, shelf  # noqa: F401 - shelf: the fixture


def test_scored_again_from_the_kept_answers_gives_the_runner_s_figures_and_follows_a_grade(shelf):  # noqa: F811
    corpus, grades = shelf
    engine = ShelfEngine(corpus)
    suite = open_judged(engine, corpus, file=grades)
    table = suite.run()[0]
    again = rescored(table, suite.requests, suite.summed)
    assert again.metrics == table.metrics  # nothing changed: the runner's figures exactly
    apple = next(r for r in suite.requests if r.text == "apple")
    apple.judged["l0"] = 3.0  # the long line, first today, graded exactly right: apple's answer is ideal
    moved = rescored(table, suite.requests, suite.summed)
    row = next(r for r in moved.requests if r["query"] == "apple")
    assert row["configs"]["answer"]["ndcg@10"] == 1.0 and row["configs"]["answer"]["right_first"] == 1.0
    fresh = suite.run()[0]  # asked again: the same figures as scored from the kept answers
    assert {k: v for k, v in moved.metrics["answer"].items() if not k.endswith("_ms")} == \
        {k: v for k, v in fresh.metrics["answer"].items() if not k.endswith("_ms")}


def test_a_tried_setting_gives_each_query_s_delta_and_leaves_the_settings_in_force(shelf):  # noqa: F811
    corpus, grades = shelf
    engine = ShelfEngine(corpus)
    suite = open_judged(engine, corpus, file=grades)
    trial = try_setting(answers_of(engine), SHELF, suite.requests, {"shortness": 0.5})
    before, after = trial.totals()
    assert before < after and trial.moved() == (len(WORDS), 0)
    assert all(d.after == 1.0 and d.change > 0 for d in trial.deltas())
    assert SHELF.value("shortness") == 0.0  # only while the trial answered


def test_a_knob_steps_by_ones_over_a_short_int_range_and_over_nine_points_otherwise():
    short = Knob("guesses", "int", 3, low=0, high=6, does="", measured="")
    assert steps(short, 3) == [0, 1, 2, 3, 4, 5, 6]
    assert step(short, 6, 1) == 6 and step(short, 0, -1) == 0  # a range stops at its ends
    weight = Knob("weight", "float", 1.0, low=0.25, high=3.0, does="", measured="")
    assert steps(weight, 1.0) == [0.25, 0.594, 0.938, 1.0, 1.281, 1.625, 1.969, 2.312, 2.656, 3.0]
    assert step(weight, 2.31, -1) == 1.969  # a value adopted off the grid steps to its neighbours
    choice = Knob("judge", "choice", "rules", choices=("rules", "model"), does="", measured="")
    assert step(choice, "model", 1) == "rules"  # choices go round


class Listed:
    evidence_tiers = ("words",)

    def listing(self):
        return [("notes/garden/slugs.md", "Slugs in the cold frame", "garden/slugs.md:1"),
                ("notes/kitchen/jam.md", "Strawberry jam, June batch", "kitchen/jam.md:1"),
                ("notes/kitchen/jelly.md", "Bramble jelly", "kitchen/jelly.md:1"),
                ("pkg/_client.py::BaseClient.timeout@257", "BaseClient.timeout", "pkg/_client.py:257")]


@pytest.mark.parametrize("typed, first", [
    ("jam", "notes/kitchen/jam.md"),  # a word of the title
    ("KITCHEN jelly", "notes/kitchen/jelly.md"),  # its folder and a title word, whatever the case
    ("_client.py", "pkg/_client.py::BaseClient.timeout@257"),  # its path
    ("timeout@257", "pkg/_client.py::BaseClient.timeout@257"),  # its id
    ("brambel", "notes/kitchen/jelly.md"),  # a typo: the nearest by rapidfuzz
])
def test_an_item_is_found_by_title_path_or_id(typed, first):
    assert find(Listed(), typed)[0].id == first


def test_nothing_typed_finds_nothing_and_nothing_near_finds_nothing():
    assert find(Listed(), "  ") == [] and find(Listed(), "xylophone quartet") == []
