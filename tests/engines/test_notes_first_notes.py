"""Meaning for the notes a query is about, first (engines/notes/first_notes.py): a one-shot with time
left embeds its candidates by the model itself, finishes a small notebook and keeps what it embedded;
a search without a deadline (the workbench) puts them at the front of the build's queue.

The real MiniLM: which notes the static table and the words put first is the behaviour under test."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from engines.answer import RESEMBLANCE, collect
from engines.notes.engine import NotesEngine
from engines.notes.first_notes import candidates

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"
SLUGS = "garden/cold-frames/slugs.md"
SNAILS = "protecting young plants from snails"


def ask(engine, query):
    return collect("notes", query, engine.search(query, limit=10))


def test_a_cold_one_shot_answers_the_readme_example_by_the_model_and_keeps_its_vectors(embedder, tmp_path):
    engine = NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path), static=True)
    engine.answer_by = time.monotonic() + 120  # time enough on any machine: what it does, not how fast
    try:
        engine.wait_for(None, 60)  # as `olai-tui search` does: the static vectors, no model build beside
        assert engine.vectors.embedded_texts.count == 0
        answer = ask(engine, SNAILS)
        meaning = [h for h in answer.hits if h.tier == "semantic"]
        assert meaning and meaning[0].id == SLUGS and meaning[0].marker == RESEMBLANCE
        assert "vectors" not in meaning[0].extras  # the model's own vectors ranked it, not the static ones
        # the 37-note demo was finished within the budget: the tier answered, as after `--wait`
        assert answer.tier("semantic").status == "answered" and engine.vectors.state().state == "ready"
    finally:
        engine.close()
    again = NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path), static=True)
    try:  # kept: the next process finds every note's vectors in the cache and embeds nothing
        state = again.vectors.state()
        assert state.done == state.of == again.items()
    finally:
        again.close()


def test_candidates_take_the_static_and_the_words_heads_in_turn_leaving_out_what_the_model_has():
    # in turn where the words hold evidence; meaning's first where they do not
    class Ranking:
        def __init__(self, order, n):
            self.notes = [type("N", (), {"id": f"n{i}"})() for i in range(n)]
            self.index_of = {f"n{i}": i for i in range(n)}
            self.rank = np.full(n, -np.inf, np.float32)
            self.rank[order] = np.linspace(1, 0.5, len(order))
            self.from_static = np.zeros(n, bool)
            self._order = np.asarray(order)

        def head(self, k):
            return self._order[:k]

        def shown(self):  # the words ranking's notes shown for their words (words.py)
            return self._order[:self.evidence]

    meaning = Ranking([4, 2, 7], 10)
    meaning.from_static[[4, 7]] = True  # note 2 has the model's vectors already
    words = Ranking([5, 4, 9], 10)
    words.evidence = 1  # note 5 holds enough of the query's words
    assert candidates(meaning, words, depth=3) == [4, 5, 7, 9]
    words.evidence = 0  # single shared words only: the answer is meaning's, and so is the model's first work
    assert candidates(meaning, words, depth=3) == [4, 7, 5, 9]


def test_without_a_deadline_a_search_puts_its_candidates_first_in_the_build(embedder, tmp_path):
    engine = NotesEngine(DEMO, embedder=embedder, cache_dir=str(tmp_path), static=True)
    try:
        static = engine.static_vectors
        static.build()
        index = engine.vectors
        index.open_cache()
        wanted = candidates(engine._static_stand_in(SNAILS, index.ranked(np.zeros(index._cache.dims, np.float32)),
                                                    index.floor()), None)
        first = index.prefer(wanted)
        assert first and index._embedding_order(index._pending())[-len(first):] == first[::-1]
    finally:
        engine.close()


def test_the_shipped_probe_vectors_are_the_shipped_models_and_only_for_these_probes(embedder):
    from engines.notes.floor import load_probes, shipped_probe_vectors

    probes, model = load_probes(), embedder.info().model_id
    shipped = shipped_probe_vectors(model, probes)
    assert shipped is not None and shipped.shape == (len(probes), embedder.info().dims)
    picked = [0, len(probes) // 2, len(probes) - 1]
    assert np.abs(embedder.embed([probes[i] for i in picked], "query") - shipped[picked]).max() < 1e-4
    assert shipped_probe_vectors(model, probes[:-1] + ["another probe"]) is None  # probes.txt edited
    assert shipped_probe_vectors("another-model", probes) is None
