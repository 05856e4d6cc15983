"""The code and products panes: opened lazily, answering without the model until meaning is switched on,
the products pane honouring a tier that reorders (recall, judge), the words as read above the rows.

No test here loads the model: an embedder that records every call stands in for it, and the tests
assert it was never asked. The model's own behaviour in these panes is pinned by
test_app_panes_snapshots.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.answer import collect
from engines.code.engine import CodeEngine
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine, collect_products
from engines.products.recall import SOURCES
from olai_tui.ui.adapters import Target
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.opener import editor_command
from olai_tui.ui.pane import LIMIT
from olai_tui.ui.result_cells import row_cells
from tests.snapshot_app import CODE_DEMO, DEMO, PRODUCTS_DEMO, SIZE, all_panes, settle, shared_embedder, type_query

THROTTLE = "where do we throttle requests"
LACTOSE_FREE_MILK = "laktoositon maito 1 l"
pytestmark = pytest.mark.anyio


class NoModel:
    """An embedder that must never be asked: it records every call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def info(self):
        self.calls.append("info")
        raise AssertionError("the model was asked for")

    def embed(self, texts, kind):
        self.calls.append(kind)
        raise AssertionError("the model was asked for")


@pytest.fixture(scope="module")
def notes():
    engine = NotesEngine(DEMO, embedder=shared_embedder())  # the session's cache: embedded once
    yield engine
    engine.close()


@pytest.fixture
def no_model():
    return NoModel()


def ids(hits) -> list[str]:
    return [hit.id for hit in hits]


async def test_the_other_panes_open_their_engines_when_first_shown(notes, no_model):
    opened = []

    def code():
        opened.append("code")
        return CodeEngine(CODE_DEMO, embedder=no_model, contextual=False)

    def products():
        opened.append("products")
        return ProductsEngine(PRODUCTS_DEMO, embedder=no_model)

    app = all_panes(notes, products, code)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [p.adapter.name for p in app.panes] == ["notes", "products", "code"]
        assert opened == [], "startup reads the notes corpus only"
        assert "the code in fixtures/code" in app.query_one("#pane-code").input.placeholder
        app.switch_to("code")
        await pilot.pause(0.1)
        await settle(pilot)
        assert opened == ["code"]
        assert "symbols in fixtures/code" in app.active_pane.input.placeholder
        app.search_in("products", "ketchup")  # from the palette, before the pane was ever shown
        await pilot.pause(0.2)
        await settle(pilot)
        assert opened == ["code", "products"] and app.active_pane.table.hits
    assert no_model.calls == []


async def test_the_code_pane_answers_with_the_trained_table_and_never_asks_the_model(notes, no_model):
    # MiniLM's vectors not asked for, nor its re-read of a question's first rows (tested with the model in
    # tests/engines/test_code_reread.py and the demo's snapshot)
    engine = CodeEngine(CODE_DEMO, embedder=no_model, contextual=False, reread=False)
    app = all_panes(notes, code=engine, start_pane="code")
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, THROTTLE)
        pane = app.active_pane
        assert pane.adapter.name == "code"
        assert ids(pane.table.hits) == ids(collect("code", THROTTLE, engine.search(THROTTLE, LIMIT)).hits)
        assert pane.table.hits[0].title == "RateLimiter"
        assert pane.answer.tier("embedding").status == "answered"
        assert pane.answer.tier("embedding").vectors == {"static": 1.0}
        footer = pane.query_one("#tiers").render().plain
        assert "lexical answered" in footer and "embedding answered" in footer
    assert no_model.calls == []


def test_a_code_row_is_qualname_signature_with_its_place_and_summary(no_model):
    adapter = EngineAdapter(CodeEngine(CODE_DEMO, embedder=no_model, contextual=False), label="fixtures/code")
    hit = next(h for h in adapter.engine.search(THROTTLE, LIMIT).__next__().hits if h.title.startswith("RateLimiter.allow"))
    _marker, title, where, tier, _score = (c.plain for c in row_cells(hit, 200, 36, adapter.row(hit)))
    assert title.startswith("RateLimiter.allow(self, client_id: str") and "False when the client" in title
    assert where == "shopfront/limits.py:30" and tier == "lexical"


def test_the_code_preview_is_numbered_source_with_the_query_words_highlighted(no_model):
    adapter = EngineAdapter(CodeEngine(CODE_DEMO, embedder=no_model, contextual=False), label="fixtures/code")
    hit = next(adapter.engine.search(THROTTLE, LIMIT)).hits[0]
    header, source = adapter.preview(hit, THROTTLE).renderables
    lines = source.plain.splitlines()
    assert lines[0].split() == ["17", "class", "RateLimiter:"]
    assert len(lines) == hit.extras["end_line"] - hit.extras["line"] + 1
    marked = {source.plain[span.start:span.end] for span in source.spans if "reverse" in str(span.style)}
    assert "requests" in marked and "do" not in marked  # "requests" stems to the query's "request"


def test_enter_opens_the_editor_at_the_symbols_line(no_model):
    adapter = EngineAdapter(CodeEngine(CODE_DEMO, embedder=no_model, contextual=False), label="fixtures/code")
    hit = next(adapter.engine.search(THROTTLE, LIMIT)).hits[0]
    target = adapter.target(hit, THROTTLE)
    assert target == Target(str(CODE_DEMO / "shopfront" / "limits.py"), 17)
    assert editor_command("nvim", target) == ["nvim", "+17", target.path]


async def test_the_products_pane_shows_the_judged_order_with_badges_and_the_words_as_read(notes, no_model):
    engine = ProductsEngine(PRODUCTS_DEMO, embedder=no_model)
    app = all_panes(notes, products=engine, start_pane="products")
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, LACTOSE_FREE_MILK)
        pane = app.active_pane
        without_vectors = tuple(s for s in SOURCES if s != "vectors")
        expected = collect_products(LACTOSE_FREE_MILK, engine.search(LACTOSE_FREE_MILK, LIMIT, None, without_vectors))
        # recall and judge replace the rows shown so far: the final order, each product once
        assert ids(pane.table.hits) == ids(expected.hits) and len(set(ids(pane.table.hits))) == len(pane.table.hits)
        labels = [hit.extras["label"] for hit in pane.table.hits]
        assert labels[0] == "exact" and set(labels) <= {"exact", "variant", "standin"}
        assert [t.status for t in pane.answer.tiers if t.name != "vectors"] == ["empty", "answered", "answered"]
        summary = pane.query_one("#summary").render().plain
        assert "read 'laktoositon' as lactose-free" in summary and "lactose-free" in summary.splitlines()[0]
        row = [c.plain for c in row_cells(pane.table.hits[0], 60, 20, pane.adapter.row(pane.table.hits[0]), 8, 7)]
        # the tier that found it and the judge's label, each in its own column: "exact" the label is
        # never read as "exact" the tier
        assert row[3] == "judge" and row[4] == "exact" and "1 l" in row[2]
    assert no_model.calls == []


async def test_the_products_pane_says_we_do_not_sell_that(notes, no_model):
    engine = ProductsEngine(PRODUCTS_DEMO, embedder=no_model)
    app = all_panes(notes, products=engine, start_pane="products")
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "caviar")
        pane = app.active_pane
        assert pane.answer.extras["flags"] == ["not_sold"] and not pane.table.hits
        assert pane.query_one("#summary").render().plain.startswith("we do not sell that")


def test_products_compare_columns_are_bm25_vectors_fused_smart(no_model):
    adapter = EngineAdapter(ProductsEngine(PRODUCTS_DEMO, embedder=no_model), label="fixtures/products")
    columns = adapter.compare_columns()
    assert [c.label for c in columns] == ["BM25", "vectors", "fused", "smart"]
    bm25 = collect("products", "ketchup", adapter.compare_search(columns[0], "ketchup", 10))
    assert bm25.hits and all("ketchup" in hit.title.lower() for hit in bm25.hits[:3])
    assert no_model.calls == [], "the BM25 column needs no model"
    # smart is the pane with every tier on, vectors included: a model that fails leaves the rest answering
    smart = collect("products", "ketchup", adapter.compare_search(columns[3], "ketchup", 10))
    assert smart.hits and smart.hits[0].extras["label"] == "exact"
    assert smart.tier("vectors").status in ("failed", "unavailable")


def test_the_command_line_opens_the_app_on_that_pane(monkeypatch):
    from olai_tui import workbench as app_module
    from olai_tui.cli import main

    seen = {}
    monkeypatch.setattr(app_module, "run_app", lambda corpora, pane: seen.update(corpora=corpora, pane=pane) or 0)
    assert main(["code", str(CODE_DEMO)]) == 0
    assert seen == {"corpora": {"code": CODE_DEMO}, "pane": "code"}
    assert main(["products", str(PRODUCTS_DEMO)]) == 0
    assert seen == {"corpora": {"products": PRODUCTS_DEMO}, "pane": "products"}


def test_a_bad_corpus_of_yours_is_one_line_and_status_2(tmp_path, capsys, monkeypatch):
    """However slowly the open starts (a loaded machine once let the refusal arrive after the workbench's
    wait, and the app drew with no terminal): the open here takes 2 s, the folder holds no product file."""
    import time

    from engines.products import configured
    from olai_tui.workbench import run_app

    opened = configured.open_configured
    monkeypatch.setattr(configured, "open_configured", lambda *a, **k: time.sleep(2) or opened(*a, **k))
    empty = tmp_path / "no-products"
    (empty / "notes").mkdir(parents=True)
    (empty / "notes" / "readme.txt").write_text("not a catalogue")
    assert run_app({"products": empty}, pane="products") == 2
    err = capsys.readouterr().err  # had the app been drawn, conftest's no_terminal_app would have failed it
    assert err.startswith("olai-tui: ") and "no product files" in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_the_default_corpora_are_the_fixtures():
    assert Path(CODE_DEMO).name == "code" and Path(PRODUCTS_DEMO).name == "products"
