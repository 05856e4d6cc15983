"""A person's grades kept as their data (issue 47): where, in what shape, and that two processes grading
one corpus at once lose nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engines.errors import BadInput
from engines.eval.judgements.store import Judgements

REPO = Path(__file__).resolve().parents[2]


def test_grades_are_kept_under_the_data_folder_with_the_corpus_named(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    corpus = tmp_path / "notes"
    corpus.mkdir()
    store = Judgements("notes", corpus)
    store.grade("snails  and seedlings ", "garden/slugs.md", 3, title="The slugs", where="garden/slugs.md")
    assert store.path.is_relative_to(tmp_path / "data" / "olai-tui" / "judgements" / "notes")
    header = json.loads(store.path.read_text().splitlines()[0])
    assert header["corpus"] == str(corpus.resolve()) and header["engine"] == "notes"
    assert not any(corpus.iterdir())  # nothing written inside the searched folder
    assert Judgements("notes", corpus).of_query("snails and seedlings") == {"garden/slugs.md": 3}


def test_the_latest_grade_wins_and_grading_none_clears(tmp_path):
    store = Judgements("notes", tmp_path / "corpus", folder=tmp_path / "j")
    store.grade("q", "a", 1)
    store.grade("q", "b", 0)
    store.grade("q", "a", 3)
    store.grade("q", "b", None)
    assert store.by_query() == {"q": {"a": 3}}
    with pytest.raises(ValueError):
        store.grade("q", "a", 4)


def test_a_line_cut_short_is_named_once_and_the_rest_are_read(tmp_path):
    store = Judgements("notes", tmp_path / "corpus", folder=tmp_path / "j")
    store.grade("q", "a", 2)
    with open(store.path, "a") as fh:
        fh.write('{"query": "q", "item": "b", "gra\n')
    store.grade("q", "c", 1)
    assert store.of_query("q") == {"a": 2, "c": 1}
    store.all()
    aside = store.path.with_name(store.path.stem + ".damaged.jsonl")
    assert store.problems == [f"{store.path}:3: not a grade (not JSON (edited by hand?)); skipped, moved to "
                              f"{aside.name} beside it"]
    assert json.loads(aside.read_text())["line"] == '{"query": "q", "item": "b", "gra'  # kept, never deleted


def test_the_grades_are_never_written_inside_the_searched_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "inside"))
    with pytest.raises(BadInput, match="inside the searched folder"):
        Judgements("notes", tmp_path)


GRADER = textwrap.dedent('''
    import sys
    from pathlib import Path
    from engines.eval.judgements import store
    store.COMPACT_AFTER = 50  # rewrites happen while the other process appends
    judgements = store.Judgements("notes", sys.argv[1], folder=Path(sys.argv[2]))
    for n in range(150):
        judgements.grade(f"query {n % 7}", f"{sys.argv[3]}-{n}", n % 4)
        judgements.grade(f"query {n % 7}", f"{sys.argv[3]}-{n}", (n + 1) % 4)  # superseded: compaction fodder
''')


def test_two_processes_grading_one_corpus_at_once_lose_no_grade(tmp_path):
    folder = tmp_path / "j"
    runs = [subprocess.Popen([sys.executable, "-c", GRADER, str(tmp_path / "corpus"), str(folder), who], cwd=REPO)
            for who in ("left", "right")]
    assert [p.wait(timeout=120) for p in runs] == [0, 0]
    store = Judgements("notes", tmp_path / "corpus", folder=folder)
    kept = {item: grade for grades in store.by_query().values() for item, grade in grades.items()}
    assert len(kept) == 300
    assert all(kept[f"{who}-{n}"] == (n + 1) % 4 for who in ("left", "right") for n in range(150))
    assert store.problems == []
