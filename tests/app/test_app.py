"""The workbench's behaviour: streaming rows, stale answers, the footer, the palette, keys, open and copy.

Every app here runs the real notes engine with the real model on the demo notebook; the index is
built once for the module into a cache of its own.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.app import App

from engines.answer import TierReport, collect
from olai_tui.app import WorkbenchApp
from olai_tui.workbench import run_app
from olai_tui.ui.adapters import Target
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.compare import CompareScreen, column_text, shared_ids
from olai_tui.ui.footer import chip, footer_text
from olai_tui.ui.keys import load_keys
from olai_tui.ui.opener import RowScreen, editor_command
from olai_tui.ui.palette import WorkbenchCommands, workbench_commands
from olai_tui.ui.pane import LIMIT
from olai_tui.ui.results import ResultsTable
from tests.snapshot_app import (DEMO, SIZE, HeldEmbedder, SnapshotWorkbench, notes_engine, settle, shared_embedder,
                                type_query, wait_until, workbench)

SLUGS = "garden/cold-frames/slugs.md"
pytestmark = pytest.mark.anyio  # async tests run on asyncio (anyio, via httpx, is installed)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine = notes_engine(tmp_path_factory.mktemp("cache"))
    assert engine.build_index().state == "ready"
    yield engine
    engine.close()


def expected_ids(engine, query: str, tiers=None) -> list[str]:
    return [hit.id for hit in collect("notes", query, engine.search(query, LIMIT, tiers)).hits]


def plain_footer(pane) -> str:
    return footer_text(pane.adapter.tiers, pane.answer, pane.live, pane.searching).plain


# ---- searching ---------------------------------------------------------------------------------


async def test_the_demo_query_finds_the_slugs_note_by_meaning(engine):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "protecting young plants from snails")
        pane = app.active_pane
        slugs = next(hit for hit in pane.table.hits if hit.id == SLUGS)
        assert (slugs.marker, slugs.tier) == ("≈", "semantic")
        footer = plain_footer(pane)
        assert "exact empty" in footer and "semantic answered" in footer and "total" in footer
        assert [hit.id for hit in pane.table.hits] == expected_ids(engine, "protecting young plants from snails")


async def test_the_preview_shows_the_first_row_again_after_the_box_was_cleared(engine):
    """The welcome drawn over an emptied box is not taken for the note it replaced: the same query put
    back in one change (a paste, the palette) lays its first row's note out again."""
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        await type_query(pilot, "seedlings")
        first = pane.table.current
        assert first is not None and first.title.split()[0] in pane.preview.plain
        pane.input.value = ""
        await settle(pilot)
        assert pane.preview.plain.startswith("Type to search")
        pane.input.value = "seedlings"
        await pilot.pause(0.15)
        await settle(pilot)
        assert pane.table.current.id == first.id and first.title.split()[0] in pane.preview.plain


async def test_rows_arrive_in_one_call_per_batch(engine, monkeypatch):
    calls = []
    original = ResultsTable.add_rows
    monkeypatch.setattr(ResultsTable, "add_rows", lambda self, rows: calls.append(len(rows)) or original(self, rows))
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        app.active_pane.input.value = "seedlings"  # one change, one search
        await pilot.pause(0.2)
        await settle(pilot)
        hits = app.active_pane.table.hits
        assert len(calls) == 2 and sum(calls) == len(hits)  # the exact batch, then the semantic batch
        assert [h.tier for h in hits[: calls[0]]] == ["exact"] * calls[0]


class Holding(EngineAdapter):
    """The notes adapter with one query to hold: ``started`` once held, held until ``release``."""

    def __init__(self, engine, held_query: str) -> None:
        super().__init__(engine)
        self.held_query = held_query
        self.started = threading.Event()
        self.release = threading.Event()


class HeldAdapter(Holding):
    """The notes adapter, holding one query's answer until released (as a slow tier would)."""

    def search(self, query, limit, tiers):
        if query == self.held_query:
            self.started.set()
            self.release.wait(30)
        return super().search(query, limit, tiers)


class LaterTiersHeldAdapter(Holding):
    """The notes adapter, holding one query's later tiers (after its first batch) until released."""

    def search(self, query, limit, tiers):
        stream = super().search(query, limit, tiers)
        return self._held(stream) if query == self.held_query else stream

    def _held(self, stream):
        first = next(stream, None)
        if first is not None:
            yield first
        self.started.set()
        self.release.wait(30)
        yield from stream


async def test_a_stale_answer_never_lands(engine):
    """A query found by meaning has its exact answer on screen and its meaning tier still working when
    jam is typed: jam's answer is drawn, and the meaning rows, released after it, never land on jam's."""
    meaning = "protecting young plants from snails"
    assert set(expected_ids(engine, meaning)) - set(expected_ids(engine, meaning, ["exact"])), "rows to land"
    adapter = LaterTiersHeldAdapter(engine, meaning)
    app = SnapshotWorkbench([adapter])
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        pane.input.value = meaning
        await wait_until(pilot, adapter.started.is_set)
        pane.input.value = "jam"  # typed over in one change (no empty box between to cancel the search)
        await wait_until(pilot, lambda: pane.answer is not None and pane.answer.query == "jam" and not pane.searching)
        jam = [hit.id for hit in pane.table.hits]
        adapter.release.set()
        await pilot.pause(0.3)
        await settle(pilot)
        assert pane.answer.query == "jam"
        assert [hit.id for hit in pane.table.hits] == jam == expected_ids(engine, "jam")


class CountingAdapter(HeldAdapter):
    """HeldAdapter, counting the queries searched and the most first batches computed at once."""

    def __init__(self, engine, held_query: str) -> None:
        super().__init__(engine, held_query)
        self.asked: list[str] = []
        self.running = self.most_at_once = 0
        self._count = threading.Lock()

    def search(self, query, limit, tiers):
        with self._count:
            self.asked.append(query)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            return super().search(query, limit, tiers)
        finally:
            with self._count:
                self.running -= 1


async def test_a_query_waits_for_the_stale_first_batch_and_one_typed_over_is_never_searched(engine):
    adapter = CountingAdapter(engine, "seedlings")
    app = SnapshotWorkbench([adapter])
    async with app.run_test(size=SIZE) as pilot:
        pane = app.active_pane
        pane.input.value = "seedlings"
        await wait_until(pilot, adapter.started.is_set)
        pane.input.value = "jam"  # while the seedlings batch still runs: waits for it
        await pilot.pause(0.3)
        assert adapter.asked == ["seedlings"]
        pane.input.value = "knives"  # typed over jam before jam could start
        await pilot.pause(0.3)
        adapter.release.set()
        await wait_until(pilot, lambda: pane.answer is not None and pane.answer.query == "knives")
        await settle(pilot)
        assert adapter.asked == ["seedlings", "knives"] and adapter.most_at_once == 1
        assert [hit.id for hit in pane.table.hits] == expected_ids(engine, "knives")


async def test_a_partial_answer_is_asked_again_when_the_index_is_ready(tmp_path):
    held = HeldEmbedder(shared_embedder(), batches=1)
    engine = notes_engine(tmp_path / "cache", embedder=held)
    try:
        app = workbench(engine)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, held.held.is_set)
            await type_query(pilot, "knives")
            pane = app.active_pane
            assert pane.answer.tier("semantic").status == "indexing"
            assert "semantic indexing" in plain_footer(pane)
            held.release.set()
            await wait_until(pilot, lambda: getattr(pane.answer.tier("semantic"), "status", None) in ("answered", "empty"))
            await settle(pilot)
            assert [hit.id for hit in pane.table.hits] == expected_ids(engine, "knives")
    finally:
        held.release.set()
        engine.close()


# ---- the tier footer ---------------------------------------------------------------------------


@pytest.mark.parametrize("report, words", [
    (TierReport("exact", "answered", 3.2, 4), ["exact answered", "4 rows", "3.2 ms"]),
    (TierReport("exact", "empty", 0.1, 0), ["exact empty", "0.1 ms"]),
    (TierReport("semantic", "skipped", reason="exact matches filled the limit"), ["skipped", "filled the limit"]),
    (TierReport("semantic", "off", enable="unset OLAI_RECALL"), ["semantic off", "to enable", "unset OLAI_RECALL"]),
    (TierReport("semantic", "unavailable", reason="no model file at /x.gguf", enable="run `make`"),
     ["unavailable", "no model file at /x.gguf", "to enable", "run `make`"]),
    (TierReport("semantic", "indexing", 9.0, 2, done=412, of=1200), ["indexing 412/1,200", "━", "─", "2 rows"]),
    (TierReport("semantic", "late", 250.0, reason="missed its 200 ms deadline"), ["late", "missed its 200 ms deadline"]),
    (TierReport("semantic", "failed", reason="embedding the query failed: boom"), ["failed", "boom"]),
])
def test_every_tier_state_is_said_in_words(report, words):
    text = chip(report).plain
    for word in words:
        assert word in text


def test_the_footer_has_a_chip_per_tier_and_the_total():
    from engines.answer import Answer, Batch

    answer = Answer("notes", "q")
    answer.apply(Batch([], [TierReport("exact", "answered", 1.0, 2)], total=7))
    text = footer_text(("exact", "semantic"), answer, {}, searching=True).plain
    assert "exact answered" in text and "semantic searching" in text and text.endswith("total 7")
    idle = footer_text(("exact", "semantic"), None, {"semantic": TierReport("semantic", "indexing", done=3, of=9)},
                       searching=False).plain
    assert "exact ready" in idle and "semantic indexing 3/9" in idle and "total" not in idle


# ---- tiers on and off --------------------------------------------------------------------------


async def test_a_tier_switched_off_says_how_to_switch_it_back(engine):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "seedlings")
        command = next(c for c in workbench_commands(app) if c.text == "Turn the semantic tier off for notes")
        command.run()
        await pilot.pause(0.1)
        await settle(pilot)
        pane = app.active_pane
        assert [hit.id for hit in pane.table.hits] == expected_ids(engine, "seedlings", ("exact",))
        semantic = pane.answer.tier("semantic")
        assert semantic.status == "off" and "turn the semantic tier on" in semantic.enable
        assert any(c.text == "Turn the semantic tier on for notes" for c in workbench_commands(app))
        await pilot.press("ctrl+t")  # from some tiers off: exact only
        await pilot.pause(0.1)
        await settle(pilot)
        assert pane.answer.tier("words").status == "off" and pane.answer.tier("semantic").status == "off"
        await pilot.press("ctrl+t")  # exact only -> every tier
        await pilot.pause(0.1)
        await settle(pilot)
        assert pane.answer.tier("semantic").status == "answered"


# ---- the palette and the keys ------------------------------------------------------------------


async def test_the_palette_switches_panes_and_searches_in_another(engine):
    app = SnapshotWorkbench([EngineAdapter(engine), EngineAdapter(engine, name="journal")])
    assert WorkbenchCommands in app.COMMANDS and App.COMMANDS <= app.COMMANDS  # Textual's own stay (theme)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "slugs")
        texts = [c.text for c in workbench_commands(app)]
        for wanted in ("Switch to the journal pane", "Search journal for the current query",
                       "Turn the exact tier off for notes", "Turn the semantic tier off for notes",
                       "Compare tiers for the current query", "Rebuild the notes index",
                       "Open the highlighted row", "Copy the highlighted row's path"):
            assert wanted in texts
        next(c for c in workbench_commands(app) if c.text == "Search journal for the current query").run()
        await pilot.pause(0.2)
        await settle(pilot)
        assert app.active_pane.adapter.name == "journal" and app.active_pane.query_text == "slugs"
        assert [hit.id for hit in app.active_pane.table.hits] == expected_ids(engine, "slugs")
        await pilot.press("ctrl+pageup")
        await pilot.pause()
        assert app.active_pane.adapter.name == "notes"


async def test_the_palette_works_from_the_keyboard_alone(engine):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "seedlings")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"compare tiers")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await wait_until(pilot, lambda: all(r.answer is not None for r in app.screen.results))
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)


async def test_keys_are_remapped_from_config_toml(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "olai-tui").mkdir()
    (tmp_path / "olai-tui" / "config.toml").write_text('[keys]\ncompare = "f2"\ncopy-path = "c"\n')
    keys = load_keys()
    assert keys.keymap == {"compare": "f2", "copy-path": "c"} and not keys.warnings
    app = workbench(engine, keys=keys)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "slugs")
        await pilot.press("ctrl+j")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen), "the old key no longer compares"
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))


async def test_a_bad_config_toml_opens_with_the_default_keys_and_says_why(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "olai-tui").mkdir()
    (tmp_path / "olai-tui" / "config.toml").write_text('[keys\ncompare = "f2"\n')
    keys = load_keys()
    assert keys.keymap == {} and "not valid TOML" in keys.warnings[0]
    app = workbench(engine, keys=keys)
    async with app.run_test(size=SIZE) as pilot:
        assert any("not valid TOML" in n for n in app.notified)
        await type_query(pilot, "slugs")
        await pilot.press("alt+enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))


def test_unknown_binding_ids_and_bad_keys_are_named(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[keys]\ncompaer = "f2"\nopen = ""\ncopy-path = 3\n')
    warnings = load_keys(path).warnings
    assert len(warnings) == 3 and "'compaer' is not a binding id" in warnings[0]


# ---- open and copy -----------------------------------------------------------------------------


async def test_enter_shows_the_note_when_there_is_no_editor_and_y_copies_its_path(engine, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "slugs")
        await pilot.press("down")  # from the search box to the results
        assert app.focused is app.active_pane.table
        await pilot.press("y")
        assert app.clipboard == str(DEMO.resolve() / SLUGS)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RowScreen)
        assert "copper tape" in app.screen.text.plain
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RowScreen)


def test_the_editor_opens_at_the_first_line_holding_a_query_word(engine):
    adapter = EngineAdapter(engine)
    hit = next(h for h in collect("notes", "copper", engine.search("copper", LIMIT)).hits if h.id == SLUGS)
    target = adapter.target(hit, "copper")
    lines = Path(target.path).read_text().splitlines()
    assert "copper" in lines[target.line - 1] and not any("copper" in line for line in lines[: target.line - 1])
    t = Target("/n/a.md", 12)
    assert editor_command("vim", t) == ["vim", "+12", "/n/a.md"]
    assert editor_command("nvim -u NONE", t) == ["nvim", "-u", "NONE", "+12", "/n/a.md"]
    assert editor_command("hx", t) == ["hx", "/n/a.md:12"]
    assert editor_command("code --wait", t) == ["code", "--wait", "-g", "/n/a.md:12"]
    assert editor_command("ed", t) == ["ed", "/n/a.md"]
    assert editor_command("vim", Target("/n/a.md")) == ["vim", "/n/a.md"]


# ---- compare -----------------------------------------------------------------------------------


def test_compare_marks_the_rows_found_in_several_columns(engine):
    from olai_tui.ui.compare import ColumnResult

    adapter = EngineAdapter(engine)
    results = []
    for column in adapter.compare_columns():
        answer = collect("notes", "seedlings", engine.search("seedlings", LIMIT, column.tiers))
        results.append(ColumnResult(column, answer, 1.0, [h.id for h in answer.hits]))
    shared = shared_ids(results)
    exact, words, semantic, merged = (set(r.ids) for r in results)
    # merged, every tier at once, is no second finder
    assert SLUGS in shared and shared == (exact & words) | (exact & semantic) | (words & semantic)
    header, rows = column_text(results[2], shared)
    assert f"{len(semantic & shared)} ◆ · {len(semantic - shared)} only here" in header.plain
    assert rows.plain.count("◆") == len(shared) and len(semantic - exact) > 0  # what meaning added


def chips_contradicting_columns(results) -> list[str]:
    """Every chip on a compare screen that says a tier is empty while that tier's own column has rows."""
    with_rows = {r.column.tiers[0] for r in results if len(r.column.tiers) == 1 and r.ids}
    heads = [column_text(r, shared_ids(results), results=results)[0].plain for r in results]
    return [line for head in heads for line in head.splitlines()
            if any(line.startswith(f"{tier} empty") for tier in with_rows)]


def test_compare_chips_agree_with_the_columns(engine):
    from olai_tui.ui.compare import ColumnResult

    adapter = EngineAdapter(engine)
    results = []
    for column in adapter.compare_columns():
        answer = collect("notes", "seedlings", engine.search("seedlings", LIMIT, column.tiers))
        results.append(ColumnResult(column, answer, 1.0, [h.id for h in answer.hits]))
    words, merged = results[1], results[3]
    # the merged run's words tier adds nothing (exact found its notes first), while the words column has rows
    assert words.ids and merged.answer.tier("words").status == "empty"
    assert chips_contradicting_columns(results) == []
    assert "words added none: its 2 rows came from exact" in column_text(merged, set(), results=results)[0].plain
    # without the other columns (the old header), the contradiction is there to be caught
    assert "words empty" in column_text(merged, set())[0].plain


# ---- the command line's entry ------------------------------------------------------------------


def test_run_app_on_a_missing_corpus_says_so_in_one_line(tmp_path, capsys):
    assert run_app({"notes": tmp_path / "no-such-notebook"}) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-notebook" in err and "Traceback" not in err


async def test_no_color_is_respected(engine, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = WorkbenchApp([EngineAdapter(engine)])
    async with app.run_test(size=SIZE) as pilot:
        assert app.no_color
        await type_query(pilot, "seedlings")
        assert "answered" in plain_footer(app.active_pane)  # every state is said in words too


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_rebuild_reads_a_note_added_since_the_start(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "apples.md").write_text("# Apples\n\nThe red ones keep till March.\n")
    engine = notes_engine(tmp_path / "cache", root=folder)
    try:
        app = workbench(engine, label="notes")
        async with app.run_test(size=SIZE) as pilot:
            (folder / "quinces.md").write_text("# Quinces\n\nFor jelly, picked in October.\n")
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: any("re-read 2 notes" in n for n in app.notified))
            await type_query(pilot, "quinces")
            assert app.active_pane.table.hits[0].id == "quinces.md"
    finally:
        engine.close()


def test_the_footer_lays_the_screen_out_again_only_when_its_height_may_change():
    # Index progress changes the footer several times a second; a layout each time rendered the
    # results table again (a third of the main thread while a 100,000-note vault indexed).
    import asyncio

    from rich.text import Text
    from textual.app import App

    from olai_tui.ui.footer import TierFooter

    class One(App):
        def compose(self):
            yield TierFooter()

    async def run():
        app = One()
        async with app.run_test(size=(60, 10)) as pilot:
            footer = app.query_one(TierFooter)
            layouts = []
            real = footer.update
            footer.update = lambda content, layout=True: layouts.append(layout) or real(content, layout=layout)
            for text in ("exact 3 ms · indexing 10/100", "exact 3 ms · indexing 20/100", "two\nlines",
                         "two\nlines again", "x" * 80, "y" * 130, "short"):  # 80 wraps to 2 lines, 130 to 3
                footer.show(Text(text))
                await pilot.pause()
            return layouts

    assert asyncio.run(run()) == [True, False, True, False, False, True, True]


def test_a_failed_stale_first_batch_waited_on_is_never_logged_as_an_unretrieved_error():
    import asyncio
    import gc
    from concurrent.futures import Future
    from types import SimpleNamespace

    from olai_tui.ui.pane import SearchPane

    logged = []

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: logged.append(context["message"]))
        stale = Future()
        stale.set_running_or_notify_cancel()
        pane = SimpleNamespace(_evidence=stale, generation=2)
        waiting = asyncio.ensure_future(SearchPane._after_previous_evidence(pane, 2))
        await asyncio.sleep(0.01)
        stale.set_exception(RuntimeError("the engine failed on the stale query"))
        assert await waiting is True  # waited for it, and the query is still current
        gc.collect()
        await asyncio.sleep(0.01)

    asyncio.run(main())
    gc.collect()
    assert logged == []


async def test_a_first_batch_saying_what_the_rows_already_say_leaves_them_drawn():
    from engines.answer import Hit

    class TableApp(App):
        def compose(self):
            yield ResultsTable(id="results")

    def hits(*titles, score=3.0):
        return [Hit(id=f"{t}.md", title=t, where=f"{t}.md", tier="exact", score=score) for t in titles]

    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(ResultsTable)
        added = []
        original = table.add_rows
        table.add_rows = lambda rows: added.append(len(rows)) or original(rows)
        table.replace(hits("pulse", "modulators", "echoes"))
        await pilot.pause()
        table.move_cursor(row=2)
        same = hits("pulse", "modulators", "echoes")  # the next key's answer: other objects, the same rows
        table.replace(same)
        await pilot.pause()
        assert added == [3] and table.hits == same and table.cursor_row == 0
        table.replace(hits("pulse", "modulators", "echoes", score=2.0))  # a score moved: drawn again
        table.replace(hits("pulse", "echoes"))
        await pilot.pause()
        assert added == [3, 3, 2] and [h.id for h in table.hits] == ["pulse.md", "echoes.md"]
        assert table.row_count == 2
