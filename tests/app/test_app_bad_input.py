"""The workbench under bad input: tiny terminals, key floods, huge pastes, odd queries, hostile notes."""

from __future__ import annotations

import asyncio
import random

import pytest
from textual import events

from engines.answer import collect
from olai_tui.ui.pane import LIMIT
from olai_tui.ui.text import highlighted, shown
from tests.snapshot_app import SIZE, notes_engine, settle, type_query, workbench

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine = notes_engine(tmp_path_factory.mktemp("cache"))
    assert engine.build_index().state == "ready"
    yield engine
    engine.close()


def expected_ids(engine, query: str) -> list[str]:
    return [hit.id for hit in collect("notes", query, engine.search(query, LIMIT)).hits]


def no_tier_failed(pane) -> bool:
    return all(t.status != "failed" for t in pane.answer.tiers)


async def test_a_40x12_terminal_and_back(engine):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "seedlings")
        pane = app.active_pane
        rows = [hit.id for hit in pane.table.hits]
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        assert pane.input.region.height >= 1 and pane.table.region.height >= 2, "search box and rows still show"
        assert not pane.query_one("#preview").display, "no room for the preview: it steps aside"
        columns = pane.table.columns.values()
        assert sum(column.width + 2 for column in columns) + 2 <= 40, "no row scrolls sideways"
        assert [str(column.label) for column in columns][-2:] == ["tier", "score"]
        app.export_screenshot()  # renders without raising
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert pane.query_one("#preview").display and [hit.id for hit in pane.table.hits] == rows


async def test_a_query_longer_than_the_box_keeps_the_cursor_and_its_last_words_in_view(engine):
    """The search box follows a long query as it is typed and back to its start with home (its virtual
    size is set without a layout of the screen: pane.SearchInput)."""
    app = workbench(engine)
    async with app.run_test(size=(40, 12)) as pilot:
        pane = app.active_pane
        pane.input.focus()
        layouts = []
        refresh = pane.input.refresh
        pane.input.refresh = lambda *a, layout=False, **k: layouts.append(layout) or refresh(*a, layout=layout, **k)
        query = "protecting young plants from snails and slugs"
        await pilot.press(*query)
        await pilot.pause()
        assert pane.input.value == query and pane.input.scroll_x > 0
        # A keystroke repaints the box and never lays the screen out again (it did once a key, 45 here);
        # one layout is the box's own, once, as its text first outgrows it (its scrollbar state).
        assert len(layouts) >= len(query) and sum(layouts) <= 1

        def box() -> str:
            return "".join(segment.text for segment in pane.input.render_line(pane.input.size.height // 2))

        assert "slugs" in box() and "protecting" not in box()
        await pilot.press("home")
        await pilot.pause()
        assert pane.input.scroll_x == 0 and "protecting" in box()


async def flood(pilot, keys) -> None:
    """Key events straight into the app's input queue, yielding once between keys.

    ``pilot.press`` waits for the process to go idle after every key (~60 ms a key on 2 shared
    cores, a minute for 1,000); this is as fast as the event loop takes them, a harder test.
    """
    driver = pilot.app._driver
    for key in keys:
        char = {"space": " "}.get(key, key if len(key) == 1 else None)
        driver.send_message(events.Key(key, char))
        await asyncio.sleep(0)


async def test_a_thousand_fast_keystrokes_end_with_exactly_the_final_querys_rows(engine):
    keys = random.Random(3).choices(list("abcdefghijklmnopqrstuvwxyz") + ["space"] * 4 + ["backspace"] * 4, k=988)
    keys += ["ctrl+u"]
    final = [*"cold", "space", *"frames"]
    assert len(keys) + len(final) == 1000
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        pane.input.focus()
        await flood(pilot, keys)
        # ctrl+u is a binding: the app runs it while the Input takes the characters from its own
        # queue, so characters flooded right behind it may land before it clears the box.
        await pilot.pause()
        await flood(pilot, final)
        await pilot.pause(0.2)
        await settle(pilot)
        assert pane.input.value == "cold frames" and pane.answer.query == "cold frames"
        assert [hit.id for hit in pane.table.hits] == expected_ids(engine, "cold frames")


async def test_a_10_kb_paste(engine):
    text = ("slugs ate the seedlings again; " * 400)[:10_240]
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        pane.input.focus()
        pane.input.post_message(events.Paste(text))
        await pilot.pause(0.3)
        await settle(pilot)
        assert len(pane.input.value) == 10_240
        assert pane.answer.query == text and no_tier_failed(pane)
        assert [hit.id for hit in pane.table.hits] == expected_ids(engine, text)


@pytest.mark.parametrize("query", ["?!…", "🐌🌱", "¯\\_(ツ)_/¯", "[bold]", "\\"])
async def test_punctuation_and_emoji_queries(engine, query):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        pane.input.value = query
        await pilot.pause(0.2)
        await settle(pilot)
        assert pane.answer.query == query and no_tier_failed(pane)
        assert [hit.id for hit in pane.table.hits] == expected_ids(engine, query)


HOSTILE = {
    "markup.md": "# [bold]Not bold[/] and [red]not red\n\nA body with [/] and [link=x]no link[/link] in it.\n",
    "long.txt": "A very long line\n\n" + "word " * 4000 + "\n",
    "tabs.md": "Tabs\tin the title\n\ncol1\tcol2\tcol3 tabbed\n",
    "controls.md": "Controls \x1b[31mred\x1b[0m here\n\nbell \x07 and backspace \x08 and escape \x1b]52;c;aGk=\x07 done\n",
    "rtl.md": "שלום עולם and مرحبا بالعالم\n\nright-to-left \u202eevil override\u202c text\n",
}


@pytest.fixture
def hostile_engine(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in HOSTILE.items():
        (folder / name).write_text(text, encoding="utf-8")
    engine = notes_engine(tmp_path / "cache", root=folder)
    yield engine
    engine.close()


@pytest.mark.parametrize("query, note", [("bold", "markup.md"), ("word", "long.txt"), ("tabs", "tabs.md"),
                                         ("controls", "controls.md"), ("right-to-left", "rtl.md")])
async def test_hostile_notes_render_as_the_characters_they_hold(hostile_engine, query, note):
    app = workbench(hostile_engine, label="notes")
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, query)
        pane = app.active_pane
        assert pane.table.hits and pane.table.hits[0].id == note
        screen = app.export_screenshot()
        assert "\x1b" not in screen and "\x07" not in screen and "\u202e" not in screen
        if note == "markup.md":
            assert "[bold]Not" in screen.replace("&#160;", " ") and "[/]" in screen
        if note == "controls.md":
            assert "␛[31mred" in screen.replace("&#160;", " ")


def test_note_text_is_never_read_as_markup():
    text = highlighted("[bold]x[/] [red]y", ["x"])
    assert text.plain == "[bold]x[/] [red]y" and len(text.spans) == 1
    assert shown("a\x1bb\x00c\td\ne\u202ef") == "a␛b␀c\td\nef"
