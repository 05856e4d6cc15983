"""The evaluation view: from the compare screen, pick a dataset, run it, read the table, open a request.

Everything runs for real on a six-note dataset in Vaswani's format, written in tmp_path and found
through OLAI_SHARED_DATA, with the configurations that need no model (exact, bm25) so a run takes
milliseconds. The model is pointed nowhere: nothing here may load it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable, OptionList, Select, SelectionList, Static

from engines.eval.catalogue import Verdict, configs_of, open_suite
from engines.eval.food.configs import COLUMNS as FOOD_COLUMNS
from engines.notes.engine import NotesEngine
from olai_tui.evaluate import cell
from olai_tui.ui.compare import CompareScreen
from olai_tui.ui.evaluation import EvaluationScreen
from olai_tui.ui.request_view import FIRST_WRONG, RULE, RequestScreen, column_head, verdict_rows
from olai_tui.ui.palette import workbench_commands
from tests.snapshot_app import DEMO, SIZE, settle, type_query, wait_until, workbench

pytestmark = pytest.mark.anyio

DOCS = {
    "1": "slugs in the cold frame  the slugs ate the seedlings in the cold frame last spring",
    "2": "copper tape against slugs  a ring of copper tape keeps slugs off the pots",
    "3": "sharpening kitchen knives  a whetstone and a steady angle keep the knives sharp",
    "4": "knife storage  a magnetic strip keeps knives away from the drawer",
    "5": "sowing dates  sow tomatoes indoors in march and beans outdoors in may",
    "6": "hardening off seedlings  put the seedlings outside for an hour more each day",
}
# By the hash of their text, 1 and 4 are dev requests, 2 and 3 held out (engines/eval/runner.split_of).
QUERIES = {"1": "slugs seedlings", "2": "sharp knives", "3": "when to sow tomatoes", "4": "copper tape"}
QRELS = [("1", "2"), ("2", "3"), ("2", "4"), ("3", "5"), ("4", "2")]  # note 1, bm25's first for query 1, is unjudged
RUN = ("exact", "bm25")  # no model needed: a run takes milliseconds


def write_vaswani(root: Path) -> Path:
    folder = root / "notes" / "vaswani"
    folder.mkdir(parents=True)
    (folder / "doc-text.trec").write_text("".join(f"<DOC>\n<DOCNO>{n}</DOCNO>\n{text}\n</DOC>\n"
                                                  for n, text in DOCS.items()))
    (folder / "query-text.trec").write_text("".join(f"<top>\n<num>{n}</num>\n<title>{text}</title>\n</top>\n"
                                                    for n, text in QUERIES.items()))
    (folder / "qrels").write_text("".join(f"{q} 0 {d} 1\n" for q, d in QRELS))
    return root


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("OLAI_SHARED_DATA", str(write_vaswani(tmp_path / "data")))
    monkeypatch.setenv("OLAI_EMBED_MODEL", str(tmp_path / "no-model.gguf"))
    return tmp_path / "data"


@pytest.fixture
def engine(tmp_path, data):
    engine = NotesEngine(DEMO, cache_dir=str(tmp_path / "cache"))
    yield engine
    engine.close()


def expected_tables(data: Path):
    suite = open_suite("notes", "vaswani", data, data.parent / "heldout")
    try:
        return suite.run(list(RUN))
    finally:
        suite.close()


def plain(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


async def choose_no_model_configs(pilot) -> None:
    """Untick every configuration but exact and bm25, with the keys a person would press."""
    configs = pilot.app.screen.query_one("#configs", SelectionList)
    configs.focus()
    await pilot.pause()
    for name in configs.selected:
        if name not in RUN:
            configs.highlighted = next(i for i in range(configs.option_count)
                                       if configs.get_option_at_index(i).value == name)
            await pilot.press("space")
    assert configs.selected == list(RUN)


async def run_and_wait(pilot) -> EvaluationScreen:
    screen = pilot.app.screen
    await pilot.press("r")
    await wait_until(pilot, lambda: not screen.busy and screen.evaluated is not None
                     or "no such" in plain(screen.query_one("#status", Static)), timeout=30)
    await settle(pilot)
    return screen


# ---- the view, driven from the keyboard -----------------------------------------------------------


async def test_compare_screen_opens_the_evaluation_view_whose_table_matches_the_suite(engine, data):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "seedlings")
        await pilot.press("ctrl+j")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await settle(pilot)
        shown = {b.binding.id: b.binding for b in app.screen.active_bindings.values()}
        assert shown["evaluate"].show and shown["evaluate"].description == "Evaluate"  # listed in the footer
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen

        # the dataset: cranfield and back to vaswani, through the Select's own keys
        dataset = screen.query_one("#dataset", Select)
        dataset.focus()
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert dataset.value == "notes/cranfield" and screen.choice == "notes/cranfield"
        await pilot.press("enter", "up", "enter")
        await pilot.pause()
        assert dataset.value == "notes/vaswani"
        assert screen.query_one("#configs", SelectionList).selected == list(configs_of("notes", "vaswani"))
        await choose_no_model_configs(pilot)
        await run_and_wait(pilot)

        expected = expected_tables(data)
        table = screen.query_one("#figures", DataTable)
        columns = screen.evaluated.suite.columns
        assert [str(c.label.plain) for c in table.columns.values()][:3] == ["config", f"{columns[0]}\ndev",
                                                                           f"{columns[0]}\nheldout"]
        rows = [[v if isinstance(v, str) else v.plain for v in table.get_row_at(i)] for i in range(table.row_count)]
        # the figures that fit the screen's width, from the first; the rest named under the table
        kept = list(dict.fromkeys(str(c.label.plain).split("\n")[0] for c in list(table.columns.values())[1:]))
        left_out = columns[len(kept):]
        assert kept == list(columns[:len(kept)]) and left_out, "at 110 columns some of the 6 figures are left out"
        assert rows == [[name] + [cell(f, t.metrics[name]) for f in kept for t in expected] for name in RUN]
        assert table.virtual_size.width <= table.size.width, "the table is no wider than its room"
        assert plain(screen.query_one("#left-out", Static)).startswith(
            f"+{len(left_out)} figure{'s' if len(left_out) > 1 else ''} past the width: {', '.join(left_out)}")
        assert "dev 2 requests / heldout 2 requests" in plain(screen.query_one("#status", Static))

        # the requests: query 1's first row is wrong for both (note 1 is unjudged), query 4's right for both
        requests = screen.query_one("#requests", OptionList)
        prompts = [requests.get_option_at_index(i).prompt.plain for i in range(requests.option_count)]
        assert len(prompts) == 4
        by_query = {next(q for q in QUERIES.values() if q in p): p for p in prompts}
        assert by_query["slugs seedlings"].startswith("✗") and "first row wrong: exact, bm25" in by_query[
            "slugs seedlings"]
        assert by_query["copper tape"].startswith(" ")

        # open query 1 with Enter: each configuration's rows side by side, judged
        requests.focus()
        requests.highlighted = prompts.index(by_query["slugs seedlings"])
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RequestScreen))
        await pilot.pause()
        view = app.screen
        heads = [plain(view.query_one(f"#head-{i}", Static)) for i in range(2)]
        rows = [plain(view.query_one(f"#rows-{i}", Static)).splitlines() for i in range(2)]
        assert heads[0].startswith("exact") and heads[1].startswith("bm25")
        assert all(FIRST_WRONG in head for head in heads)
        assert rows[1] == [" 1 ✗ 0 slugs in the cold frame", " 2 ✗ 0 hardening off seedlings",
                           " 3 ✓ 1 copper tape against slugs"]
        drawn = view.query_one("#rows-1", Static).content
        title_at = drawn.plain.index("slugs in the cold frame")
        assert any(span.start == title_at and str(span.style) == "bold red" for span in drawn.spans)

        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("escape")
        assert isinstance(app.screen, CompareScreen)
        assert screen.suite is None, "leaving the view closes the suite"


async def test_a_missing_dataset_is_one_line_in_the_view(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("OLAI_SHARED_DATA", str(tmp_path / "nowhere"))
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(EvaluationScreen("notes"))
        await pilot.pause()
        await choose_no_model_configs(pilot)
        screen = await run_and_wait(pilot)
        status = plain(screen.query_one("#status", Static))
        assert status == f"{tmp_path / 'nowhere' / 'notes' / 'vaswani'}: no such file or folder"
        assert screen.query_one("#figures", DataTable).row_count == 0
        assert app.is_running and app.screen is screen


async def test_the_palette_opens_the_evaluation_view_on_the_current_pane(engine, data):
    app = workbench(engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        command = next(c for c in workbench_commands(app) if c.text == "Evaluate configurations on a dataset")
        assert "(from compare: e)" in command.help
        command.run()
        await pilot.pause()
        assert isinstance(app.screen, EvaluationScreen)
        assert app.screen.query_one("#dataset", Select).value == "notes/vaswani"


async def test_a_second_run_reads_the_cached_answers_unless_measure_again_is_ticked(engine, data, tmp_path,
                                                                                      monkeypatch):
    from textual.widgets import Checkbox

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # this test's answers alone
    app = workbench(engine)
    cache = tmp_path / "xdg" / "olai-tui" / "eval"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        next(c for c in workbench_commands(app) if c.text == "Evaluate configurations on a dataset").run()
        await pilot.pause()
        await choose_no_model_configs(pilot)
        screen = await run_and_wait(pilot)

        def written() -> dict[str, int]:
            return {p.name: p.stat().st_mtime_ns for p in cache.glob("notes-vaswani-*.json")}

        first = written()
        assert len(first) == len(RUN)
        screen.evaluated = None
        await run_and_wait(pilot)
        assert written() == first, "every answer came from the cache: nothing written"
        screen.query_one("#fresh", Checkbox).value = True
        screen.evaluated = None
        await run_and_wait(pilot)
        again = written()
        assert again.keys() == first.keys() and all(again[k] != first[k] for k in first), "measured again"


# ---- how a judged row reads, with and without colour --------------------------------------------


def test_a_broken_rule_is_flagged_and_a_wrong_first_row_reads_without_colour():
    verdicts = [Verdict("p1", "Oat drink barista", None, False, broke_rule=True, label="stand-in"),
                Verdict("p2", "Lactose-free milk 1 l", None, True, label="exact"),
                Verdict("p3", "Whole milk 1 l", None, False, broke_rule=True)]
    rows = verdict_rows(verdicts)
    assert rows.plain.splitlines() == [" 1 ✗ stand-in ⚠ rule Oat drink barista",
                                       " 2 ✓ exact Lactose-free milk 1 l",
                                       " 3 ✗ — ⚠ rule Whole milk 1 l"]
    rule_styles = {str(span.style) for span in rows.spans if rows.plain[span.start:span.end].strip() == RULE}
    assert rule_styles == {"bold red"}
    first_title = rows.plain.index("Oat drink")
    assert any(span.start == first_title and str(span.style) == "bold red" for span in rows.spans)
    later_title = rows.plain.index("Whole milk")
    assert not any(span.start == later_title and "red" in str(span.style) for span in rows.spans), \
        "only a wrong first row is drawn red"
    got = {"top": ["p1", "p2", "p3"], "ms": 2.5, "right_first": 0.0, "in_top3": 1.0, "dropped": 1.0}
    head = column_head("smart", got, verdicts, FOOD_COLUMNS, frozenset({"right_first", "in_top3"}),
                       summed=frozenset({"dropped"}))
    assert head.plain.splitlines() == ["smart · 2.5 ms", "right_first 0.0% · in_top3 100.0% · dropped 1",
                                       FIRST_WRONG]


# ---- the picture -------------------------------------------------------------------------------------


@pytest.fixture
def _colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)


def test_request_view_shows_each_configuration_side_by_side(snap_compare, engine, data, _colour):
    app = workbench(engine)

    async def run_before(pilot):
        await pilot.app.push_screen(EvaluationScreen("notes"))
        await pilot.pause()
        await choose_no_model_configs(pilot)
        screen = await run_and_wait(pilot)
        requests = screen.query_one("#requests", OptionList)
        requests.focus()
        requests.highlighted = next(i for i, (_s, row) in enumerate(screen.rows) if row["id"] == "1")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RequestScreen))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
