"""A person's grades under faults (issue 57), with real processes and real files: an import killed with
SIGKILL midway, a journal cut mid-line, a disk that fills, a write past the file-size limit, two
processes keeping runs in the same second, a read-only data folder. Nothing already kept is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engines.eval.judgements.store import Judgements
from olai_tui.cli import main

REPO = Path(__file__).resolve().parents[2]
NOTES = {"slugs.md": "# Slugs\n\nSlugs eat the lettuce.\n", "beer.md": "# Beer traps\n\nBeer traps catch slugs.\n"}


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A two-note corpus, its data folder under tmp_path, three grades kept."""
    corpus = tmp_path / "notes"
    corpus.mkdir()
    for name, text in NOTES.items():
        (corpus / name).write_text(text)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OLAI_RECALL", "off")
    Judgements("notes", corpus).write([("slugs", "slugs.md", 3, "", ""), ("slugs", "beer.md", 1, "", ""),
                                       ("beer", "beer.md", 3, "", "")])
    return corpus


def cli(*args: str, **extra) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "olai_tui.cli", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, **extra)


def kept(corpus) -> dict:
    return {(j.query, j.item): j.grade for j in Judgements("notes", corpus).all().values()}


def write_csv(path: Path, rows) -> Path:
    path.write_text("query,id,grade\n" + "".join(f"{q},{i},{g}\n" for q, i, g in rows))
    return path


def test_an_import_killed_midway_keeps_every_grade_kept_before_and_the_next_grade_lands(home, tmp_path):
    journal = Judgements("notes", home).path
    before = journal.read_bytes()
    big = write_csv(tmp_path / "big.csv", ((f"query {n}", "slugs.md", n % 4) for n in range(40_000)))
    for _ in range(3):  # an import that finished before the kill landed is tried again
        importing = cli("judgements", "import", "notes", str(big), "--corpus", str(home))
        while not list(journal.parent.glob(f".{journal.name}.*.tmp")) and importing.poll() is None:
            time.sleep(0.002)
        importing.kill()  # SIGKILL while the new journal is being written
        importing.wait()
        if importing.returncode == -9 and list(journal.parent.glob(f".{journal.name}.*.tmp")):
            break
        journal.write_bytes(before)
    assert list(journal.parent.glob(f".{journal.name}.*.tmp")), "killed while writing"
    assert journal.read_bytes() == before  # all or nothing: nothing half-imported
    done = cli("judgements", "import", "notes", str(write_csv(tmp_path / "one.csv", [("traps", "beer.md", 2)])),
               "--corpus", str(home))
    out, err = done.communicate(timeout=60)
    assert done.returncode == 0, err
    assert kept(home) == {("slugs", "slugs.md"): 3, ("slugs", "beer.md"): 1, ("beer", "beer.md"): 3,
                          ("traps", "beer.md"): 2}
    assert not list(journal.parent.glob(f".{journal.name}.*.tmp"))  # what the killed import left, swept


def test_a_journal_cut_mid_line_takes_the_next_grade_on_a_line_of_its_own_and_keeps_the_cut_aside(home, tmp_path):
    journal = Judgements("notes", home).path
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"query": "snails", "item": "slu')  # a write stopped midway
    done = cli("judgements", "import", "notes", str(write_csv(tmp_path / "two.csv", [("traps", "beer.md", 2),
                                                                                     ("snails", "slugs.md", 1)])),
               "--corpus", str(home))
    out, err = done.communicate(timeout=60)
    assert done.returncode == 0, err
    assert f"{journal}:5: not a grade (cut short: a write stopped midway); skipped, moved to" in err
    assert "2 grades read" in err
    assert kept(home)[("traps", "beer.md")] == 2 and kept(home)[("snails", "slugs.md")] == 1 and len(kept(home)) == 5
    aside = journal.with_name(journal.stem + ".damaged.jsonl")
    assert json.loads(aside.read_text()) | {"when": ""} == {"from": f"{journal}:5", "when": "",
                                                            "why": "cut short: a write stopped midway",
                                                            "line": '{"query": "snails", "item": "slu'}
    assert journal.read_bytes().startswith(whole) and Judgements("notes", home).all() and not _problems(home)


def _problems(corpus) -> list[str]:
    store = Judgements("notes", corpus)
    store.all()
    return store.problems


@pytest.fixture
def tmpfs(tmp_path):
    where = tmp_path / "data"
    where.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip() or 'not root'}): the full-disk "
                    "grades test needs one")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_full_disk_during_an_import_keeps_every_grade_kept_before(tmpfs, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmpfs))
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "slugs.md").write_text("# Slugs\n")
    store = Judgements("notes", corpus)
    store.write([(f"query {n}", "slugs.md", n % 4, "", "") for n in range(200)])
    before = store.path.read_bytes()
    filler = tmpfs / "filler"
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    rows = [(f"another query {n}", "slugs.md", n % 4) for n in range(3000)]
    assert main(["judgements", "import", "notes", str(write_csv(tmp_path / "many.csv", rows)),
                 "--corpus", str(corpus)]) == 2
    assert store.path.read_bytes() == before  # nothing imported, nothing lost
    assert not list(store.path.parent.glob(".*.tmp"))
    filler.unlink()
    store.grade("snails", "slugs.md", 2)
    assert len(Judgements("notes", corpus).all()) == 201 and not _problems(corpus)


GRADE_PAST_LIMIT = textwrap.dedent('''
    import resource, sys
    from engines.eval.judgements.store import Judgements
    store = Judgements("notes", sys.argv[1])
    size = store.path.stat().st_size
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 40, size + 40))  # the append gets 40 bytes in, then EFBIG
    try:
        store.grade("a query typed at length to pass the limit", "slugs.md", 2)
    except OSError as exc:
        print(exc.errno)
''')


def test_a_grade_whose_write_fails_midway_is_cut_back_off(home):
    journal = Judgements("notes", home).path
    before = journal.read_bytes()
    done = subprocess.run([sys.executable, "-c", GRADE_PAST_LIMIT, str(home)], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.strip() == str(__import__("errno").EFBIG), done.stderr
    assert journal.read_bytes() == before  # no half line left for the next grade to land on
    Judgements("notes", home).grade("snails", "slugs.md", 1)
    assert len(kept(home)) == 4 and not _problems(home)


RUNS = textwrap.dedent('''
    import sys, time
    from types import SimpleNamespace
    from engines.eval.judgements import runs
    runs.KEEP = 20
    runs.time.strftime = lambda fmt, t=None: "20261206T194145Z" if fmt == "%Y%m%dT%H%M%SZ" else "2026-12-06T19:41:45Z"
    table = SimpleNamespace(engine="notes", metrics={"exact": {"ndcg@10": 0.5}}, requests=[])
    for n in range(12):
        runs.record(table, sys.argv[1], sys.argv[2])
''')


def test_two_processes_keeping_runs_in_the_same_second_keep_every_run_in_order(home, tmp_path):
    from engines.eval.judgements import runs

    started = [subprocess.Popen([sys.executable, "-c", RUNS, str(home), who], cwd=REPO, stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONPATH": str(REPO)}) for who in ("left", "right")]
    assert [p.wait(timeout=60) for p in started] == [0, 0], [p.stderr.read() for p in started]
    ids = [p.stem for p in runs.runs_of("notes", str(home))]
    # 24 runs in one second: none overwritten; the oldest 4 pruned to keep 20; -10 after -9
    assert ids == [f"20261206T194145Z-{n}" for n in range(5, 25)]
    assert runs.find("notes", str(home), "last")["id"] == "20261206T194145Z-24"


@pytest.fixture
def read_only(home, tmp_path):
    data = tmp_path / "data"
    done = subprocess.run(["mount", "--bind", str(data), str(data)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount here ({done.stderr.decode().strip() or 'not root'}): the read-only test "
                    "needs it (root ignores chmod)")
    try:
        assert subprocess.run(["mount", "-o", "remount,bind,ro", str(data)]).returncode == 0
        yield home
    finally:
        subprocess.run(["umount", "-l", str(data)], capture_output=True)


def test_a_read_only_data_folder_is_exported_and_scored(read_only, tmp_path, capsys):
    lock = Judgements("notes", read_only).path.with_suffix(".jsonl.lock")
    assert not os.access(lock.parent, os.W_OK) or pytest.fail("the data folder is writable")
    assert main(["judgements", "export", "notes", str(tmp_path / "out.csv"), "--corpus", str(read_only)]) == 0
    assert (tmp_path / "out.csv").read_text().count("\n") == 4
    assert main(["eval", "notes", "--judged", "--corpus", str(read_only), "--configs", "exact", "--json"]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["configs"]["exact"]["metrics"]["requests"] == 2
    assert "run not kept" in printed.err and "read-only file system" in printed.err
    assert "Traceback" not in printed.err


def test_two_evals_started_together_keep_two_runs(home):
    from engines.eval.judgements import runs

    started = [cli("eval", "notes", "--judged", "--corpus", str(home), "--configs", "exact") for _ in range(2)]
    said = [p.communicate(timeout=120)[1] for p in started]
    assert [p.returncode for p in started] == [0, 0], said
    kept = [line.split("run kept as ")[1].split()[0] for err in said for line in err.splitlines() if "run kept as" in line]
    assert len(set(kept)) == 2 and sorted(p.stem for p in runs.runs_of("notes", str(home))) == sorted(kept)
