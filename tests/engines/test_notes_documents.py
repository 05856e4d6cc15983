"""Notes in every format a notebook holds: each document read into notes, one per page or section,
and each hit saying where in the file it is (engines/notes/readers/, engines/notes/documents.py)."""

from __future__ import annotations

import json

import pytest

from engines.notes.corpus import load_corpus
from engines.notes.engine import NotesEngine
from engines.notes.exact import ExactMatcher
from engines.notes.readers import Unreadable, read_document
from engines.notes.readers import org, pdf
from engines.notes.readers import zipped as zipped_module
from tests.documents_written import docx, pdf as write_pdf, write_folder, zipped


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_folder(tmp_path_factory.mktemp("documents") / "notebook")


@pytest.fixture(scope="module")
def engine(folder, tmp_path_factory):
    return NotesEngine(folder, cache_dir=str(tmp_path_factory.mktemp("cache")))


def ask(engine, query, tiers=("exact", "words")):
    return engine.collect(query, engine.search(query, limit=10, tiers=tiers))


@pytest.mark.parametrize("word, file, where", [
    ("zeppelinword", "paper.pdf", {"page": 3}),
    ("marigoldsentinel", "kilns.org", {"line": 16, "heading": "Cooling"}),
    ("campanologyword", "bells.html", {"line": 4, "heading": "Tuning"}),
    ("docxonlyword", "report.docx", {"heading": "Findings"}),
    ("tablecellword", "report.docx", {}),
    ("docxfootnoteword", "report.docx", {"heading": "Footnotes"}),
    ("odtonlyword", "letter.odt", {"heading": "Greetings"}),
    ("odtfootnoteword", "letter.odt", {"heading": "Greetings"}),
    ("epubonlyword", "novel.epub", {"heading": "Chapter Two"}),
    ("quernstone", "kilns.org", {}),
])
def test_a_word_found_only_in_one_document_finds_it_and_says_where(engine, word, file, where):
    answer = ask(engine, word)
    assert [h.id.split("#")[0] for h in answer.hits] == [file], word
    shown = answer.hits[0].to_json()
    assert {k: shown[k] for k in ("page", "line", "heading") if k in shown} == where
    if "page" in where:
        assert shown["where"] == f"{file} p. {where['page']}"


@pytest.mark.parametrize("word", ["drawerword", "stylesheetword", "scriptword", "navword"])
def test_drawers_scripts_styles_and_navigation_are_not_words(engine, word):
    assert ask(engine, word, tiers=("exact",)).hits == []


def test_the_scan_and_the_image_are_said_and_the_rest_read(engine):
    said = {p.path: p.cause for p in engine.problems}
    assert said["scan.pdf"] == pdf.NO_TEXT
    kinds = {n.path.rsplit(".", 1)[1] for n in engine.notes}
    assert kinds == {"md", "org", "html", "pdf", "docx", "odt", "epub"}


def test_org_titles_tags_aliases_dates_and_links(folder):
    document = org.read((folder / "kilns.org").read_bytes())
    assert document.title == "Pottery kilns" and document.aliases == ("Kiln notes",)
    assert document.tags == ("craft", "fire") and document.id == "0f1e2d3c-aaaa-4bbb-8ccc-123456789abc"
    assert document.links == ("99-other",)
    cooling = document.sections[-1]
    assert cooling.tags == ("schedule",) and cooling.line == 16  # inherited from its parent heading
    firing = document.sections[1]
    assert "the glaze page" in firing.text and "[[" not in firing.text and "*bisque*" not in firing.text
    assert firing.date is not None and "drawerword" not in firing.text


def test_filters_work_on_documents(engine):
    assert {h.id.split("#")[0] for h in ask(engine, "#craft cooling").hits} == {"kilns.org"}
    assert ask(engine, "tag:craft zeppelinword").hits == []


@pytest.mark.parametrize("name", ["kilns.org", "paper.pdf"])
def test_a_single_document_is_a_corpus(folder, name):
    loaded = load_corpus(folder / name)
    assert loaded.notes and all(n.id.split("#")[0] == name for n in loaded.notes)


def test_recall_off_answers_byte_for_byte_what_exact_answers_for_every_kind(engine, monkeypatch):
    monkeypatch.setenv("OLAI_RECALL", "off")
    for query in ("zeppelinword", "cooling", "bronze", "docxonlyword", "chapter", "the"):
        expected = ExactMatcher(engine.notes).search(query, 10)
        answer = engine.collect(query, engine.search(query, limit=10))
        want = [h.to_json() for h in expected.hits]
        for hit in want:  # the engine's hits say where; the matcher's are the same rows without it
            note = engine.notes[[n.id for n in engine.notes].index(hit["id"])]
            from engines.notes.documents import location
            hit.update(location(note))
        assert json.dumps([h.to_json() for h in answer.hits]) == json.dumps(want), query


def test_hostile_documents_are_named_and_bounded(monkeypatch):
    monkeypatch.setattr(zipped_module, "MAX_EXPANDED_BYTES", 1 << 20)  # the cap's behaviour, at a cheap size
    bomb = zipped({"word/document.xml": b"<a>" + b" " * (2 << 20) + b"</a>"})
    assert len(bomb) < 20_000
    with pytest.raises(Unreadable, match="zip bomb"):
        read_document("bomb.docx", bomb)
    with pytest.raises(Unreadable, match="damaged"):
        read_document("broken.pdf", b"%PDF-1.4 this is not a pdf")
    with pytest.raises(Unreadable, match="damaged"):
        read_document("broken.docx", b"PK not a zip")
    deep = "<div>" * 50_000 + "deepword" + "</div>" * 50_000  # past any recursion limit
    assert "deepword" in read_document("deep.html", deep.encode()).sections[0].text


def test_a_pdf_longer_than_the_cap_is_read_to_it_and_said(monkeypatch):
    monkeypatch.setattr(pdf, "MAX_PAGES", 2)
    document = read_document("long.pdf", write_pdf(["the first page of words here", "the second page of words here", "the third page of words here"]))
    assert [s.page for s in document.sections] == [1, 2] and "3 pages" in document.notes[0]


def test_hyphens_at_line_ends_join_and_ligatures_spell_out():
    assert pdf.page_text("implementa\ufffetion of the \ufb01le\r\nnext") == "implementation of the file\nnext"


def test_every_document_suffix_the_walk_finds_has_a_reader():
    from engines.notes.note_files import DOCUMENT_SUFFIXES
    from engines.notes.readers import READERS

    assert set(DOCUMENT_SUFFIXES) == set(READERS)


def test_notes_are_counted_by_kind_and_other_files_only_counted(engine):
    kinds = {"docx": 1, "epub": 1, "html": 1, "md": 1, "odt": 1, "org": 1, "pdf": 1}
    assert engine.kinds() == kinds
    assert engine.counted() == f"7 files ({', '.join(f'1 {k}' for k in kinds)}) as {len(engine.notes)} notes"
    assert ask(engine, "zeppelinword").to_json()["kinds"] == kinds
    assert [p.said() for p in engine.problems if "image" in p.path] == ["skipped 1 image: not notes (.png)"]
