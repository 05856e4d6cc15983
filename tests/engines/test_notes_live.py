"""The notes engine kept live by its watcher, on real files: an added, edited or removed note shows on
the next query, and the background index catches up so that meaning follows the new text too."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from engines.answer import collect
from engines.notes.chunks import passages
from engines.notes.engine import NotesEngine
from engines.notes.live import NotesWatcher

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"
WAIT_S = 5.0  # an edit shows within this; the watcher debounces for 50 ms
INDEX_WAIT_S = 30.0  # the background index embeds the demo notebook cold in a few seconds



def ask(engine, query, limit=10, tiers=None):
    return collect("notes", query, engine.search(query, limit=limit, tiers=tiers))


def exact_ids(engine, word) -> list[str]:
    return [h.id for h in ask(engine, word, limit=50, tiers=("exact",)).hits]


def eventually(check, timeout=WAIT_S, what="the change"):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not show within {timeout} s")
        time.sleep(0.05)


@pytest.fixture
def live(tmp_path, embedder):
    corpus = tmp_path / "notes"
    shutil.copytree(DEMO, corpus)
    engine = NotesEngine(corpus, embedder=embedder, cache_dir=str(tmp_path / "cache"), wait_for_index=False)
    watcher = NotesWatcher(engine)
    try:
        watcher.start()
        # The watch is set up in its thread: touch a probe note until the engine sees it, then remove it.
        probe = corpus / "probe-note.md"
        deadline = time.monotonic() + WAIT_S
        while "probe-note.md" not in exact_ids(engine, "watcherprobe"):
            assert time.monotonic() < deadline, "the watcher never started"
            probe.write_text(f"# Probe\nwatcherprobe {time.monotonic()}\n")
            time.sleep(0.1)
        probe.unlink()
        eventually(lambda: exact_ids(engine, "watcherprobe") == [], what="the probe's removal")
        yield engine, corpus, watcher
    finally:
        watcher.stop()
        engine.close()


def test_an_added_edited_and_removed_note_shows_on_the_next_query(live):
    engine, corpus, _ = live
    notes_before = len(engine.notes)
    path = corpus / "garden" / "pond.md"
    path.write_text("# Frogs in the pond\nthe first zarquonish frogspawn of spring\n", encoding="utf-8")
    eventually(lambda: exact_ids(engine, "zarquonish") == ["garden/pond.md"], what="the added note")
    assert len(engine.notes) == notes_before + 1

    path.write_text("# Frogs in the pond\nthe first quibblethorp frogspawn of spring\n", encoding="utf-8")
    eventually(lambda: exact_ids(engine, "quibblethorp") == ["garden/pond.md"], what="the edit")
    assert exact_ids(engine, "zarquonish") == [], "the old word no longer finds the edited note"
    assert len(engine.notes) == notes_before + 1

    path.unlink()
    eventually(lambda: exact_ids(engine, "quibblethorp") == [], what="the removal")
    assert "garden/pond.md" not in {n.id for n in engine.notes}
    assert len(engine.notes) == notes_before


def test_an_editor_style_save_of_an_existing_note_replaces_it_once(live):
    engine, corpus, _ = live
    notes_before = len(engine.notes)
    path = corpus / "garden" / "rhubarb.md"
    text = path.read_text(encoding="utf-8")
    temp = path.with_name(".rhubarb.md.swp")  # write beside it, then rename over it, as editors do
    temp.write_text(text + "\nForced the crown under a plumblewick bucket.\n", encoding="utf-8")
    os.replace(temp, path)
    eventually(lambda: exact_ids(engine, "plumblewick") == ["garden/rhubarb.md"], what="the saved edit")
    assert len(engine.notes) == notes_before, "the edited note replaced its old self, not joined it"
    assert [n.id for n in engine.notes].count("garden/rhubarb.md") == 1


def test_an_edit_in_an_outline_file_replaces_its_nodes(live):
    engine, corpus, _ = live
    path = corpus / "workshop" / "bench-build.jsonl"
    nodes_before = [n.id for n in engine.notes if n.id.startswith("workshop/bench-build.jsonl#")]
    with open(path, "a", encoding="utf-8") as out:
        out.write('{"id":"dogs","parent":"bench","title":"Bench dogs","desc":"brass snorkelwood dogs"}\n')
    eventually(lambda: exact_ids(engine, "snorkelwood") == ["workshop/bench-build.jsonl#dogs"], what="the new node")
    nodes_after = [n.id for n in engine.notes if n.id.startswith("workshop/bench-build.jsonl#")]
    assert nodes_after == nodes_before + ["workshop/bench-build.jsonl#dogs"]


POND = ("# Frogs in the pond\n\nThe frogspawn appeared in the pond in March; the tadpoles hatched two weeks later "
        "and the newts ate half of them.\n")
MOWER = ("# Sharpening the mower blade\n\nTook the blade off the lawnmower, filed the cutting edge back to bright "
         "metal and balanced it on a nail before refitting it.\n")
POND_QUERY = "frog eggs turning into tadpoles"
MOWER_QUERY = "keeping the lawnmower cutting cleanly"


def semantic_score(engine, query, note_id) -> float | None:
    answer = ask(engine, query, tiers=("semantic",))  # the semantic tier alone: the words tier may find it too
    hits = [h for h in answer.hits if h.id == note_id]
    assert all(h.tier == "semantic" and h.marker == "≈" for h in hits), hits
    return hits[0].extras["passage"] if hits else None  # its best passage's cosine (the score ranks: issue 61)


def caught_up(engine, query, note_id):
    """The index is ready again and the note answers the query by meaning: its score, else None."""
    if engine.semantic.state().state != "ready":
        return None
    return semantic_score(engine, query, note_id)


def test_meaning_follows_an_edit_once_the_background_index_catches_up(live, embedder):
    engine, corpus, _ = live
    engine.start_indexing()
    eventually(lambda: engine.semantic.state().state == "ready", INDEX_WAIT_S, "the first index")

    path = corpus / "garden" / "pond.md"
    path.write_text(POND, encoding="utf-8")
    eventually(lambda: caught_up(engine, POND_QUERY, "garden/pond.md"), INDEX_WAIT_S, "the added note's meaning")

    path.write_text(MOWER, encoding="utf-8")
    score = eventually(lambda: caught_up(engine, MOWER_QUERY, "garden/pond.md"), INDEX_WAIT_S, "the edit's meaning")
    assert semantic_score(engine, POND_QUERY, "garden/pond.md") is None, "the old text's vector still answers"

    # The row's passage cosine is the new text's, embedded afresh: its best passage, as the floor reads it.
    note = next(n for n in engine.notes if n.id == "garden/pond.md")
    query = embedder.embed([MOWER_QUERY], "query")[0]
    fresh = float(np.max(embedder.embed(passages(note), "document") @ query))
    assert score == pytest.approx(fresh, abs=2e-3)
    assert engine.semantic.notices() == []


def test_a_note_in_a_new_folder_shows_too(live):
    engine, corpus, _ = live
    folder = corpus / "greenhouse" / "staging"
    folder.mkdir(parents=True)
    (folder / "heater.md").write_text("# Paraffin heater\nthe wick wants trimming before the frostmorrow\n")
    eventually(lambda: exact_ids(engine, "frostmorrow") == ["greenhouse/staging/heater.md"], what="the new folder's note")
    shutil.rmtree(corpus / "greenhouse")
    eventually(lambda: exact_ids(engine, "frostmorrow") == [], what="the removed folder's note")
