"""`olai-tui eval notes --dataset roadmap`: the dev set as written, its scoring, and the held-out file flag."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.eval.roadmap.configs import DEV, RoadmapSetError, load_requests, score
from engines.eval.runner import Outcome
from engines.notes.corpus import load_corpus

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("OLAI_SHARED_DATA", REPO.parent / "shared" / "data"))
ROADMAP = SHARED_DATA / "notes" / "olai-roadmap.jsonl"
PROBES = REPO / "engines" / "notes" / "probes.txt"


def test_the_dev_set_holds_40_paraphrases_of_real_nodes_and_40_off_topic_queries():
    requests = load_requests(DEV, "dev", "olai-roadmap.jsonl#")
    paraphrases = [r for r in requests if r.judged]
    off_topic = [r for r in requests if not r.judged]
    assert len(paraphrases) >= 40 and len(off_topic) >= 40
    if ROADMAP.exists():
        ids = {n.id for n in load_corpus(ROADMAP).notes}
        assert all(set(r.judged) <= ids for r in paraphrases), "every acceptable node exists"


def test_the_probe_queries_are_many_and_none_is_an_evaluation_query():
    probes = [l.strip().lower() for l in PROBES.read_text(encoding="utf-8").splitlines() if l.strip() and not l.startswith("#")]
    assert len(probes) >= 200 and len(set(probes)) == len(probes)
    evaluated = {r.text.lower() for r in load_requests(DEV, "dev", "")}
    assert not evaluated & set(probes)


def test_scoring_counts_top3_weak_finds_and_confident_rows_for_off_topic_queries():
    [para, junk] = load_requests(_file([{"query": "undo a change", "accept": ["undo"]},
                                        {"query": "banana bread", "off_topic": True}]), "dev", "r#")
    found_weak = Outcome(["r#a", "r#undo"], 1.0, {"strength": ["weak", "weak"]})
    assert score(found_weak, para) == {"paraphrases": 1, "top3": 1, "top3_weak": 1, "offtopic": None,
                                       "offtopic_confident": None}
    missed = Outcome(["r#a", "r#b", "r#c", "r#undo"], 1.0, {"strength": ["evidence"] * 4})
    assert score(missed, para)["top3"] == 0
    assert score(Outcome(["r#a"], 1.0, {"strength": ["weak"]}), junk)["offtopic_confident"] == 0
    assert score(Outcome(["r#a"], 1.0, {"strength": ["confident"]}), junk)["offtopic_confident"] == 1


def test_a_malformed_request_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "held.jsonl"
    path.write_text('{"query": "a", "accept": ["x"]}\n{"query": "b"}\n')
    with pytest.raises(RoadmapSetError, match=r"held.jsonl:2: expected"):
        load_requests(path, "heldout", "")
    done = subprocess.run([sys.executable, "-m", "olai_tui.cli", "eval", "notes", "--dataset", "roadmap",
                           "--split", "heldout", "--queries", str(path)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "held.jsonl:2" in done.stderr and "Traceback" not in done.stderr


def _file(rows) -> Path:
    import tempfile

    fd, name = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "w") as fh:
        fh.write("\n".join(json.dumps(r) for r in rows) + "\n")
    return Path(name)
