"""Nothing is ever written into what is searched: every file's bytes and mtime, and every folder's
listing, are the same after index, search, watch, eval and the workbench ran over a corpus.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import time
from pathlib import Path

import pytest

from engines.code.engine import CodeEngine
from engines.code.live import CodeWatcher
from engines.eval.collection import Collection
from engines.eval.configs.notes import NotesConfigs
from engines.eval.runner import Request, run
from engines.embed.llama import LlamaEmbedder
from engines.notes.corpus import load_corpus
from engines.notes.engine import NotesEngine
from engines.notes.live import NotesWatcher
from olai_tui.cli import main

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under root: a file's sha256, size and mtime; a folder's mtime and sorted listing."""
    out: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        out[rel + "/"] = (os.stat(folder).st_mtime_ns, tuple(sorted(dirs + files)))
        for name in files:
            path = os.path.join(folder, name)
            stat = os.stat(path)
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            out[os.path.join(rel, name)] = (digest, stat.st_size, stat.st_mtime_ns, stat.st_mode)
    return out


def differences(before: dict, after: dict) -> list[str]:
    changed = [k for k in before if k in after and before[k] != after[k]]
    return ([f"changed {k}" for k in changed] + [f"new {k}" for k in after if k not in before]
            + [f"gone {k}" for k in before if k not in after])


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    # one set for the module: the workbench test finds the index the first test built (same paths)
    tmp_path = tmp_path_factory.mktemp("corpora")
    notes, code, products = tmp_path / "notes", tmp_path / "code", tmp_path / "products"
    shutil.copytree(FIXTURES / "notes", notes)
    shutil.copytree(FIXTURES / "code", code)
    shutil.copytree(FIXTURES / "products", products)
    # every 8th product (116 of 930): the catalogue embeds in ~2 s instead of ~14 s cold
    header, *rows = (FIXTURES / "products" / "food.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (products / "food.tsv").write_text(header + "".join(rows[::8]), encoding="utf-8")
    # a past mtime: a write that kept the same bytes would still move it
    for root in (notes, code, products):
        for path in [root, *root.rglob("*")]:
            os.utime(path, ns=(1_600_000_000 * 10**9, 1_600_000_000 * 10**9))
    return notes, code, products


def test_index_search_watch_and_eval_leave_every_corpus_byte_for_byte_as_it_was(corpora):
    notes, code, products = corpora
    before = {root: snapshot(root) for root in corpora}

    # index and search, as the command line does them, every tier on
    assert cli("index", "notes", "--corpus", str(notes))[0] == 0
    assert cli("index", "code", "--corpus", str(code))[0] == 0
    assert cli("index", "products", "--corpus", str(products))[0] == 0
    for argv in (("search", "notes", "protecting young plants from snails", "--corpus", str(notes), "--json"),
                 ("search", "code", "where do we throttle requests", "--corpus", str(code),
                  "--tiers", "lexical,embedding", "--json"),
                 ("search", "products", "laktoositon maito 1 l", "--corpus", str(products), "--json")):
        status, out, err = cli(*argv)
        assert status == 0 and out.startswith("{"), err

    # watch: the watchers run over the corpora while searches go on
    embedder = LlamaEmbedder()
    notes_engine = NotesEngine(notes, embedder=embedder)
    code_engine = CodeEngine(code, embedder=embedder)
    watchers = [NotesWatcher(notes_engine), CodeWatcher(code_engine)]
    try:
        for watcher in watchers:
            watcher.start()
        notes_engine.start_indexing()
        code_engine.start_indexing()
        deadline = time.monotonic() + 30
        while notes_engine.semantic.state().state != "ready" or code_engine.vectors.state().state != "ready":
            assert time.monotonic() < deadline
            list(notes_engine.search("compost heap", 10))
            list(code_engine.search("retry with backoff", 10, ("lexical", "embedding")))
            time.sleep(0.1)
        notes_engine.reload()
        code_engine.reload()
    finally:
        for watcher in watchers:
            watcher.stop()
        notes_engine.close()
        code_engine.close()
    assert all(w.changes_seen == 0 for w in watchers), "nothing under the corpora changed while watched"

    # eval: the notes runner over this corpus, the products food set over this catalogue
    loaded = load_corpus(notes).notes
    slugs = next(n.id for n in loaded if n.id.endswith("slugs.md"))
    collection = Collection("clean", loaded, {"q1": "protecting young plants from snails", "q2": "slugs"},
                            {"q1": {slugs: 1.0}, "q2": {slugs: 1.0}})
    configs = NotesConfigs(collection, notes, embedder=embedder).factories()
    requests = [Request(q, t, dict(collection.judged[q]), "dev") for q, t in collection.queries.items()]
    tables = run("notes", "clean", requests, configs, split="dev", fresh=True)
    assert tables[0].metrics["merged"]["recall@10"] == 1.0
    from engines.eval.food.configs import FoodConfigs, requests as food_requests

    food = FoodConfigs(products)
    try:
        food_tables = run("products", "clean-food", food_requests("dev"),
                          {n: food.factories()[n] for n in ("bm25", "bm25_rules")}, split="dev", fresh=True,
                          score_outcome=food.score)
    finally:
        food.close()
    assert set(food_tables[0].metrics) == {"bm25", "bm25_rules"}

    after = {root: snapshot(root) for root in corpora}
    for root in corpora:
        assert differences(before[root], after[root]) == [], root


@pytest.mark.anyio
async def test_the_workbench_leaves_the_corpus_byte_for_byte_as_it_was(corpora):
    from olai_tui.app import WorkbenchApp
    from olai_tui.ui.generic_adapter import EngineAdapter

    notes = corpora[0]
    before = snapshot(notes)
    engine = NotesEngine(notes, embedder=LlamaEmbedder())
    watcher = NotesWatcher(engine)
    watcher.start()
    app = WorkbenchApp([EngineAdapter(engine, label="notes")])
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            pane = app.active_pane
            pane.input.focus()
            for query in ("slugs", "protecting young plants from snails"):
                pane.input.value = ""
                await pilot.press(*query)
                await pilot.pause(0.3)
                await app.workers.wait_for_complete()
            assert pane.table.hits, "the workbench answered"
            deadline = time.monotonic() + 30
            while engine.semantic.state().state != "ready":
                assert time.monotonic() < deadline
                await pilot.pause(0.1)
            await pilot.press("ctrl+r")  # the rebuild binding, where there is one
            await pilot.pause(0.3)
    finally:
        watcher.stop()
        engine.close()
    assert differences(before, snapshot(notes)) == []
