"""Filters in a notes query (#tag, tag:, in:, path:, after:, before:), applied inside every tier before ranking."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engines.notes.corpus import load_corpus
from engines.notes.filters import read_query

REPO = Path(__file__).resolve().parents[2]
VAULT = REPO / "tests" / "data" / "vault"
NOTES = {n.id: n for n in load_corpus(VAULT).notes}
JAN_2024 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc).timestamp()


def search(query: str, tiers: str) -> dict:
    # --wait: the semantic tier's whole answer is what is filtered; a one-shot search's default budget
    # answered with the meaning index half built under a loaded run (seen once: no semantic rows at all)
    done = subprocess.run([sys.executable, "-m", "olai_tui.cli", "search", "notes", query, "--corpus", str(VAULT),
                           "--tiers", tiers, "--json", "--wait"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def garden(note_id: str) -> bool:
    return "garden" in NOTES[note_id].tags


def kitchen_2024(note_id: str) -> bool:
    note = NOTES[note_id]
    return note_id.startswith("kitchen/") and note.date >= JAN_2024


@pytest.mark.parametrize("tiers", ["exact", "words", "semantic", "exact,words,semantic"])
@pytest.mark.parametrize("query, words, passes", [("#garden slugs", "slugs", garden),
                                                  ("in:kitchen bread after:2024-01-01", "bread", kitchen_2024)])
def test_filters_apply_inside_every_tier(tiers, query, words, passes):
    unfiltered = search(words, tiers)
    assert [h for h in unfiltered["hits"] if not passes(h["id"])], "without the filters this tier finds others"
    answer = search(query, tiers)
    assert answer["hits"], query
    assert all(passes(h["id"]) for h in answer["hits"]), [h["id"] for h in answer["hits"]]


def test_understood_names_the_filters_read():
    understood = search("#garden slugs", "exact")["understood"]
    assert understood["tags"] == ["garden"] and understood["words"] == "slugs" and understood["notes"] == []
    understood = search("in:kitchen bread after:2024-01-01", "exact")["understood"]
    assert (understood["folders"], understood["after"], understood["words"]) == (["kitchen"], "2024-01-01", "bread")


def test_a_word_that_looks_like_a_filter_but_is_not_is_searched_as_a_word_and_said():
    read = read_query("slugs after:soon #weeds in:attic tag:", list(NOTES.values()))
    assert not read.filters.active
    assert read.words == "slugs after:soon #weeds in:attic tag:"
    assert len(read.said) == 4 and "not a date" in read.said[0] and "no note is tagged #weeds" in read.said[1]
    assert "no folder 'attic'" in read.said[2]
    plain = read_query("PR #56, c# and http://example.org", list(NOTES.values()))
    assert plain.words == "PR #56, c# and http://example.org" and not plain.said and not plain.read_anything


def test_filters_alone_list_every_note_they_let_through_newest_first():
    answer = search("#garden before:2024-06-01", "exact,words,semantic")
    assert [h["id"] for h in answer["hits"]] == ["garden/slug-patrol.md", "garden/cold-frame.md"]
    assert answer["understood"]["before"] == "2024-06-01"


def test_nested_tags_folders_and_paths():
    notes = list(NOTES.values())
    assert read_query("in:garden", notes).filters.folders == ["garden"]
    assert read_query("path:bread", notes).filters.paths == ["bread"]
    assert {n.id for n in notes if read_query("path:bread", notes).filters.allows(n)} == {
        "kitchen/bread.md", "kitchen/old-bread.md", "pantry/bread-bin.md"}
