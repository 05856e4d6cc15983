"""A fourth engine is one registration: a tiny engine over a list of lines, registered here and
nowhere else, answers through the CLI's `search ENGINE QUERY --json`, a workbench pane (Pilot) with
the columns its class declares, the contract test, the evaluation runner and the MCP tools, with no
other file touched. What it declares beside its spec in this file (index options and their command,
a bench, a dataset) reaches `olai-tui index`, `bench` and `eval` and the evaluation view the same way."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from engines import registry
from engines.answer import Batch, Hit, TierReport
from engines.contract import Engine, EngineStatus, Option, Passage, Presentation, Ranked, ranked_by_search
from engines.errors import BadInput
from engines.eval.runner import Request, engine_configs, run

LINES = ["the quick brown fox", "a slow green turtle", "brown bread with butter", "foxes are quick"]


class LinesEngine(Engine):
    """Each line of a text file is an item; a line holding every word of the query is a hit."""

    name = "lines"
    tiers = ("words",)
    default_tiers = ("words",)
    evidence_tiers = ("words",)
    item_noun = "lines"
    # Its own columns in a pane: how many words a line has after its title, and a badge for odd or even.
    presentation = Presentation(detail=("length",), badge="parity",
                                badge_styles=(("even", "bold green"), ("odd", "bold yellow")))

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise BadInput(f"{path}: no such file")
        self.path = path
        self.problems = []
        self.lines = path.read_text(encoding="utf-8").splitlines()

    def items(self) -> int:
        return len(self.lines)

    @property
    def corpus_label(self) -> str:
        return self.path.name

    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        for tier in (tiers,) if isinstance(tiers, str) else tiers or ():
            self.check_tier(tier)
        started = time.perf_counter()
        wanted = query.lower().split()
        found = [i for i, line in enumerate(self.lines) if wanted and set(wanted) <= set(line.lower().split())]
        hits = [Hit(f"line-{i + 1}", self.lines[i], f"{self.path.name}:{i + 1}", "words", 1.0, extras=self.extras(i))
                for i in found[:limit]]
        ms = (time.perf_counter() - started) * 1000
        yield Batch(hits, [TierReport("words", "answered" if hits else "empty", ms, len(hits))], total=len(found))

    def extras(self, i: int) -> dict:
        count = len(self.lines[i].split())
        return {"length": f"{count} words", "parity": "even" if count % 2 == 0 else "odd"}

    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        return ranked_by_search(self, tier, query, depth)

    def read(self, item_id: str) -> Passage:
        number = item_id.removeprefix("line-")
        if not number.isdigit() or not 1 <= int(number) <= len(self.lines):
            raise KeyError(item_id)
        number = int(number)
        return Passage(item_id, self.lines[number - 1], f"{self.path.name}:{number}", self.lines[number - 1],
                       str(self.path), number, number)

    def status(self) -> EngineStatus:
        return EngineStatus(self.name, str(self.path), len(self.lines), [TierReport("words", "answered")])


@pytest.fixture
def lines_engine(tmp_path):
    corpus = tmp_path / "lines.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    # the one place the engine is added:
    registry.register(registry.EngineSpec("lines", "lines of a text file", lambda path, **_: LinesEngine(path),
                                          lambda: corpus, sample_query="quick fox", engine_class=lambda: LinesEngine,
                                          index_options=COUNT, index_command=count_words))
    yield corpus
    registry.unregister("lines")


# `olai-tui index lines --words [--longer-than N]`: an index option and the command it runs, on the spec
COUNT = (Option("words", "count the words instead of indexing", kind="flag", default=False),
         Option("longer_than", "with --words, only lines of more words than this", default="0"))


def count_words(open_engine, options, console) -> int:
    if not options["words"]:
        raise BadInput("--longer-than: add --words")
    if not options["longer_than"].isdigit():
        raise BadInput(f"--longer-than: not a whole number: {options['longer_than']!r}")
    engine = open_engine()
    counts = [len(line.split()) for line in engine.lines if len(line.split()) > int(options["longer_than"])]
    console.say(f"counted {len(counts)} lines")
    console.out(f"{sum(counts)} words")
    return 0


def bench_lines(corpus, as_json, quick, console) -> int:
    engine = LinesEngine(corpus or registry.spec("lines").default_corpus())
    report = {"engine": "lines", "lines": engine.items(), "quick": quick}
    console.out(json.dumps(report) if as_json else f"{report['lines']} lines")
    return 0


def toy_suite(data, heldout, progress, say, queries):
    from engines.eval.suite import Suite, Verdict

    engine = registry.open_engine("lines")
    requests = [Request("q1", "quick", {"line-1": 1.0, "line-4": 1.0}, "dev"),
                Request("q2", "turtle", {"line-2": 1.0}, "dev"),
                Request("q3", "butter", {"line-1": 1.0}, "dev")]  # judged wrong on purpose

    def verdicts(request, ranked, extras):
        return [Verdict(i, i, request.judged.get(i, 0.0), i in request.judged) for i in ranked]

    return Suite("lines", "toy", requests, engine_configs(engine), ("recall@10", "mrr@10"), verdicts,
                 close=engine.close)


@pytest.fixture
def lines_declared(lines_engine, tmp_path, monkeypatch):
    """Its bench and a dataset, declared with the evaluation as a built-in engine's are."""
    from engines.eval import bench, datasets

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    bench.declare(bench.Bench("lines", bench_lines, "nothing left out"))
    datasets.declare(datasets.Dataset("lines", "toy", lambda: ("words", "answer"), toy_suite))
    yield lines_engine
    bench.forget("lines")
    datasets.forget("lines", "toy")


def test_the_cli_searches_a_registered_engine(lines_engine, capsys):
    from olai_tui.cli import main

    assert main(["search", "lines", "quick fox", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["engine"] == "lines" and answer["total"] == 1
    assert [h["where"] for h in answer["hits"]] == ["lines.txt:1"]
    assert main(["search", "lines", "brown", "--corpus", str(lines_engine)]) == 0
    printed = capsys.readouterr().out
    assert "The quick brown fox".lower() in printed.lower() and "brown bread" in printed


def test_an_unknown_engine_is_a_bad_argument_naming_the_known_ones(lines_engine, capsys):
    from olai_tui.cli import main

    assert main(["search", "nosuch", "q"]) == 2
    assert capsys.readouterr().err.strip() == "olai-tui: unknown engine 'nosuch' (known: code, lines, notes, products)"


def test_a_registered_engine_that_reads_without_progress_still_opens_when_a_caller_asks_for_it(lines_engine):
    told = []
    engine = registry.open_engine("lines", progress=lambda done, of, what: told.append((done, of, what)))
    assert engine.items() == len(LINES)  # its open() takes no progress=: not passed one
    engine.waiting("counting lines")(1, 4)  # what it waits on later still reaches the caller
    assert told == [(1, 4, "counting lines")]


def test_a_built_in_engine_says_how_its_corpus_reading_moves(tmp_path):
    for i in range(70):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    told = []
    engine = registry.open_engine("code", tmp_path, progress=lambda done, of, what: told.append((done, of, what)))
    try:
        assert engine.files == 70
        assert told and told[-1] == (70, 70, "reading files")
        assert all(of == 70 and what == "reading files" for _, of, what in told)
    finally:
        engine.close()


def test_the_evaluation_runner_scores_a_registered_engine(lines_engine, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    engine = registry.open_engine("lines")
    requests = [Request("q1", "quick", {"line-1": 1.0, "line-4": 1.0}, "dev"),
                Request("q2", "turtle", {"line-2": 1.0}, "dev"),
                Request("q3", "butter", {"line-1": 1.0}, "dev")]  # judged wrong on purpose: the run must say so
    (table,) = run("lines", "toy", requests, engine_configs(engine), split="dev", fresh=True)
    words = table.metrics["words"]
    assert words["recall@10"] == pytest.approx(2 / 3, abs=1e-3)  # q1 and q2 found in full, q3 not at all
    assert words["mrr@10"] == pytest.approx(2 / 3, abs=1e-3)
    assert table.metrics["answer"]["recall@10"] == words["recall@10"]


@pytest.mark.anyio
async def test_a_registered_engine_gets_a_workbench_pane(lines_engine):
    from olai_tui.workbench import build_workbench
    from tests.snapshot_app import SIZE, SnapshotWorkbench, type_query

    app = build_workbench({"lines": lines_engine}, pane="lines", app_class=SnapshotWorkbench, watch=False)
    assert [a.name for a in app.adapters] == ["notes", "products", "code", "lines"]
    try:
        async with app.run_test(size=SIZE) as pilot:
            assert app.active_pane.adapter.name == "lines"
            await type_query(pilot, "brown")
            rows = app.active_pane.table.hits
            assert [h.where for h in rows] == ["lines.txt:1", "lines.txt:3"]
            assert "brown bread" in str(app.active_pane.adapter.preview(rows[1], "brown")).lower()
            # its own columns, as its class declares them: the length after the title, the parity badge
            table = app.active_pane.table
            assert [str(c.label) for c in table.columns.values()] == [" ", "title", "where", "tier", "label", "score"]
            view = app.active_pane.adapter.row(rows[1])
            assert (view.title, view.detail, view.label, view.label_style) == \
                ("brown bread with butter", "4 words", "even", "bold green")
            badge = table.get_row_at(1)[4]
            assert str(badge) == "even" and str(badge.style) == "bold green"
    finally:
        app.shutdown()


def test_the_contract_test_holds_a_registered_engine_to_the_contract(lines_engine, monkeypatch):
    from tests.engines import test_engine_contract as contract

    engine = registry.open_engine("lines")
    for check in (contract.test_declared_tiers_are_consistent, contract.test_the_envelope_has_its_shape,
                  contract.test_rows_once_shown_never_move, contract.test_a_plain_search_puts_evidence_rows_first,
                  contract.test_an_unknown_tier_is_a_value_error_naming_the_known_ones,
                  contract.test_rank_is_the_tiers_own_ranking,
                  contract.test_read_gives_a_hits_text_and_refuses_an_unknown_id, contract.test_status_names_every_tier):
        check(engine)
    contract.test_recall_off_answers_what_the_cheap_tier_answers(engine, monkeypatch)
    for query in contract.BAD_QUERIES:
        contract.test_a_bad_query_gets_an_answer_not_a_traceback(engine, query)


def test_the_mcp_tools_serve_a_registered_engine(lines_engine):
    from olai_tui.mcp import schemas, server
    from olai_tui.mcp.pool import Pool

    assert "lines" in schemas.search_schema()["properties"]["engine"]["enum"]
    pool = Pool({"lines": lines_engine})
    try:
        _text, found = server._search(pool, {"engine": "lines", "query": "brown", "limit": 5})
        assert [h["id"] for h in found["hits"]] == ["line-1", "line-3"]
        text, read = server._read(pool, {"engine": "lines", "id": "line-3"})
        assert read["text"] == "brown bread with butter" and text.endswith("brown bread with butter")
        _text, status = server._status(pool, {"engine": "lines"})
        assert status["engines"][0]["engine"] == "lines" and status["engines"][0]["ready"]
    finally:
        pool.close()


def test_the_cli_runs_a_registered_engines_index_options_through_its_declared_command(lines_engine, capsys):
    from olai_tui.cli import build_parser, main

    assert main(["index", "lines", "--words", "--longer-than", "3"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "12 words\n"  # the three lines of four words; "foxes are quick" is left out
    assert captured.err == "olai-tui: counted 3 lines\n"
    assert main(["index", "lines", "--longer-than", "x"]) == 2  # given without --words: the command refuses
    assert capsys.readouterr().err == "olai-tui: --longer-than: add --words\n"
    # another engine does not take it; nor does the lines engine take products' Milvus options
    assert main(["index", "notes", "--words"]) == 2
    assert capsys.readouterr().err == "olai-tui: --words: only the lines engine takes it, not notes\n"
    assert main(["index", "lines", "--backend", "milvus"]) == 2
    assert capsys.readouterr().err == "olai-tui: --backend: only the products and code engines take it, not lines\n"
    index_help = build_parser()._subparsers._group_actions[0].choices["index"].format_help()
    assert "lines: count the words instead of indexing" in index_help and "--longer-than" in index_help


def test_a_declared_bench_and_dataset_reach_bench_eval_and_the_evaluation_view(lines_declared, capsys):
    from olai_tui.cli import main
    from olai_tui.ui.evaluation import dataset_choices

    assert main(["bench", "lines", "--quick", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"engine": "lines", "lines": 4, "quick": True}
    assert main(["eval", "lines", "--dataset", "toy", "--split", "dev", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert (table["engine"], table["dataset"], set(table["configs"])) == ("lines", "toy", {"words", "answer"})
    assert table["configs"]["words"]["metrics"]["recall@10"] == pytest.approx(2 / 3, abs=1e-3)
    assert main(["eval", "lines", "--dataset", "toy", "--configs", "magic"]) == 2
    assert "unknown configuration 'magic' (known: words, answer)" in capsys.readouterr().err
    assert main(["eval", "lines", "--dataset", "nope"]) == 2
    assert capsys.readouterr().err == "olai-tui: --dataset: unknown dataset 'nope' for lines (known: toy)\n"
    assert ("lines · toy", "lines/toy") in dataset_choices()


def test_an_engine_without_a_declared_bench_or_dataset_says_so(lines_engine, capsys):
    from olai_tui.cli import main

    assert main(["bench", "lines"]) == 2
    assert capsys.readouterr().err == "olai-tui: bench: no benchmark for lines (benchmarks: code, notes, products)\n"
    assert main(["eval", "lines", "--dataset", "toy"]) == 2
    assert capsys.readouterr().err == "olai-tui: --dataset: unknown dataset 'toy' for lines (known: none)\n"

