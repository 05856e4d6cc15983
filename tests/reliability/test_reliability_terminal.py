"""Nothing a corpus holds drives the terminal (issue 44): every output path shows a control character as
its picture, and ``--json`` keeps the exact text. The hostile corpus is tests/hostile.py's; each test
names the output path it holds (docs/reliability.md lists them)."""

from __future__ import annotations

import io
import json

import pytest

from engines import registry
from engines.answer import collect
from engines.terminal_text import ShownStream, json_text, one_line, shown
from olai_tui.cli import main
from tests import hostile

PICTURED = "␛]2;PWNED␇␛[31m␛[2J"  # the hostile run as it must show: OSC, SGR and C1 CSI pictured, RLO gone
QUERIES = {"notes": "slugs seedlings", "products": "oat milk", "code": "prompt the user for confirmation"}
TITLES = {"notes": hostile.NOTE_TITLE, "products": hostile.PRODUCT_NAME}


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    return {"notes": hostile.notes(root), "products": hostile.catalogue(root), "code": hostile.code(root)}


@pytest.fixture
def quiet(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("OLAI_RECALL", "off")  # the words find every hostile row; no model is needed here


def assert_no_raw_controls(*texts: str) -> None:
    for text in texts:
        assert hostile.raw_controls(text) == [], text


def test_shown_pictures_c0_c1_and_del_and_drops_bidi_controls():
    assert shown("a\x1b]2;t\x07b\x7fc\x9b2Jd\u202ee\u2066f\r\ng\rh\ti\nj") == "a␛]2;t␇b␡c␛[2Jdef\ng␍h\ti\nj"
    assert shown("name\udc9b.md") == "name\ufffd.md", "a file name's undecodable byte never fails a print"
    assert one_line("two\nlines\x1b") == "two lines␛"
    assert shown("plain text, Ähtäri, שלום") == "plain text, Ähtäri, שלום"


def test_json_text_escapes_what_a_terminal_acts_on_and_reads_back_exactly():
    value = {"title": hostile.HOSTILE + "\udc9b\u2028"}
    dumped = json_text(json.dumps(value, ensure_ascii=False))
    assert_no_raw_controls(dumped)
    assert json.loads(dumped) == value


@pytest.mark.parametrize("engine", ["notes", "products", "code"])
def test_search_prints_the_hostile_rows_with_control_pictures(engine, corpora, quiet, capsys):
    assert main(["search", engine, QUERIES[engine], "--corpus", str(corpora[engine])]) == 0
    out, err = capsys.readouterr()
    assert_no_raw_controls(out, err)
    if engine == "code":
        assert "confirm(question)" in out and "cli␛[7m/prompts.py:1" in out, "the hostile folder, pictured"
    else:
        assert PICTURED in out


@pytest.mark.parametrize("engine", ["notes", "products", "code"])
def test_json_round_trips_the_exact_text_and_the_ids(engine, corpora, quiet, capsys):
    assert main(["search", engine, QUERIES[engine], "--corpus", str(corpora[engine]), "--json"]) == 0
    out = capsys.readouterr().out
    assert_no_raw_controls(out.rstrip("\n"))
    answer = json.loads(out)
    opened = registry.open_engine(engine, corpora[engine], wait_for_index=True)
    try:
        direct = collect(engine, QUERIES[engine], opened.search(QUERIES[engine], limit=10))
    finally:
        opened.close()
    assert [h["id"] for h in answer["hits"]] == [h.id for h in direct.hits]
    if engine in TITLES:
        assert TITLES[engine] in [h["title"] for h in answer["hits"]]
    else:
        assert any("\x1b[7m" in h["where"] for h in answer["hits"]), "the exact path, escape and all"


def test_stderr_names_a_hostile_file_and_its_bad_row_with_pictures(corpora, quiet, capsys):
    assert main(["search", "products", "oat milk", "--corpus", str(corpora["products"])]) == 0
    err = capsys.readouterr().err
    assert_no_raw_controls(err)
    assert "catalogue␛]2;x␇.csv:4" in err


def test_the_index_report_shows_the_mapping_and_the_skipped_row(corpora, quiet, capsys):
    assert main(["index", "products", "--corpus", str(corpora["products"])]) == 0
    out, err = capsys.readouterr()
    assert_no_raw_controls(out, err)
    assert "line 4" in out and "brands" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("line", ["progress", "wait"])
def test_the_progress_line_writes_raw_only_its_own_redraw(line, monkeypatch):
    from olai_tui.progress import Progress, WaitLine

    terminal = _Terminal()
    stream = ShownStream(terminal)
    if line == "progress":
        bar = Progress(f"indexing {hostile.SET_TITLE}", stream=stream)
        bar(1, 2)
        bar.finish(hostile.RED)
    else:
        wait = WaitLine(f"notes{hostile.RED}", stream=stream)
        monkeypatch.setattr(wait, "_started", wait._started - 10)  # past the half second before it shows
        wait(1, 2, f"reading {hostile.SET_TITLE}")
        wait.clear()
    written = terminal.getvalue()
    ours = written.replace("\r\x1b[2K", "").replace("\r", "")
    assert_no_raw_controls(ours)
    assert "␛]2;PWNED␇" in ours or "␛[31m" in ours


def test_eval_names_a_hostile_requests_file_and_scores_hostile_requests(tmp_path, quiet, capsys):
    from engines.eval.datasets import Dataset, declare, forget
    from tests.evaluation.dataset_example.load import example_suite

    notes = hostile.notes(tmp_path)
    requests = tmp_path / f"requests{hostile.SET_TITLE}.jsonl"

    def _open(data, heldout, progress, say, queries):
        return example_suite(progress, folder=notes, requests=requests)

    declare(Dataset("notes", "hostile", lambda: ("exact", "words"), _open))
    try:
        requests.write_text('{"query": "slugs\\u001b[31m", "right": ["x"], "split": "dev"}\n{"query"\n',
                            encoding="utf-8")
        assert main(["eval", "notes", "--dataset", "hostile", "--split", "dev"]) == 2
        err = capsys.readouterr().err
        assert_no_raw_controls(err)
        assert "requests␛]2;PWNED␇.jsonl:2" in err
        requests.write_text('{"query": "slugs\\u001b]2;x\\u0007", "right": ["x"], "split": "dev"}\n', encoding="utf-8")
        assert main(["eval", "notes", "--dataset", "hostile", "--split", "dev"]) == 0
        out, err = capsys.readouterr()
        assert_no_raw_controls(out, err)
        assert "| exact |" in out
    finally:
        forget("notes", "hostile")


def test_bench_names_a_hostile_corpus_with_pictures(tmp_path, quiet, capsys):
    folder = tmp_path / f"tree{hostile.SET_TITLE}"
    folder.mkdir()
    (folder / "a.py").write_text("def confirm():\n    return True\n", encoding="utf-8")
    assert main(["bench", "code", "--corpus", str(folder), "--quick"]) == 0
    out, err = capsys.readouterr()
    assert_no_raw_controls(out)
    assert "tree␛]2;PWNED␇" in out


def test_model_list_names_a_hostile_model_path_with_pictures(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OLAI_EMBED_MODEL", str(tmp_path / f"model{hostile.SET_TITLE}.gguf"))
    assert main(["model", "list"]) == 0
    out, err = capsys.readouterr()
    assert_no_raw_controls(out, err)
    assert "model␛]2;PWNED␇.gguf" in out + err


def test_the_mcp_text_shows_pictures_and_the_structured_content_keeps_the_exact_title(corpora, quiet):
    from olai_tui.mcp import envelope

    engine = registry.open_engine("notes", corpora["notes"], wait_for_index=True)
    try:
        answer = collect("notes", QUERIES["notes"], engine.search(QUERIES["notes"], limit=10))
    finally:
        engine.close()
    result = envelope.search_result(answer, ("exact",))
    text = envelope.search_text(result)
    assert_no_raw_controls(text)
    assert PICTURED in text and len(text.splitlines()) == len(result["hits"]) + 1
    assert hostile.NOTE_TITLE in [hit["title"] for hit in result["hits"]]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_workbench_shows_the_rows_the_command_line_shows(corpora, quiet, anyio_backend):
    """Each pane's hostile row, on screen, is the command line's pictured title: one mapping for both."""
    from tests.snapshot_app import SIZE, all_panes, settle, type_query

    engines = {name: registry.open_engine(name, corpora[name], wait_for_index=True) for name in corpora}
    app = all_panes(engines["notes"], engines["products"], engines["code"])
    try:
        async with app.run_test(size=SIZE) as pilot:
            for name in ("notes", "products", "code"):
                app.switch_to(name)
                await settle(pilot)
                await type_query(pilot, QUERIES[name])
                screen = app.export_screenshot().replace("&#160;", " ")
                assert_no_raw_controls(screen)
                assert ("cli␛[7m" if name == "code" else "␛]2;PWNED␇") in screen, name
    finally:
        for engine in engines.values():
            engine.close()


def test_a_suggested_command_quotes_a_hostile_path_so_bash_reads_it_back(corpora):
    import subprocess

    from olai_tui.commands import typed

    path = str(corpora["products"])
    word = typed(path)
    assert_no_raw_controls(word)
    assert subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True).stdout == path.encode()
