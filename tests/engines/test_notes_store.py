"""The saved notes index (engines/notes/store.py): an open reads back what is unchanged, re-reads what
changed while closed, and a damaged, foreign or older index is named once, discarded and rebuilt,
with the same answers as a fresh read. Small vaults under tmp_path, each with a cache of its own.
"""

from __future__ import annotations

import dataclasses
import json
import mmap
import pickle
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import engines.notes.saved_index as saved_index
import engines.notes.store as store_module
import engines.notes.word_rows as word_rows
from engines.index_folder import MANIFEST
from engines.lexical import BM25Index
from engines.notes.bodies import SavedBody, bodies_of
from engines.notes.corpus import load_corpus, stored_body
from engines.notes.engine import NotesEngine
from engines.notes.words import note_words

REPO = Path(__file__).resolve().parents[2]
LONG_AGO = time.time() - 3600  # stats older than the racy window are trusted


def write(path: Path, text: str, when: float = LONG_AGO) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (when, when))


@pytest.fixture()
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root / "garden" / "slugs.md", "---\ntitle: Slugs\ntags: [garden]\naliases: [snails]\ncreated: 2024-05-01\n---\n"
          "Copper tape keeps slugs off the seedlings.\n")
    write(root / "garden" / "frost.md", "# Frost\n\nFleece over the beans when frost is forecast.\n")
    write(root / "kitchen" / "jam.md", "# Jam\n\nPlum jam sets at 105 degrees; test on a cold saucer.\n")
    write(root / "workshop" / "vice.md", "# Bench vice\n\nThe vice wobbles: tighten the bolts under the bench.\n")
    write(root / "bad.md", "")  # skipped, named on every open (from the saved index on a warm one)
    write(root / "outline.jsonl", '{"id": 1, "title": "Sowing plan"}\nnot json\n{"id": 2, "title": "Beans", "parent": 1}\n')
    return root


def opened(root: Path, cache: Path) -> NotesEngine:
    engine = NotesEngine(root, cache_dir=str(cache))
    engine._words.ranked("warm")  # the words leg built (and the index saved) before the test looks
    engine._words.store.wait_saved()
    return engine


def answer(engine: NotesEngine, query: str) -> list[tuple[str, str]]:
    batches = list(engine.search(query, limit=10, tiers=("exact", "words")))
    return [(hit.id, hit.tier) for batch in batches for hit in batch.hits]


def counting_reads(monkeypatch) -> list[str]:
    reads: list[str] = []
    real = store_module.load_file

    def load_file(path, root):
        reads.append(os.path.basename(path))
        return real(path, root)

    monkeypatch.setattr(store_module, "load_file", load_file)
    return reads


def index_folder(cache: Path) -> Path:
    (folder,) = (cache / "notes-index").iterdir()
    return folder


def test_a_warm_open_reads_back_the_notes_and_words_a_fresh_read_gives(vault, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = opened(vault, cache)
    reads = counting_reads(monkeypatch)
    second = opened(vault, cache)
    # nothing is read again, the file with no notes neither (its stat and what it said are kept), and
    # nothing is written again: an empty note made every warm open rewrite the whole index
    assert reads == [] and second._words.store.writes == 0
    fresh = load_corpus(vault)
    assert second.notes == fresh.notes == first.notes
    assert [p.said() for p in second.problems] == [p.said() for p in fresh.problems]
    assert second.notices() == []
    plain = BM25Index([note_words(n) for n in fresh.notes])
    for query in (["slug"], ["bench", "bolt"], ["frost", "jam"]):
        np.testing.assert_array_equal(second._words._current()[0].scores(query), plain.scores(query))
    for query in ("slugs", "bench vice", "jam plum", "sowing"):
        assert answer(second, query) == answer(first, query)


def test_files_changed_while_closed_are_read_again_and_only_they(vault, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    opened(vault, cache)
    write(vault / "kitchen" / "jam.md", "# Jam\n\nDamson jam needs more pectin.\n")  # edited
    write(vault / "kitchen" / "bread.md", "# Bread\n\nA damson loaf.\n")  # added
    (vault / "workshop" / "vice.md").unlink()  # deleted
    os.utime(vault / "garden" / "slugs.md", (LONG_AGO + 60, LONG_AGO + 60))  # touched: same bytes, dated inside
    os.utime(vault / "garden" / "frost.md", (LONG_AGO + 60, LONG_AGO + 60))  # touched: dated by its mtime
    reads = counting_reads(monkeypatch)
    engine = opened(vault, cache)
    assert sorted(reads) == ["bread.md", "frost.md", "jam.md"]
    assert engine.notes == load_corpus(vault).notes
    assert next(n for n in engine.notes if n.id == "garden/frost.md").date == LONG_AGO + 60
    assert [i for i, _ in answer(engine, "damson")] == ["kitchen/bread.md", "kitchen/jam.md"]
    assert answer(engine, "plum") == [] and answer(engine, "vice") == []
    reads.clear()
    again = opened(vault, cache)  # what the last open read is saved: nothing new to read
    assert reads == [] and again.notes == engine.notes
    write(vault / "bad.md", "# Now a note\n\nwith words in it\n")  # the empty file written while closed
    reads.clear()
    filled = opened(vault, cache)
    assert reads == ["bad.md"] and filled.notes == load_corpus(vault).notes
    assert [i for i, _ in answer(filled, "words")] == ["bad.md"]


def test_a_file_edited_within_the_racy_window_is_read_again(vault, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    write(vault / "kitchen" / "jam.md", "# Jam\n\nPlum.\n", when=time.time())
    opened(vault, cache)
    (vault / "kitchen" / "jam.md").write_text("# Jam\n\nSloe.\n", encoding="utf-8")  # same size, maybe same tick
    reads = counting_reads(monkeypatch)
    engine = opened(vault, cache)
    assert "jam.md" in reads and answer(engine, "sloe") == [("kitchen/jam.md", "exact")]


def damage_truncated(folder: Path) -> None:
    bodies = next(folder.glob("bodies.*"))
    bodies.write_bytes(bodies.read_bytes()[:10])


def damage_bytes(folder: Path) -> None:
    bodies = next(folder.glob("bodies.*"))
    data = bytearray(bodies.read_bytes())
    data[0] = 0xFF  # the same size, no longer UTF-8
    bodies.write_bytes(bytes(data))


def damage_version(folder: Path) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["format"] = saved_index.FORMAT + 1
    (folder / MANIFEST).write_text(json.dumps(manifest))


def damage_foreign(folder: Path) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["root"] = "/home/someone-else/vault"
    (folder / MANIFEST).write_text(json.dumps(manifest))


def damage_garbled(folder: Path) -> None:
    (folder / MANIFEST).write_bytes(b"\x00\x01 not json")


@pytest.mark.parametrize("damage, said", [(damage_truncated, "truncated"), (damage_version, "format"),
                                          (damage_foreign, "/home/someone-else/vault"), (damage_garbled, "not JSON"),
                                          (damage_bytes, "damaged")])
def test_an_unusable_index_is_named_once_discarded_and_rebuilt(vault, tmp_path, damage, said):
    cache = tmp_path / "cache"
    good = opened(vault, cache)
    damage(index_folder(cache))
    engine = opened(vault, cache)
    notices = engine.notices()
    assert len(notices) == 1 and said in notices[0] and "discarded" in notices[0], notices
    assert str(index_folder(cache)) in notices[0]  # names the file it threw away
    assert engine.notes == good.notes  # nothing lost: every note read from the vault
    for query in ("slugs", "bench vice", "jam plum"):
        assert answer(engine, query) == answer(good, query)
    assert opened(vault, cache).notices() == []  # rebuilt: the next open says nothing


def test_the_cli_says_a_discarded_index_once(vault, tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    run = [sys.executable, "-m", "olai_tui.cli", "search", "notes", "slugs", "--corpus", str(vault), "--json"]
    # exact and words (no model): the words leg builds the index and the command writes it before it exits
    cold = subprocess.run(run + ["--tiers", "exact,words"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert cold.returncode == 0, cold.stderr
    damage_version(index_folder(tmp_path / "xdg" / "olai-tui"))
    done = subprocess.run(run, cwd=REPO, env=dict(env, OLAI_RECALL="off"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "notes index" in line]
    assert len(lines) == 1 and "format" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    # recall off answers what exact search answers, whichever way the notes were read
    exact = [hit for hit in json.loads(cold.stdout)["hits"] if hit["tier"] == "exact"]
    assert json.loads(done.stdout)["hits"] == exact != []


def test_the_index_deleted_while_open_still_answers_and_is_written_again(vault, tmp_path):
    cache = tmp_path / "cache"
    opened(vault, cache)
    engine = opened(vault, cache)  # the saved words matrix is memory-mapped now
    before = answer(engine, "copper tape")
    for path in index_folder(cache).iterdir():
        path.unlink()
    assert answer(engine, "copper tape") == before == [("garden/slugs.md", "exact")]
    assert answer(engine, "tapes") == [("garden/slugs.md", "words")]
    write(vault / "garden" / "beans.md", "# Beans\n\nRunner beans up the canes.\n")
    engine.replace_file(str(vault / "garden" / "beans.md"), [n for n in load_corpus(vault).notes if n.id == "garden/beans.md"])
    assert answer(engine, "runner") == [("garden/beans.md", "exact")]
    engine._words.store.wait_saved()
    assert (index_folder(cache) / MANIFEST).is_file()  # written again from what the engine holds
    reopened = opened(vault, cache)
    assert reopened.notices() == [] and reopened.notes == load_corpus(vault).notes


def test_words_no_note_holds_any_more_leave_the_vocabulary(vault, tmp_path, monkeypatch):
    monkeypatch.setattr(word_rows, "VOCAB_SLACK", 0)  # then: compacted once unused words outnumber half the used
    engine = opened(vault, tmp_path / "cache")
    path = vault / "kitchen" / "jam.md"
    write(path, "# Jam\n\nzanzibarian quinces " + " ".join(f"oddword{i}x" for i in range(60)) + ".\n")
    engine.replace_file(str(path), [n for n in load_corpus(vault).notes if n.id == "kitchen/jam.md"])
    assert answer(engine, "quincing") == [("kitchen/jam.md", "words")]
    assert "zanzibarian" in engine._words.store._rows.ids
    engine.replace_file(str(path), [])  # the note deleted: its words go with it
    assert answer(engine, "zanzibarian") == []
    rows = engine._words.store._rows
    assert "zanzibarian" not in rows.ids and len(rows.vocab) == len(np.unique(rows.terms))
    plain = BM25Index([note_words(n) for n in engine.notes])
    np.testing.assert_array_equal(engine._words._current()[0].scores(["jam", "slug", "bench"]),
                                  plain.scores(["jam", "slug", "bench"]))


def test_a_vault_whose_path_is_not_utf8_opens_warm(tmp_path):
    root = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/odd-\xff-vault"))
    write(root / "a.md", "# A\n\nsome words here\n")
    first = opened(root, tmp_path / "cache")
    again = opened(root, tmp_path / "cache")
    assert first._words.store.writes == 1 and again._words.store.writes == 0
    assert again.notices() == [] and again.notes == first.notes


def test_a_fifo_named_like_a_note_never_blocks_the_open(vault, tmp_path):
    os.mkfifo(vault / "pipe.md")
    engine = opened(vault, tmp_path / "cache")  # no reader would ever open the other end: a blocking open hangs
    assert any(p.path == "pipe.md" for p in engine.problems)
    assert opened(vault, tmp_path / "cache").notes == engine.notes


def test_the_garbage_collector_rests_while_a_vault_opens_and_runs_again_after(tmp_path, monkeypatch):
    # 100,000 notes read back are 100,000s of objects the collector sweeps and finds nothing in: paused,
    # the open took 1.57 s instead of 2.30 s (engines/gcpause.py)
    import gc

    import engines.notes.engine as engine_module

    vault = tmp_path / "vault"
    for i in range(300):
        folder = vault / f"f{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i}.md").write_text(f"---\ntags: [t{i % 5}]\n---\n# Note {i}\n\nBody {i}\n", encoding="utf-8")
    reading = []
    swept = []

    def open_notes(*args, **kwargs):
        reading.append(True)
        try:
            return store_module.open_notes(*args, **kwargs)
        finally:
            reading.clear()

    def sweep(phase, info):
        if phase == "start" and reading:
            swept.append(info["generation"])

    monkeypatch.setattr(engine_module, "open_notes", open_notes)
    assert gc.isenabled()
    threshold = gc.get_threshold()
    gc.callbacks.append(sweep)
    gc.set_threshold(50)  # a sweep every 50 new objects: reading 300 notes would set off dozens
    try:
        for _ in range(2):  # cold (the files read), then warm (from the saved index)
            engine = NotesEngine(vault, cache_dir=str(tmp_path / "cache"))
            list(engine.search("body", limit=3, tiers=("words",)))
            engine.words_tier.store.wait_saved()
            engine.close()
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(sweep)
    assert len(engine.notes) == 300 and swept == []
    assert gc.isenabled()


def folding(monkeypatch) -> list[int]:
    """How many notes the exact tier folds (ExactMatcher built from the notes, not read back)."""
    from engines.notes import exact

    folded: list[int] = []
    real = exact.ExactMatcher.__init__

    def init(self, notes, previous=None):
        folded.append(len(notes))
        real(self, notes, previous)

    monkeypatch.setattr(exact.ExactMatcher, "__init__", init)
    return folded


def test_a_warm_open_takes_the_exact_haystack_from_the_index_and_answers_the_same(vault, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = opened(vault, cache)
    folded = folding(monkeypatch)
    second = opened(vault, cache)
    assert folded == [], "the open takes the fold from the index, and nothing changed: no save folds again"
    (haystack, *text), bloom = second._exact.parts()[:3], second._exact.parts()[3]
    assert isinstance(haystack, mmap.mmap), "read back mapped from the index file, not copied into memory"
    assert [bytes(haystack), *text] == list(first._exact.parts()[:3])
    np.testing.assert_array_equal(bloom, first._exact.parts()[3])
    for query in ("slugs", "bench vice", "jam plum", "sowing", "SNAILS", "105", "garden"):
        assert answer(second, query) == answer(first, query)
    write(vault / "kitchen" / "jam.md", "# Jam\n\nDamson jam needs more pectin.\n")  # changed while closed
    folded.clear()
    third = NotesEngine(vault, cache_dir=str(cache))
    assert folded == [len(third.notes)], "a stale haystack was used"
    assert [i for i, _ in answer(third, "damson")] == ["kitchen/jam.md"] and answer(third, "plum") == []


def test_a_damaged_exact_haystack_is_named_once_and_the_index_rebuilt(vault, tmp_path):
    cache = tmp_path / "cache"
    first = opened(vault, cache)
    (haystack,) = index_folder(cache).glob("exact.*.bin")
    haystack.write_bytes(haystack.read_bytes()[:10])
    engine = NotesEngine(vault, cache_dir=str(cache))
    assert len(engine.notices()) == 1 and "discarded" in engine.notices()[0]
    assert engine.notes == first.notes
    assert answer(engine, "bench vice") == answer(first, "bench vice")


def test_an_index_from_before_the_trigram_filter_is_written_again_once_with_it(vault, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = opened(vault, cache)
    folder = index_folder(cache)
    manifest = json.loads((folder / MANIFEST).read_text())
    (name,) = [n for n in manifest["files"] if n.startswith("exact_trigrams.")]
    del manifest["files"][name]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    (folder / name).unlink()
    older = opened(vault, cache)  # answers (the filter hashed again) and writes a new generation
    assert older.notices() == [] and answer(older, "bench vice") == answer(first, "bench vice")
    assert list(folder.glob("exact_trigrams.*.npy")), "the index was not written again with the filter"
    from engines.notes import trigrams

    hashed = []
    real = trigrams.build
    monkeypatch.setattr(trigrams, "build", lambda *a: hashed.append(1) or real(*a))
    again = NotesEngine(vault, cache_dir=str(cache))
    assert hashed == [] and answer(again, "bench vice") == answer(first, "bench vice"), "the filter was not read back"


def test_a_warm_open_reads_each_body_from_the_index_when_asked_and_a_save_carries_them_over(vault, tmp_path):
    cache = tmp_path / "cache"
    first = opened(vault, cache)
    second = opened(vault, cache)
    by_id = {n.id: n for n in first.notes}
    for note in second.notes:
        assert isinstance(stored_body(note), SavedBody), "held as a place in the index, not as text"
        assert note == by_id[note.id] and note.body == by_id[note.id].body
        assert pickle.loads(pickle.dumps(note)) == note and dataclasses.replace(note).body == note.body
    mixed = [second.notes[2], first.notes[0], *second.notes[:2], *second.notes[3:], second.notes[0]]
    assert bodies_of(mixed) == [n.body for n in mixed], "runs read at once, any order, loose notes between"
    unicode = "# Tea\n\nMatcha ✓ 抹茶, brewed at 80 °C.\n"
    write(vault / "kitchen" / "tea.md", unicode)  # added while closed: the next open saves a new generation
    third = opened(vault, cache)
    fourth = opened(vault, cache)  # its bodies: the third's save, which copied the second's saved bodies
    assert {n.id: n.body for n in fourth.notes} == {n.id: n.body for n in third.notes}
    assert next(n for n in fourth.notes if n.id == "kitchen/tea.md").body == "\nMatcha ✓ 抹茶, brewed at 80 °C.\n"
    assert second.notes[0].body == by_id[second.notes[0].id].body, "an older generation, unlinked, still reads"
