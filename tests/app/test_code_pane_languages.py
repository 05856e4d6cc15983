"""The code pane on a Go repository (cobra, from the semble benchmark's staged files): rows say their
language and the preview is highlighted as Go. Pinned as an SVG snapshot
(tests/app/__snapshots__/test_code_pane_languages/); regenerate after a deliberate change (a ranking
change moves the rows) with `pytest tests/app/test_code_pane_languages.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.code.engine import CodeEngine
from engines.notes.engine import NotesEngine
from olai_tui.ui.previews import numbered
from tests.snapshot_app import DEMO, SIZE, all_panes, shared_embedder, type_query

COBRA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "code" / "semble" / "repos" / "cobra"
QUERY = "where are flags parsed"


@pytest.fixture(autouse=True)
def _colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.mark.skipif(not COBRA.is_dir(), reason=f"{COBRA} is not staged (../shared/data/code/semble)")
def test_code_pane_on_cobra_answers_with_go_rows_language_shown(snap_compare, tmp_path):
    notes = NotesEngine(DEMO, embedder=shared_embedder())
    engine = CodeEngine(COBRA, embedder=shared_embedder(), cache_dir=str(tmp_path / "cache"), contextual=False)
    engine.reread_budget_s = None  # MiniLM re-reads every first row of the question, however loaded the machine
    app = all_panes(notes, code=engine, start_pane="code")
    seen = {}

    async def run_before(pilot):
        await type_query(pilot, QUERY)
        pane = pilot.app.active_pane
        seen["hits"] = list(pane.table.hits)
        seen["detail"] = pane.adapter.row(seen["hits"][0]).detail if seen["hits"] else ""

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
        assert seen["hits"] and all(h.extras["language"] == "go" for h in seen["hits"])
        assert seen["detail"].startswith("go")
    finally:
        engine.close()
        notes.close()


def test_the_preview_is_highlighted_as_the_rows_language():
    go = numbered(["func Parse(args []string) error {", "\treturn nil", "}"], 10, [], lexer="go")
    plain = numbered(["func Parse(args []string) error {", "\treturn nil", "}"], 10, [], lexer="nonesuch")
    keyword = go.plain.index("func")
    assert any(span.start <= keyword < span.end for span in go.spans)  # `func` coloured as a Go keyword
    assert not any(span.start <= keyword < span.end for span in plain.spans)
    php = numbered(["public function handle($x) { return $x; }"], 1, [], lexer="php")
    assert any(span.start <= php.plain.index("function") < span.end for span in php.spans)  # no `<?php` needed
