"""A floor per notebook (measured from the shipped probes when its index builds) and weak guesses."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from engines.answer import RESEMBLANCE, WEAK_GUESS, collect
from engines.embed.llama import FLOOR
from engines.notes.engine import NotesEngine
from engines.notes.floor import MARGIN, from_best

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"



def ask(engine, query, limit=10, tiers=None):
    return collect("notes", query, engine.search(query, limit=limit, tiers=tiers))


def test_the_floor_is_the_probes_upper_quartile_plus_a_margin_never_under_the_embedders():
    best = np.linspace(0.1, 0.5, 101)  # p75 = 0.4, p50 = 0.3
    floor = from_best(best, 0.38)
    assert floor.ceiling == pytest.approx(0.4 + MARGIN) and floor.confident == pytest.approx(0.4 + MARGIN)
    assert floor.weak == pytest.approx(0.4), "a weak guess must beat what three junk queries in four reach"
    low = from_best(best - 0.2, 0.38)
    assert low.confident == 0.38, "the embedder's floor stays the lower bound"


def test_each_notebook_measures_its_floor_when_its_index_builds_and_caches_it(tmp_path, embedder):
    notebook = tmp_path / "notes"
    shutil.copytree(DEMO, notebook)
    cache = tmp_path / "cache"
    engine = NotesEngine(notebook, embedder=embedder, cache_dir=str(cache), wait_for_index=True)
    engine.build_index()
    floor = engine.semantic.floor()
    assert floor.probes >= 200 and floor.confident >= FLOOR and floor.weak < floor.confident
    saved = sorted((cache / "floors").glob("floor-*.json"))
    assert len(saved) == 1, "cached with the index"
    (notebook / "garden" / "new.md").write_text("# Dahlias\n\nLift the tubers after the first frost.\n")
    engine.reload()
    engine.build_index()
    engine.semantic.floor()
    assert len(sorted((cache / "floors").glob("floor-*.json"))) == 2, "a change of notes measures again"
    engine.close()


def test_the_snails_paraphrase_stays_confident_on_the_demo_notebook(embedder):
    engine = NotesEngine(DEMO, embedder=embedder, wait_for_index=True)
    answer = ask(engine, "protecting young plants from snails")
    slugs = next(h for h in answer.hits if h.id == "garden/cold-frames/slugs.md")
    assert slugs.marker == RESEMBLANCE and "strength" not in slugs.extras
    assert slugs.extras["passage"] >= engine.semantic.floor().confident
    engine.close()


def test_weak_guesses_show_only_when_no_evidence_answered(embedder):
    engine = NotesEngine(DEMO, embedder=embedder, wait_for_index=True)
    answer = ask(engine, "a bread recipe")  # no note on bread: the kitchen notes, as guesses
    floor = engine.semantic.floor()
    assert answer.hits and all(h.marker == WEAK_GUESS for h in answer.hits)
    assert all(floor.weak <= h.extras["passage"] < floor.confident for h in answer.hits)
    assert [h.score for h in answer.hits] == sorted((h.score for h in answer.hits), reverse=True)
    assert [h.to_json()["strength"] for h in answer.hits] == ["weak"] * len(answer.hits)
    assert answer.tier("semantic").reason.startswith("no confident match")
    # the same neighbours exist under the floor for a query with evidence, and are not shown beside it
    for query in ("seedlings", "cold frame slugs copper tape", "jam"):
        assert not [h for h in ask(engine, query).hits if h.marker == WEAK_GUESS], query
    engine.close()


def test_a_note_sharing_only_incidental_words_is_not_evidence_and_the_weak_guesses_show(tmp_path, embedder):
    notebook = tmp_path / "notes"
    shutil.copytree(DEMO, notebook)
    # holds "recipe", half of "a bread recipe"'s words, and is about something else entirely
    (notebook / "workshop" / "sockets.md").write_text(
        "# Shed wiring\n\nOne extension lead feeding the saw, the heater and the kettle is a recipe for "
        "disaster: give the saw its own circuit.\n")
    engine = NotesEngine(notebook, embedder=embedder, cache_dir=str(tmp_path / "cache"), wait_for_index=True)
    answer = ask(engine, "a bread recipe")
    assert "workshop/sockets.md" not in [h.id for h in answer.hits], "one shared word, no shared meaning"
    assert answer.hits and all(h.marker == WEAK_GUESS for h in answer.hits), "so nothing answered: guesses"
    # without the meaning tier there is nothing to weigh the word against: the word alone shows it
    words_only = ask(engine, "a bread recipe", tiers=("exact", "words"))
    assert [h.id for h in words_only.hits] == ["workshop/sockets.md"]
    # and a query it does answer by meaning keeps it
    assert "workshop/sockets.md" in [h.id for h in ask(engine, "saw circuit overload recipe").hits]
    # where nothing else answers at all, not even a guess, the shared words are still shown: not an empty answer
    movies = ask(engine, "disaster movies")
    assert [(h.id, h.tier, h.marker) for h in movies.hits] == [("workshop/sockets.md", "words", "")]
    engine.close()
