"""The notes preview lays out Markdown (headings, lists, tables, code) and marks the query's words."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from engines.answer import Hit
from engines.notes.engine import NotesEngine
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.markdown_preview import MarkedMarkdown, readable_links

VAULT = Path(__file__).resolve().parents[1] / "data" / "vault"


def rendered(renderable, width: int = 60) -> tuple[str, Console]:
    console = Console(width=width, record=True, force_terminal=True, color_system="truecolor")
    console.print(renderable)
    return console.export_text(styles=False), console


def test_a_markdown_note_is_laid_out_not_shown_raw():
    adapter = EngineAdapter(NotesEngine(VAULT))
    hit = Hit(id="kitchen/bread.md", title="Weekday bread", where="kitchen/bread.md", tier="exact", score=1.0)
    text, _ = rendered(adapter.preview(hit, "flour"))
    assert "Weekday bread" in text and "#kitchen #baking" in text
    assert "|------:" not in text and "─" in text, "the table is drawn, not its pipes"
    assert "1 Mix, rest an hour." in text, "the numbered list is laid out"
    assert "```" not in text and "oven 230 C, 35 min" in text, "the code block is shown without its fences"
    assert "# Method" not in text and "Method" in text, "the heading without its hashes"


def test_the_query_words_are_marked_in_the_laid_out_markdown():
    console = Console(width=40, record=True, force_terminal=True, color_system="truecolor")
    segments = list(console.render(MarkedMarkdown("## Dough\n\n- the flour first\n- then water", ["flour"])))
    marked = [s.text for s in segments if s.style is not None and s.style.reverse]
    assert marked == ["flour"]


def test_wikilinks_show_their_label_and_markup_in_a_note_stays_text():
    assert readable_links("see [[garden/Cold frame|the frame]] and [[Companion planting]] ![[photo.png]]") == \
        "see the frame and Companion planting [photo.png]"
    text, _ = rendered(MarkedMarkdown("a [bold]note[/] \x1b[31m", []))
    assert "[bold]note[/]" in text and "\x1b" not in text


def test_a_plain_text_note_is_still_shown_as_text():
    adapter = EngineAdapter(NotesEngine(Path(__file__).resolve().parents[2] / "fixtures" / "notes"))
    hit = Hit(id="garden/leeks.txt", title="", where="garden/leeks.txt", tier="exact", score=1.0)
    assert adapter.preview(hit, "leeks").__class__.__name__ == "Text"
