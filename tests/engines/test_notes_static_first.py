"""Meaning first in seconds, then in full: while the model's index builds, static vectors stand in for
the notes it has not reached, said per row and in the tier; once it is complete they are not asked.

The model is the real MiniLM, its document batches held at a gate the test opens, so which notes have
contextual vectors is decided here, not by the machine's speed."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from engines.answer import RESEMBLANCE, collect
from engines.embed.static import StaticEmbedder
from engines.embed.trained_prose_table import notes_static
from engines.notes.engine import NotesEngine
from engines.notes.exact import ExactMatcher
from engines.notes.static_first import onto
from engines.notes.floor import NotebookFloor

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"
SLUGS = "garden/cold-frames/slugs.md"
OFF_TOPIC = ["a bread recipe", "the treaty of Westphalia", "changing a car tyre", "APAC revenue"]


class Gated:
    """The real model whose document batches wait until ``gate`` is set (queries pass at once)."""

    def __init__(self, inner) -> None:
        self.inner, self.gate, self.batches = inner, threading.Event(), 0

    def info(self):
        return self.inner.info()

    def embed(self, texts, kind):
        if kind == "document":
            self.gate.wait(60)
            self.batches += 1
        return self.inner.embed(texts, kind)


def ask(engine, query, limit=10, tiers=None):
    return collect("notes", query, engine.search(query, limit=limit, tiers=tiers))


def _static_ready(engine, timeout=60.0) -> None:
    engine.start_indexing()
    _until(lambda: engine.static_vectors.state().state == "ready", timeout)


def _until(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


@pytest.fixture()
def held(embedder, tmp_path):
    gated = Gated(embedder)
    engine = NotesEngine(DEMO, embedder=gated, cache_dir=str(tmp_path), static=True)
    yield engine, gated
    gated.gate.set()
    engine.close()


def test_before_any_contextual_vector_the_static_ones_answer_and_say_so(held):
    engine, gated = held
    _static_ready(engine)
    # static vectors rarely prove (their floor is over most paraphrases): this one reaches it
    answer = ask(engine, "my table in the shed rocks when I work on it")
    semantic = answer.tier("semantic")
    # every note has vectors (static ones): the tier answered for the whole vault, the model's progress kept
    assert semantic.status == "answered" and semantic.done == 0 and semantic.of == engine.items()
    assert semantic.vectors == {"static": 1.0, "contextual": 0.0}
    assert semantic.reason == "static 100 %, contextual 0 %"
    assert "vectors" in semantic.to_json()
    meaning = [h for h in answer.hits if h.tier == "semantic"]
    assert meaning and all(h.extras.get("vectors") == "static" for h in meaning)
    status = {t.name: t for t in engine.status().tiers}["semantic"]
    assert status.status == "indexing" and status.vectors["static"] == 1.0  # the footer's line says both


def test_static_rows_show_only_over_their_own_floor(held):
    engine, _ = held
    _static_ready(engine)
    floor = engine.static_vectors.floor()
    assert floor.confident >= notes_static().info().floor  # the notes pane's static table's own floor
    for query in OFF_TOPIC:
        answer = ask(engine, query)
        assert [h.id for h in answer.hits if h.marker == RESEMBLANCE] == [], query
        for hit in answer.hits:
            if hit.tier == "semantic":
                assert hit.extras.get("vectors") == "static" and hit.extras["static_cosine"] < floor.confident, query


def test_contextual_vectors_replace_the_static_ones_and_then_answer_alone(held, embedder, tmp_path):
    engine, gated = held
    _static_ready(engine)
    gated.gate.set()
    _until(lambda: engine.vectors.state().state == "ready", 120)
    alone = NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path / "alone"), wait_for_index=True)
    try:
        for query in ["protecting young plants from snails", "a knife that stays sharp", *OFF_TOPIC]:
            answer = ask(engine, query)
            assert answer.tier("semantic").vectors is None
            assert all("vectors" not in h.extras for h in answer.hits), query
            assert [h.to_json() for h in answer.hits] == [h.to_json() for h in ask(alone, query).hits], query
        assert engine.static_vectors is None  # let go once the model's index answered complete
        assert {t.name: t for t in engine.status().tiers}["semantic"].vectors is None
    finally:
        alone.close()


def test_recall_off_answers_exactly_what_exact_answers_with_static_vectors_in(held, monkeypatch):
    engine, _ = held
    _static_ready(engine)
    for query in ["slugs", "compost heap", "protecting young plants from snails"]:
        want = json.dumps([h.to_json() for h in ExactMatcher(engine.notes).search(query, 10).hits])
        assert json.dumps([h.to_json() for h in ask(engine, query, tiers=("exact",)).hits]) == want
        monkeypatch.setenv("OLAI_RECALL", "off")
        assert json.dumps([h.to_json() for h in ask(engine, query).hits]) == want
        monkeypatch.delenv("OLAI_RECALL")


def test_a_complete_contextual_index_builds_no_static_one(embedder, tmp_path):
    warm = NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path), wait_for_index=True)
    warm.build_index()
    warm.close()
    engine = NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path), static=True)
    try:
        engine.start_indexing()
        _until(lambda: engine.vectors.state().state == "ready", 60)
        assert engine.static_vectors.embedded_texts.count == 0
        assert ask(engine, "protecting young plants from snails").tier("semantic").status == "answered"
    finally:
        engine.close()


def test_an_injected_model_has_no_stand_in_unless_asked(embedder, tmp_path):
    assert NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path)).static_vectors is None


def test_scores_are_mapped_by_the_two_floors():
    static = NotebookFloor(confident=0.60, weak=0.50, ceiling=0.60, embedder=0.55)
    model = NotebookFloor(confident=0.40, weak=0.30, ceiling=0.40, embedder=0.38)
    mapped = onto(__import__("numpy").array([0.45, 0.50, 0.55, 0.60, 0.70]), static, model)
    assert __import__("numpy").allclose(mapped, [0.25, 0.30, 0.35, 0.40, 0.50], atol=1e-6)


class Counted:
    """The static embedder, its document texts counted."""

    def __init__(self) -> None:
        self.inner, self.documents = StaticEmbedder(), 0

    def info(self):
        return self.inner.info()

    def embed(self, texts, kind):
        if kind == "document":
            self.documents += len(texts)
        return self.inner.embed(texts, kind)


def test_an_index_run_builds_the_static_vectors_first_and_an_interrupted_one_keeps_them(embedder, tmp_path):
    """`olai-tui index notes` (build_index): the static vectors whole and saved before the model's; a run
    stopped in the model's part leaves the next process meaning for every note, nothing embedded again."""
    gated, static = Gated(embedder), Counted()
    engine = NotesEngine(DEMO, embedder=gated, cache_dir=str(tmp_path), static=static)
    stages, seen = [], []

    class Bar:
        def stage(self, name):
            stages.append(name)

        def __call__(self, done, of):
            seen.append((stages[-1], done, of))

    run = threading.Thread(target=engine.build_index, args=(Bar(),))
    run.start()
    try:
        _until(lambda: stages == ["static vectors", "contextual vectors"], 60)
        assert engine.static_vectors.state().state == "ready" and static.documents > 0
        last_static = [(done, of) for stage, done, of in seen if stage == "static vectors"][-1]
        assert last_static[0] == last_static[1] > 0, "the static stage reached its end before the next began"
    finally:
        engine.vectors.stop()  # interrupted in the model's part
        gated.gate.set()
        run.join(60)
        engine.close()
    again, model = Counted(), Gated(embedder)
    model.gate.set()
    later = NotesEngine(DEMO, embedder=model, cache_dir=str(tmp_path), static=again)
    try:
        assert later.static_vectors.build().state == "ready"
        assert again.documents == 0, "the static vectors were kept, not embedded again"
    finally:
        later.close()
