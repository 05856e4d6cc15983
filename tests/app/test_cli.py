"""The command line's contract, run as a real subprocess with the real model: what goes to stdout, what
to stderr, and the exit status. `--json` prints one answer object and nothing else on stdout; a bad
argument or a missing corpus is exit 2 with one line on stderr, never a traceback; bad files in a
corpus are named once each and never stop the good notes; nothing is written into what is searched.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SLUGS = "garden/cold-frames/slugs.md"


def cli(*args: str, cache: Path | None = None, env: dict | None = None, stdout=subprocess.PIPE,
        timeout: float = 120) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    environment.pop("NO_COLOR", None)
    environment.pop("OLAI_RECALL", None)
    # conftest gives the session a private cache; a test that needs a cold one passes its own
    environment["XDG_CACHE_HOME"] = str(cache) if cache is not None else os.environ["XDG_CACHE_HOME"]
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "olai_tui.cli", *args], cwd=REPO, env=environment,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=timeout)


def only_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.endswith("\n") and done.stdout.count("\n") == 1, "one JSON object and nothing else"
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer


# -- the default corpus answers both tiers ------------------------------------------------------------
def test_a_paraphrase_on_the_default_corpus_finds_the_slugs_note_by_meaning():
    answer = only_json(cli("search", "notes", "protecting young plants from snails", "--json", "--wait"))
    assert set(answer) == {"engine", "query", "hits", "tiers", "total"}
    assert answer["engine"] == "notes" and answer["query"] == "protecting young plants from snails"
    slugs = [h for h in answer["hits"] if h["id"] == SLUGS]
    assert slugs, [h["id"] for h in answer["hits"]]
    assert slugs[0]["tier"] == "semantic" and slugs[0]["marker"] == "≈"
    assert answer["hits"][0]["id"] == SLUGS  # the README's example: first, as the semantic tier ranks it
    assert {t["name"]: t["status"] for t in answer["tiers"]} == {"exact": "empty", "words": "empty", "semantic": "answered"}
    assert answer["total"] >= len(answer["hits"])


def test_the_exact_word_on_the_default_corpus_puts_the_slugs_note_first_as_evidence():
    answer = only_json(cli("search", "notes", "seedlings", "--json"))
    first = answer["hits"][0]
    assert (first["id"], first["tier"], first["marker"]) == (SLUGS, "exact", "")
    assert [h["id"] for h in answer["hits"]].count(SLUGS) == 1


def test_recall_off_on_the_command_line_answers_the_exact_tier_alone():
    answer = only_json(cli("search", "notes", "seedlings", "--tiers", "exact", "--json", "--limit", "1"))
    assert [h["id"] for h in answer["hits"]] == [SLUGS]
    assert {t["name"]: t["status"] for t in answer["tiers"]} == {"exact": "answered", "words": "off", "semantic": "off"}


# -- bad arguments: exit 2, one line ------------------------------------------------------------------
BAD_ARGUMENTS = {
    "missing corpus": (["search", "notes", "x", "--corpus", "{tmp}/no-such-notebook"], "{tmp}/no-such-notebook"),
    "missing corpus, index": (["index", "notes", "--corpus", "{tmp}/gone"], "{tmp}/gone"),
    "missing corpus with a newline in its name": (["search", "notes", "x", "--corpus", "{tmp}/two\nlines"], "two"),
    "corpus that is not notes": (["search", "notes", "x", "--corpus", "{tmp}/photo.png"], "{tmp}/photo.png"),
    "unknown tier": (["search", "notes", "x", "--tiers", "exact,telepathy"], "telepathy"),
    "limit 0": (["search", "notes", "x", "--limit", "0"], "--limit"),
    "limit abc": (["search", "notes", "x", "--limit", "abc"], "abc"),
    "limit negative": (["search", "notes", "x", "--limit=-3"], "--limit"),
    "wait abc": (["search", "notes", "x", "--wait", "abc"], "abc"),
    "wait negative": (["search", "notes", "x", "--wait=-1"], "--wait"),
    "unknown engine": (["search", "recipes", "x"], "recipes"),
    "unknown engine, index": (["index", "recipes"], "recipes"),
}


@pytest.mark.parametrize("case", list(BAD_ARGUMENTS))
def test_a_bad_argument_is_exit_2_with_one_line_and_no_traceback(case, tmp_path):
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    args, named = BAD_ARGUMENTS[case]
    done = cli(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1, f"not one line: {done.stderr!r}"
    assert done.stderr.startswith("olai-tui: ")
    assert named.replace("{tmp}", str(tmp_path)) in done.stderr


# -- bad input in a corpus ----------------------------------------------------------------------------
def snapshot(folder: Path) -> dict:
    """Every entry under folder (links not followed): type, size, mtime and, for files, the bytes' hash."""
    seen = {}
    for current, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(current) / name
            st = path.lstat()
            digest = None
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                digest = os.readlink(path)
            seen[str(path.relative_to(folder))] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns, digest)
    seen["."] = folder.stat().st_mtime_ns
    return seen


BAD_FILES = {  # relative path as named on stderr -> words of its cause
    "scan.txt": "binary",
    "latin1.md": "not UTF-8",
    "empty.md": "empty",
    "huge.txt": "too large",
    "plan.jsonl:2": "malformed JSON",
    "loop.md": "symlink loop",
    "pipe.md": "FIFO",
}
GOOD_NOTES = {"garden/slugs.md", "garden/compost.txt", "plan.jsonl#a", "plan.jsonl#b"}


def skipped_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("olai-tui: skipped ")]


def assert_each_bad_file_named_once(stderr: str) -> None:
    lines = skipped_lines(stderr)
    for rel, cause in BAD_FILES.items():
        named = [line for line in lines if line.startswith(f"olai-tui: skipped {rel}: ")]
        assert len(named) == 1, (rel, lines)
        assert cause in named[0], named[0]
    assert len(lines) == len(BAD_FILES), lines


def test_bad_input_corpus_via_cli(tmp_path):
    corpus, cache = tmp_path / "notebook", tmp_path / "xdg-cache"
    (corpus / "garden").mkdir(parents=True)
    (corpus / "garden" / "slugs.md").write_text("# The slugs got the seedlings last year\nquillwort and copper tape\n")
    (corpus / "garden" / "compost.txt").write_text("Compost\nthree bays, quillwort in the middle one\n")
    (corpus / "plan.jsonl").write_text('{"id":"a","title":"Bench","desc":"quillwort oil for the top"}\n'
                                       '{"id": oops\n'
                                       '{"id":"b","parent":"a","title":"Vice","desc":"a quillwort jaw"}\n')
    (corpus / "scan.txt").write_bytes(b"PK\x03\x04\x00\x00quillwort binary")
    (corpus / "latin1.md").write_bytes(b"# Caf\xe9 quillwort\nnot utf-8\n")
    (corpus / "empty.md").write_bytes(b"")
    with open(corpus / "huge.txt", "w") as f:  # 50 MB of real text
        chunk = "quillwort " * 100_000
        for _ in range(50):
            f.write(chunk)
    (corpus / "loop.md").symlink_to("loop.md")
    os.mkfifo(corpus / "pipe.md")
    before = snapshot(corpus)

    searched = cli("search", "notes", "quillwort", "--corpus", str(corpus), "--json", cache=cache)
    answer = only_json(searched)
    assert_each_bad_file_named_once(searched.stderr)
    assert {h["id"] for h in answer["hits"] if h["tier"] == "exact"} == GOOD_NOTES
    assert answer["total"] == len(GOOD_NOTES)
    semantic = {t["name"]: t for t in answer["tiers"]}["semantic"]
    assert semantic["status"] in ("answered", "empty"), semantic  # the index was built over the good notes

    for word, note in [("seedlings", "garden/slugs.md"), ("bays", "garden/compost.txt"), ("vice", "plan.jsonl#b")]:
        found = only_json(cli("search", "notes", word, "--corpus", str(corpus), "--json", "--tiers", "exact",
                              cache=cache))
        assert [h["id"] for h in found["hits"]] == [note], word

    indexed = cli("index", "notes", "--corpus", str(corpus), cache=cache)
    assert indexed.returncode == 0, indexed.stderr
    assert "Traceback" not in indexed.stderr
    assert_each_bad_file_named_once(indexed.stderr)
    assert f"{len(GOOD_NOTES)} notes" in indexed.stderr

    assert snapshot(corpus) == before, "nothing is created or changed in the searched folder"
    vectors = list((cache / "olai-tui").rglob("*.vec"))
    assert vectors, "the vector cache lives under XDG_CACHE_HOME"


# -- output for people --------------------------------------------------------------------------------
def run_on_a_terminal(*args: str, env: dict, stream: str = "stdout") -> str:
    """Run the CLI with ``stream`` (stdout or stderr) on a pseudo-terminal; what it printed there."""
    primary, secondary = os.openpty()
    try:
        environment = dict(os.environ, **env)
        streams = {"stdout": secondary, "stderr": subprocess.PIPE} if stream == "stdout" else \
            {"stdout": subprocess.DEVNULL, "stderr": secondary}
        child = subprocess.Popen([sys.executable, "-m", "olai_tui.cli", *args], cwd=REPO, env=environment,
                                 **streams)
        os.close(secondary)
        secondary = None
        out = b""
        while True:
            try:
                data = os.read(primary, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            out += data
        child.wait(timeout=120)
        if child.stderr is not None:
            child.stderr.close()
        assert child.returncode == 0
        return out.decode("utf-8", "replace")
    finally:
        os.close(primary)
        if secondary is not None:
            os.close(secondary)


def test_human_output_to_a_pipe_has_no_escape_codes():
    done = cli("search", "notes", "seedlings")
    assert done.returncode == 0, done.stderr
    assert SLUGS in done.stdout and "exact: answered" in done.stdout
    assert "\x1b" not in done.stdout and "\x1b" not in done.stderr


def test_no_color_means_no_escape_codes_even_on_a_terminal():
    plain = run_on_a_terminal("search", "notes", "seedlings", env={"NO_COLOR": "1"})
    assert SLUGS in plain
    assert "\x1b" not in plain
    # The probe can see colour: without NO_COLOR a terminal gets it.
    assert "\x1b[" in run_on_a_terminal("search", "notes", "seedlings", env={"NO_COLOR": ""})


def test_a_search_that_waits_for_a_first_index_says_so_on_a_terminal_and_wipes_the_line(tmp_path):
    corpus, cache = tmp_path / "many", tmp_path / "xdg-cache"
    corpus.mkdir()
    count = 400  # a few seconds of embedding: well past the half second before the line shows
    for i in range(count):
        (corpus / f"n{i}.md").write_text(f"q{i}\n")

    on_terminal = run_on_a_terminal("search", "notes", "--corpus", str(corpus), "seedlings in spring", "--wait",
                                    stream="stderr",
                                    env={"XDG_CACHE_HOME": str(cache)})
    drawn = re.findall(r"\r\x1b\[2Knotes: embedding notes ([\d,]+)/([\d,]+)", on_terminal)
    assert drawn, on_terminal
    assert {of for _, of in drawn} == {str(count)}
    assert on_terminal.endswith("\r\x1b[2K"), "the line is wiped before the answer is printed"

    piped = cli("search", "notes", "--corpus", str(corpus), "slugs in spring", cache=tmp_path / "cold-again")
    assert piped.returncode == 0, piped.stderr
    assert "embedding" not in piped.stderr and "\x1b" not in piped.stderr  # a script's stderr stays quiet


# -- index --------------------------------------------------------------------------------------------
PROGRESS = re.compile(r"^indexing notes: (static|contextual) vectors ([\d,]+)/([\d,]+)$")


def test_index_prints_at_most_eleven_progress_lines_when_not_on_a_terminal(tmp_path):
    corpus, cache = tmp_path / "many", tmp_path / "xdg-cache"
    corpus.mkdir()
    count = 720  # one passage each: a dozen embedding batches, more progress calls than lines allowed
    for i in range(count):
        (corpus / f"n{i}.md").write_text(f"q{i}\n")

    done = cli("index", "notes", "--corpus", str(corpus), cache=cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    progress = [PROGRESS.match(line) for line in lines if PROGRESS.match(line)]
    # two stages, the static vectors first (a minute at most at 100,000 notes), then the model's
    assert [m.group(1) for m in progress] == sorted((m.group(1) for m in progress), key=["static", "contextual"].index)
    for stage in ("static", "contextual"):
        counts = [int(m.group(2).replace(",", "")) for m in progress if m.group(1) == stage]
        assert 1 <= len(counts) <= 11, lines
        assert counts == sorted(counts) and counts[-1] == count
    assert {m.group(3).replace(",", "") for m in progress} == {str(count)}
    assert "\r" not in done.stderr and "\x1b" not in done.stderr
    assert re.search(rf"indexing notes done in [\d.]+ s: {count} notes, {count} passages embedded now", lines[-1])
    assert len(lines) == len(progress) + 1, lines

    again = cli("index", "notes", "--corpus", str(corpus), cache=cache)
    assert again.returncode == 0, again.stderr
    assert again.stderr.strip().endswith(f"{count} notes, 0 passages embedded now"), again.stderr


def test_version_names_the_installed_release_and_help_names_no_internal_path():
    from importlib.metadata import version

    done = cli("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"olai-tui {version('olai-tui')}"
    helps = "".join(cli(*args, "--help").stdout for args in ((), ("search",), ("index",), ("eval",), ("mcp",)))
    assert "usage: olai-tui" in helps
    assert not re.search(r"\b(olai_tui|engines)/", helps), "a help text names a module path"


def test_a_build_in_stages_names_each_stage_on_its_own_line():
    """`olai-tui index notes`: the static vectors' line stays at its end when the model's begins."""
    import io

    from olai_tui.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    bar = Progress("indexing notes", stream=out)
    bar.stage("static vectors")
    bar(10, 10)
    bar.stage("contextual vectors")
    bar(1, 10)
    bar.finish("10 notes")
    lines = out.getvalue().split("\n")
    assert lines[0].endswith("10/10") and "indexing notes: static vectors" in lines[0]
    assert lines[1].endswith("indexing notes done in 0.0 s: 10 notes")  # the last stage's line wiped by the total


def test_a_build_in_stages_off_a_terminal_says_each_stage():
    import io

    from olai_tui.progress import Progress

    out = io.StringIO()
    bar = Progress("indexing notes", stream=out)
    bar.stage("static vectors")
    bar(10, 10)
    bar.stage("contextual vectors")
    bar(0, 10)
    assert out.getvalue().splitlines() == ["indexing notes: static vectors 10/10", "indexing notes: contextual vectors 0/10"]
