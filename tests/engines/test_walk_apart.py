"""A large vault's walk in a second process (engines/notes/walk_apart.py): the same files, stats and
problems as the walk here, and a failed child costs nothing but the time it took."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import engines.notes.store as store_module
import engines.notes.walk_apart as walk_apart
from engines.notes.corpus import load_corpus
from engines.notes.engine import NotesEngine
from engines.notes.walk_apart import WalkApart, found_here
from tests.engines.test_notes_store import write  # a note written with a stat older than the racy window


@pytest.fixture()
def tangled(tmp_path: Path) -> Path:
    """Links, a cycle, a name that is not UTF-8, hidden and skipped folders, a FIFO, an empty note."""
    root = tmp_path / "vault"
    write(root / "garden" / "slugs.md", "# Slugs\n\nCopper tape.\n")
    write(root / "garden" / "deep" / "frost.txt", "Frost\n\nFleece the beans.\n")
    write(root / "plan.jsonl", '{"id": 1, "title": "Sowing"}\nnot json\n')
    write(root / ".obsidian" / "hidden.md", "# Hidden\n")
    write(root / "node_modules" / "x.md", "# Skipped\n")
    write(root / "empty.md", "")
    (root / "garden" / "up").symlink_to("..")  # a cycle
    (root / "linked.md").symlink_to(root / "garden" / "slugs.md")  # the same file twice: once
    (root / "elsewhere").symlink_to(root / "garden" / "deep")  # a linked folder, already walked
    (root / "dangling.md").symlink_to(root / "gone.md")
    os.mkfifo(root / "pipe.md")
    odd = os.fsencode(str(root)) + b"/caf\xe9.md"
    with open(odd, "w", encoding="utf-8") as fh:
        fh.write("# Cafe\n\nnot a UTF-8 name\n")
    return root


def test_the_child_finds_what_the_walk_here_finds(tangled):
    here = found_here(str(tangled))
    there = WalkApart(str(tangled)).found()
    assert there is not None, "the child process did not answer"
    assert there == here
    assert len(here.paths) >= 6 and any(p.path == "garden/up" for p in here.problems)


def test_a_child_that_cannot_walk_is_answered_by_none(tangled, monkeypatch):
    monkeypatch.setattr(walk_apart, "_HOME", str(tangled / "no-engines-here"))  # its import fails
    assert WalkApart(str(tangled)).found() is None


@pytest.mark.parametrize("child", ["works", "fails"])
def test_a_large_vault_opened_with_its_walk_apart_reads_what_changed_while_closed(tangled, tmp_path, monkeypatch,
                                                                                  child):
    monkeypatch.setattr(store_module, "WALK_APART_FROM", 0)  # every saved index counts as large
    if child == "fails":
        monkeypatch.setattr(walk_apart, "_HOME", str(tmp_path / "nowhere"))
    cache = str(tmp_path / "cache")
    first = NotesEngine(tangled, cache_dir=cache)
    first._words.ranked("warm")
    first._words.store.wait_saved()
    write(tangled / "garden" / "slugs.md", "# Slugs\n\nBeer traps work better.\n")  # edited
    write(tangled / "kitchen" / "jam.md", "# Jam\n\nPlum jam.\n")  # added
    (tangled / "plan.jsonl").unlink()  # deleted
    again = NotesEngine(tangled, cache_dir=cache)
    fresh = load_corpus(tangled)
    assert again.notes == fresh.notes
    assert sorted(p.said() for p in again.problems) == sorted(p.said() for p in fresh.problems)
    assert again.notices() == []
