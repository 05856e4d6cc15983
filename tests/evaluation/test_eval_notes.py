"""`olai-tui eval notes`: the collections as the issue reads them, and baselines built as a standard setup ships them."""

from __future__ import annotations

import os
from pathlib import Path
from statistics import mean

import pytest

from engines.eval.cranfield.load import load_cranfield
from engines.eval.vaswani.load import load_vaswani
from engines.eval.metrics import ndcg_at
from engines.eval.configs.notes import CONFIGS, NotesConfigs, requests_of, whole_text
from engines.eval.collection import Collection
from engines.notes.corpus import Note
from engines.notes.engine import TIERS

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("OLAI_SHARED_DATA", REPO.parent / "shared" / "data"))
NOTES = SHARED_DATA / "notes"


def collection_of(texts: dict[str, tuple[str, str]], queries: dict[str, str]) -> Collection:
    notes = [Note(id=i, title=t, body=b, where=i, path="/nowhere") for i, (t, b) in texts.items()]
    return Collection("tiny", notes, queries, {q: {} for q in queries})


def test_cranfield_notes_hold_the_abstract_as_written_title_repeat_and_all():
    collection = load_cranfield(NOTES / "cranfield")
    first = next(n for n in collection.notes if n.id == "1")
    assert first.title == "experimental investigation of the aerodynamics of a wing in a slipstream"
    assert first.body.startswith(first.title + " . an experimental study of a wing in a propeller slipstream")
    assert len(collection.notes) == 1400 and len(collection.queries) == 225


def test_the_bm25_baseline_reads_words_as_bm25s_does():
    collection = collection_of({"a": ("Running shoes", "for the road"), "b": ("Kitchen", "the pans and the pots")},
                               {"1": "runs", "2": "the"})
    rank = NotesConfigs(collection, REPO).factories()["bm25"]()
    assert rank("runs") == ["a"], "Snowball stems: runs and running meet"
    assert rank("the") == [], "English stopwords are not searched"
    assert rank("pan") == ["b"]


@pytest.mark.parametrize("dataset, load, expected", [("vaswani", load_vaswani, 0.428), ("cranfield", load_cranfield, 0.373)])
def test_the_bm25_baseline_reproduces_the_issue_figure_over_all_queries(dataset, load, expected):
    collection = load(NOTES / dataset)
    rank = NotesConfigs(collection, NOTES / dataset).factories()["bm25"]()
    figure = mean(ndcg_at(rank(r.text), r.judged, 10) for r in requests_of(collection))
    assert figure == pytest.approx(expected, abs=0.001)


def test_the_dense_baseline_embeds_each_note_whole_title_and_body_as_one_text():
    note = Note(id="x", title="Slugs  in the frame", body="They ate\n\nthe lettuce.", where="x", path="/nowhere")
    assert whole_text(note) == "Slugs in the frame They ate the lettuce."
    collection = collection_of({"slugs": ("Slugs", "they ate every lettuce seedling in the cold frame"),
                                "bench": ("Workbench", "the legs wobble; glue and screw the rails again")},
                               {"1": "snails eating young plants"})
    rank = NotesConfigs(collection, REPO).factories()["dense"]()
    assert rank("snails eating young plants") == ["slugs", "bench"], "no floor: every note, best first"


def test_every_configuration_is_built_and_merged_is_every_tier_of_the_engine():
    collection = collection_of({"a": ("Running shoes", "for the road")}, {"1": "shoes"})
    factories = NotesConfigs(collection, REPO).factories()
    assert tuple(factories) == CONFIGS
    assert TIERS == ("exact", "words", "semantic")
    assert factories["words"]()("running shoe") == ["a"]  # not every word as written: the words tier finds it
    assert factories["exact"]()("running shoe") == ["a"]  # "shoe" is inside "shoes"
    assert factories["exact"]()("runs") == []
    assert factories["words"]()("runs") == ["a"]
