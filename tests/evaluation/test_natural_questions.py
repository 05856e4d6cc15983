"""The natural-question dev set (engines/eval/natural): its files read, its shape as the issue asks (at
least 60 questions, 12 dev repositories, 6 languages, grades 0-3), and its scoring of symbols."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.errors import BadInput
from engines.eval.natural.run import QUESTIONS, figures, load_questions, symbols_of
from engines.locations import shared_data


def test_the_set_is_as_large_and_as_wide_as_the_issue_asks_and_dev_only():
    files = sorted(QUESTIONS.glob("*.csv"))
    questions = {f.stem: load_questions(f) for f in files}
    assert sum(len(q) for q in questions.values()) >= 60 and len(files) >= 12
    for qs in questions.values():
        for question, graded in qs:
            assert graded and max(graded.values()) == 3 and set(graded.values()) <= {0, 1, 2, 3}
            assert "::" not in question and "_" not in question and "(" not in question  # words, not code
    semble = shared_data() / "code" / "semble"
    if not (semble / "splits.json").is_file():
        pytest.skip("semble's data is not staged here")
    splits = json.loads((semble / "splits.json").read_text())
    assert set(questions) <= set(splits["dev"]) and not set(questions) & set(splits["heldout"])
    languages = {r["language"] for r in json.loads((semble / "repos.json").read_text()) if r["name"] in questions}
    assert len(languages) >= 6


def test_a_further_chunk_is_its_symbol_and_right_at_3_asks_for_a_grade_3():
    assert symbols_of(["a.py::f", "a.py::f@40", "b.py::g", "a.py::f@80"]) == ["a.py::f", "b.py::g"]
    assert symbols_of(["a.ts::f@96@196", "a.ts::f", "b.py::g@7"]) == ["a.ts::f", "b.py::g"]  # a chunk's chunk
    graded = {"a.py::f": 3, "b.py::g": 2}
    assert figures(["x", "y", "a.py::f"], graded)["right@3"] == 1.0
    assert figures(["x", "y", "z", "a.py::f"], graded)["right@3"] == 0.0
    assert figures(["b.py::g", "x"], graded)["right@3"] == 0.0  # a stand-in is not the answer
    assert figures(["x", "a.py::f"], graded)["mrr@10"] == pytest.approx(0.5)


def test_a_bad_line_is_named_with_its_file(tmp_path: Path):
    bad = tmp_path / "click.csv"
    bad.write_text("query,id,grade\nhow,core.py::f,7\n", encoding="utf-8")
    with pytest.raises(BadInput, match="click.csv:2"):
        load_questions(bad)
