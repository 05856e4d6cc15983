"""A large tree read on every core (engines/code/parallel.py): the same symbols, problems, files and
BM25 documents, in the same order, as reading it in this process; a pool that cannot start is
no failure; and nothing a worker writes reaches the caller's stdout."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engines.code import parallel
from engines.code.corpus import load_sources, tree_source
from engines.code.lexical_tier import symbol_counts

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_workers_kept():
    """Each test starts without the workers a load keeps for a while (parallel.IDLE_S)."""
    parallel._pool.close()
    yield
    parallel._pool.close()


def _tree(root: Path) -> Path:
    for i in range(30):
        (root / f"py{i:02d}.py").write_text(f'def rate_{i}(x):\n    """Rate {i}."""\n    return x * {i}\n' * (i + 1))
        (root / f"go{i:02d}.go").write_text(f"package m\n\n// Limit{i} limits.\nfunc Limit{i}(n int) int {{\n\treturn n\n}}\n")
        (root / f"js{i:02d}.js").write_text(f"/** Fetch {i}. */\nexport function fetch{i}(url) {{ return url; }}\n")
    (root / "bad.py").write_text("def half(:\n")  # a problem, named once either way
    (root / "latin.go").write_bytes(b"package m\n// caf\xe9\nfunc Cafe() {}\n")
    return root


def test_a_tree_read_by_workers_is_the_tree_read_here(tmp_path, monkeypatch):
    source = tree_source(_tree(tmp_path))
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 10**12)
    here = load_sources([source], document=symbol_counts)
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(parallel, "PARALLEL_BYTES_WARM", 0)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    calls = []
    real = parallel._batches
    monkeypatch.setattr(parallel, "_batches", lambda *a: calls.append(a) or real(*a))
    there = load_sources([source], document=symbol_counts)
    assert calls, "the workers were not used"
    assert len(here.symbols) > 90 and here.problems
    assert (there.symbols, there.problems, there.files) == (here.symbols, here.problems, here.files)
    assert there.documents == here.documents == [symbol_counts(s) for s in here.symbols]
    assert parallel._pool.warm()  # kept for the next load
    again = load_sources([source], document=symbol_counts)
    assert len(calls) == 2 and again.symbols == here.symbols


@pytest.mark.parametrize("where", ["here", "workers"])
def test_a_load_says_how_many_files_it_has_read_as_it_goes(tmp_path, monkeypatch, where):
    sources = []
    for name in ("a", "b"):  # two sources, one count: the second's files follow the first's
        (tmp_path / name).mkdir()
        sources.append(tree_source(_tree(tmp_path / name)))
    if where == "workers":
        monkeypatch.setattr(parallel, "PARALLEL_BYTES", 0)
        monkeypatch.setattr(parallel, "PARALLEL_BYTES_WARM", 0)
        monkeypatch.setattr(parallel, "workers", lambda: 2)
    else:
        monkeypatch.setattr(parallel, "PARALLEL_BYTES", 10**12)
        monkeypatch.setattr(parallel, "PROGRESS_EVERY", 16)
    seen = []
    loaded = load_sources(sources, document=symbol_counts, progress=lambda done, of: seen.append((done, of)))
    assert loaded.files == 2 * 92  # each tree: 90 files that parse, bad.py and latin.go
    assert len(seen) >= 4, seen  # more than one call per source
    assert {of for _, of in seen} == {loaded.files}
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == loaded.files and done[0] < loaded.files // 2


def test_a_pool_that_cannot_start_leaves_the_load_to_this_process(tmp_path, monkeypatch):
    source = tree_source(_tree(tmp_path))
    expected = load_sources([source])

    def refuse(*args, **kwargs):
        raise OSError(38, "Function not implemented")  # no semaphores, as in some sandboxes

    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", refuse)
    assert load_sources([source]).symbols == expected.symbols


def test_nothing_a_worker_prints_reaches_the_callers_stdout(tmp_path):
    (tmp_path / "noisy.py").write_text(textwrap.dedent("""
        import os

        def read(path, base):
            print("printed by a worker")
            os.write(1, b"written to fd 1 by a worker\\n")
            return path
    """))
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import sys
        from engines.code import parallel
        import noisy

        if __name__ == "__main__":
            parallel.PARALLEL_BYTES = 0
            parallel.workers = lambda: 2
            out = parallel.read_all([f"f{i}" for i in range(8)], ".", noisy.read, [1] * 8)
            sys.stderr.write(f"read {len(out)} in order: {out == [f'f{i}' for i in range(8)]}\\n")
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": f"{REPO}:{tmp_path}", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "read 8 in order: True" in done.stderr and "printed by a worker" in done.stderr
    assert done.stdout == ""
