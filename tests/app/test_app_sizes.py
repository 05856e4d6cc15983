"""The workbench at the sizes people run it: 80x24 (a terminal's default) and 160x45, each pane, the compare
screen and the evaluation view on the demo corpora, pinned as SVG snapshots (tests/app/__snapshots__/
test_app_sizes/), one app run per test resized between the two sizes.

Besides the pictures, each asserts what the issue asked of them: the footer's chips on one line that fits,
no word cut; every key the footer shows there whole; the compare screen's heads fitting their columns and
agreeing with them (no chip says a tier is empty while its column has rows); the evaluation view's figures
table no wider than its room. Regenerate with `--snapshot-update` after a deliberate change, then look.
"""

from __future__ import annotations

import html
import re

import pytest
from pytest_textual_snapshot import SVGImageExtension
from textual.widgets import DataTable, Static

from engines.code.engine import CodeEngine
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine
from olai_tui import evaluate
from olai_tui.places import MOVED_DOWN, MOVED_UP
from olai_tui.ui import evaluation, evaluation_fit
from olai_tui.ui.compare import CompareScreen
from olai_tui.ui.evaluation import EvaluationScreen
from olai_tui.ui.footer import TierFooter
from tests.app.test_app import chips_contradicting_columns
from tests.app.test_app_evaluation import choose_no_model_configs, run_and_wait, write_vaswani
from tests.snapshot_app import (CODE_DEMO, DEMO, PRODUCTS_DEMO, all_panes, settle, shared_embedder, type_query,
                                wait_until)

SIZES = ((80, 24), (160, 45))
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(autouse=True)
def _colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)  # the pictures are in colour whatever the shell says


@pytest.fixture
def svg(snapshot):
    """Compare one screenshot with its snapshot, named by its size (``notes-80x24``)."""
    snapshots = snapshot.use_extension(SVGImageExtension)

    def compare(app, name: str) -> None:
        width, height = app.size
        assert snapshots(name=f"{name}-{width}x{height}") == app.export_screenshot(), f"{name} at {width}x{height}"

    return compare


@pytest.fixture(scope="module")
def notes():
    engine = NotesEngine(DEMO, embedder=shared_embedder())  # the session's cache: embedded once a run
    assert engine.build_index().state == "ready"
    yield engine
    engine.close()


def bottom_line(app) -> str:
    """The screen's last line as drawn (the key footer), read from the screenshot."""
    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, text in re.findall(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg, re.S):
        rows.setdefault(float(y), []).append((float(x), html.unescape(text).replace("\xa0", " ")))
    return "".join(text for _, text in sorted(rows[max(rows)]))


def assert_fits(app) -> None:
    """The pane's chips on one line no wider than the footer, no word cut; every key shown whole."""
    footer = app.active_pane.query_one(TierFooter)
    chips = footer.render().plain.splitlines()[0]
    assert len(chips) <= footer.content_region.width and "…" not in chips, chips
    keys = bottom_line(app)
    for binding in app.screen.active_bindings.values():
        if binding.binding.show and app.screen.check_action(binding.binding.action, ()) is not False:
            assert binding.binding.description in keys, f"{binding.binding.description!r} cut from {keys!r}"


def assert_compare_fits_and_agrees(screen: CompareScreen) -> None:
    for i in range(len(screen.results)):
        head = screen.query_one(f"#head-{i}", Static)
        for line in head.render().plain.splitlines():
            assert len(line) <= head.content_region.width and "…" not in line, line
    assert chips_contradicting_columns(screen.results) == []


async def test_the_notes_pane_its_compare_screen_and_the_evaluation_view_fit_both_sizes(notes, svg, tmp_path,
                                                                                        monkeypatch):
    monkeypatch.setenv("OLAI_SHARED_DATA", str(write_vaswani(tmp_path / "data")))
    for module in (evaluation, evaluation_fit):  # timings frozen, as the panes' are ("·· ms")
        monkeypatch.setattr(module, "cell", lambda figure, *args, cell=evaluate.cell: "··" if figure.endswith("_ms")
                            else cell(figure, *args))
    app = all_panes(notes, start_pane="notes")
    async with app.run_test(size=SIZES[0]) as pilot:
        await type_query(pilot, "seedlings")
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert_fits(app)
            svg(app, "notes")
        await pilot.press("ctrl+j")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and all(r.answer is not None for r in app.screen.results))
        for size in reversed(SIZES):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert_compare_fits_and_agrees(app.screen)
            svg(app, "compare")
        words, merged = app.screen.results[1], app.screen.results[3]
        assert words.ids and merged.answer.tier("words").status == "empty"  # the case the chip once contradicted
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        await choose_no_model_configs(pilot)
        screen = await run_and_wait(pilot)
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await settle(pilot)
            await pilot.pause(0.1)
            table = screen.query_one("#figures", DataTable)
            assert table.virtual_size.width <= table.size.width, "the figures table is no wider than its room"
            title = screen.query_one("#title", Static)
            assert len(title.render().plain) <= title.content_region.width
            svg(app, "evaluation")


async def test_the_code_pane_fits_both_sizes_and_says_which_rows_meaning_moved(notes, svg, tmp_path):
    code = CodeEngine(CODE_DEMO, embedder=shared_embedder(), cache_dir=str(tmp_path / "cache"), contextual=False)
    app = all_panes(notes, code=code, start_pane="code")
    try:
        async with app.run_test(size=SIZES[0]) as pilot:
            await type_query(pilot, "rate limit")
            tiers = [row[3].plain for row in (app.active_pane.table.get_row_at(i)
                                              for i in range(app.active_pane.table.row_count))]
            assert any(t.endswith(MOVED_UP) for t in tiers) and any(t.endswith(MOVED_DOWN) for t in tiers)
            for size in SIZES:
                await pilot.resize_terminal(*size)
                await settle(pilot)
                assert_fits(app)
                svg(app, "code")
    finally:
        code.close()


async def test_the_products_pane_fits_both_sizes(notes, svg, tmp_path):
    products = ProductsEngine(PRODUCTS_DEMO, embedder=shared_embedder(), cache_dir=str(tmp_path / "cache"))
    app = all_panes(notes, products=products, start_pane="products")
    try:
        async with app.run_test(size=SIZES[0]) as pilot:
            await type_query(pilot, "laktoositon maito 1 l")
            for size in SIZES:
                await pilot.resize_terminal(*size)
                await settle(pilot)
                assert_fits(app)
                svg(app, "products")
    finally:
        products.close()
