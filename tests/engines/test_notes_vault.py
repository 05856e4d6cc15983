"""Notebooks kept as Obsidian or Logseq vaults: front matter, aliases, wikilinks, tags, dates, skipped folders."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engines.answer import collect
from engines.notes.chunks import passages
from engines.notes.corpus import load_corpus
from engines.notes.engine import NotesEngine

VAULT = Path(__file__).resolve().parents[1] / "data" / "vault"


def notes():
    return {n.id: n for n in load_corpus(VAULT).notes}


def day(note) -> str:
    return dt.datetime.fromtimestamp(note.date, dt.timezone.utc).date().isoformat()


def test_editor_folders_trash_attachments_and_logseqs_own_folder_are_not_notes():
    ids = set(notes())
    assert not [i for i in ids if i.startswith((".obsidian/", ".trash/", "attachments/", "logseq/"))], ids
    assert {"pages/Sourdough.md", "journals/2024_03_01.md"} <= ids, "Logseq pages and journals are notes"


def test_front_matter_is_read_as_yaml_title_aliases_tags_and_date():
    slug = notes()["garden/slug-patrol.md"]
    assert slug.title == "Slug patrol" and slug.aliases == ("Snail defence", "Night rounds")
    assert set(slug.tags) == {"garden", "pests", "organic"}
    assert day(slug) == "2024-05-10"
    assert day(notes()["garden/cold-frame.md"]) == "2023-04-02", "created: when there is no date:"
    assert day(notes()["garden/companion-planting.md"]) == "2024-06-20", "updated: as a last resort"
    assert notes()["garden/companion-planting.md"].tags == ("garden",), "tags: as one string"


def test_logseq_properties_and_journal_names():
    page, journal = notes()["pages/Sourdough.md"], notes()["journals/2024_03_01.md"]
    assert page.title == "Sourdough" and page.aliases == ("Leaven",) and set(page.tags) == {"kitchen", "baking"}
    assert journal.title == "2024-03-01" and day(journal) == "2024-03-01"


def test_a_malformed_front_matter_is_named_once_and_the_note_still_read_as_text():
    load = load_corpus(VAULT)
    problems = [p for p in load.problems if p.path == "kitchen/broken-front.md"]
    assert len(problems) == 1 and "malformed front matter" in problems[0].cause and "line 3" in problems[0].cause
    note = next(n for n in load.notes if n.id == "kitchen/broken-front.md")
    assert "crumbs" in note.body and "kitchen" in note.tags


def test_wikilinks_read_as_their_words_and_attachments_as_none():
    text = " ".join(passages(notes()["garden/slug-patrol.md"]))
    assert "frame Cold frame" in text and "Companion planting" in text
    assert "[[" not in text and "photo" not in text
    assert "Snail defence" in passages(notes()["garden/slug-patrol.md"]), "an alias is embedded as a title is"


def test_an_alias_is_searched_like_the_title():
    engine = NotesEngine(VAULT)
    answer = collect("notes", "snail defence", engine.search("snail defence", tiers=("exact", "words")))
    assert answer.hits[0].id == "garden/slug-patrol.md" and answer.hits[0].tier == "exact"
    assert answer.hits[0].score == 3.0, "found in an alias: ranked as a title match"


@pytest.mark.parametrize("block, cause", [("date: 2024-13-45", "month must be in 1..12"),
                                          ("[" * 5000, "nest"),  # libyaml: "maximum nesting depth"; Python: too deep
                                          ("title: !!python/object/apply:os.system [echo]", "could not determine a constructor"),
                                          ("- just\n- a list", "a YAML list, not a mapping")],
                         ids=["impossible date", "nested", "python tag", "a list"])
def test_any_bad_front_matter_is_one_problem_and_the_note_is_still_read(tmp_path, block, cause):
    (tmp_path / "n.md").write_text(f"---\n{block}\n---\n# Kept\nthe body is searched\n")
    load = load_corpus(tmp_path)
    assert [p.path for p in load.problems] == ["n.md"] and cause in load.problems[0].cause
    assert load.problems[0].said() == str(load.problems[0]), "read as text, not skipped"
    assert "the body is searched" in load.notes[0].body
