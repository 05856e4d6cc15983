"""The code index kept between runs (engines/code/index_store.py): an open reads back what did not
change and parses the rest, and a cache file that cannot be used is named once, discarded and rebuilt.

Small trees under tmp_path, each engine with a cache folder of its own; real files, real parses.
Every fault is checked by what matters to the user: the answers are the files' as they are now.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engines.answer import collect
from engines.code.engine import LEXICAL, CodeEngine
from engines.code.index_store import FORMAT, KIND, cache_file
from engines.code.live import CodeWatcher
from engines.code.source import CodeSource
from engines.index_cache import read_arrays, write_arrays

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "code"


@pytest.fixture
def tree(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)
    return tree


def open_engine(tree: Path, cache: Path) -> CodeEngine:
    engine = CodeEngine(tree, cache_dir=str(cache))
    engine.wait_saved()
    return engine


def top_ids(engine: CodeEngine, query: str) -> list[str]:
    return [h.id for h in collect("code", query, engine.search(query, limit=5, tiers=(LEXICAL,))).hits]


def index_path(tree: Path, cache: Path) -> Path:
    return cache / "code-index" / cache_file([CodeSource(tree, tree, str(tree))]).name


def fresh_answers(tree: Path, tmp_path: Path, query: str) -> list[str]:
    """What a cold open of the tree as it is now answers (its own empty cache)."""
    engine = CodeEngine(tree, persist=False)
    try:
        return top_ids(engine, query)
    finally:
        engine.close()


def test_a_second_open_parses_nothing_and_answers_the_same(tree, tmp_path):
    cache = tmp_path / "cache"
    first = open_engine(tree, cache)
    assert first.parsed == first.files > 0 and index_path(tree, cache).is_file()
    answers = top_ids(first, "where do we throttle requests")
    first.close()
    again = open_engine(tree, cache)
    assert again.parsed == 0 and again.notices() == []
    assert top_ids(again, "where do we throttle requests") == answers
    assert [s.id for s in again.symbols] == [s.id for s in first.symbols]
    assert again.read(answers[0]).text == first.read(answers[0]).text
    again.close()


def test_files_edited_added_and_deleted_while_closed_are_the_only_ones_parsed(tree, tmp_path):
    cache = tmp_path / "cache"
    open_engine(tree, cache).close()
    (tree / "shopfront" / "cache.py").unlink()
    (tree / "shopfront" / "limits.py").write_text("class TokenBucketThrottle:\n    '''Throttle callers.'''\n")
    (tree / "shopfront" / "sprockets.py").write_text("def polish_sprocket(s):\n    return s\n")
    engine = open_engine(tree, cache)
    assert engine.parsed == 2 and engine.notices() == []
    names = {s.qualname for s in engine.symbols}
    assert "TokenBucketThrottle" in names and "polish_sprocket" in names
    assert "RateLimiter" not in names and "ExpiringCache" not in names
    assert top_ids(engine, "throttle") == fresh_answers(tree, tmp_path, "throttle")
    engine.close()


def test_an_edit_that_keeps_size_and_mtime_is_found_by_its_content_hash(tree, tmp_path):
    cache = tmp_path / "cache"
    open_engine(tree, cache).close()
    path = tree / "shopfront" / "retry.py"
    before = path.stat()
    text = path.read_text()
    path.write_text(text.replace("backoff_delays", "backoff_pauses"))  # the same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the mtime put back; the ctime moves
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    engine = open_engine(tree, cache)
    names = {s.qualname for s in engine.symbols}
    assert "backoff_pauses" in names and "backoff_delays" not in names
    engine.close()


def test_a_truncated_cache_is_named_once_discarded_and_rebuilt(tree, tmp_path):
    cache = tmp_path / "cache"
    answers = top_ids(open_engine(tree, cache), "expiring cache")
    path = index_path(tree, cache)
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    engine = open_engine(tree, cache)
    said = [n for n in engine.notices() if str(path) in n]
    assert len(said) == 1 and "truncated" in said[0] and "rebuilt" in said[0]
    assert top_ids(engine, "expiring cache") == answers and engine.parsed == engine.files
    engine.reload()
    assert len([n for n in engine.notices() if str(path) in n]) == 1  # said once, not again
    engine.close()
    again = open_engine(tree, cache)  # the rebuilt cache serves the next open
    assert again.notices() == [] and again.parsed == 0
    again.close()


def test_a_cache_of_another_format_version_is_named_and_rebuilt(tree, tmp_path):
    cache = tmp_path / "cache"
    open_engine(tree, cache).close()
    path = index_path(tree, cache)
    meta, arrays = read_arrays(path, KIND, FORMAT)
    write_arrays(path, KIND, FORMAT + 1, meta, {k: v.copy() for k, v in arrays.items()})
    engine = open_engine(tree, cache)
    said = [n for n in engine.notices() if str(path) in n]
    assert len(said) == 1 and f"another format version ({FORMAT + 1}" in said[0]
    assert engine.parsed == engine.files and top_ids(engine, "retry") == fresh_answers(tree, tmp_path, "retry")
    engine.close()


def test_a_cache_made_for_another_machines_paths_is_named_and_rebuilt(tree, tmp_path):
    cache = tmp_path / "cache"
    elsewhere = tmp_path / "home" / "someone" / "shop"
    shutil.copytree(DEMO, elsewhere)
    (elsewhere / "shopfront" / "limits.py").write_text("def foreign_only():\n    pass\n")
    open_engine(elsewhere, cache).close()
    index_path(tree, cache).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(index_path(elsewhere, cache), index_path(tree, cache))  # as if copied across machines
    engine = open_engine(tree, cache)
    said = [n for n in engine.notices() if "another tree" in n]
    assert len(said) == 1 and str(elsewhere) in said[0]
    names = {s.qualname for s in engine.symbols}
    assert "foreign_only" not in names and "RateLimiter" in names
    assert all(s.path.startswith(str(tree)) for s in engine.symbols)
    engine.close()


def test_a_file_deleted_while_open_leaves_the_answers_and_the_cache(tree, tmp_path):
    cache = tmp_path / "cache"
    engine = open_engine(tree, cache)
    assert any(i.startswith("shopfront/cache.py::") for i in top_ids(engine, "expiring cache"))
    (tree / "shopfront" / "cache.py").unlink()
    CodeWatcher(engine).apply({str(tree / "shopfront" / "cache.py")})
    assert not any(i.startswith("shopfront/cache.py::") for i in top_ids(engine, "expiring cache"))
    assert engine.problems == [] and engine.notices() == []
    engine.close()  # waits for the cache to be written
    again = open_engine(tree, cache)
    assert again.parsed == 0 and again.notices() == []
    assert "ExpiringCache" not in {s.qualname for s in again.symbols}
    again.close()


def test_a_file_edited_while_open_is_parsed_again_on_the_next_open(tree, tmp_path):
    """The watcher's records carry no content hash (the file may change again after its parse), so
    the next open reads that file once more rather than trusting what the watcher saw."""
    cache = tmp_path / "cache"
    engine = open_engine(tree, cache)
    path = tree / "shopfront" / "retry.py"
    path.write_text("def jittered_wait():\n    pass\n")
    CodeWatcher(engine).apply({str(path)})
    assert "jittered_wait" in {s.qualname for s in engine.symbols}
    engine.close()
    path.write_text("def jittered_sleep():\n    pass\n")
    again = open_engine(tree, cache)
    names = {s.qualname for s in again.symbols}
    assert "jittered_sleep" in names and "jittered_wait" not in names and again.parsed == 1
    again.close()


def test_nothing_is_written_into_the_tree_and_no_temporary_file_is_left(tree, tmp_path):
    cache = tmp_path / "cache"
    before = sorted(p.name for p in tree.rglob("*"))
    open_engine(tree, cache).close()
    assert sorted(p.name for p in tree.rglob("*")) == before
    assert [p.name for p in (cache / "code-index").iterdir()] == [index_path(tree, cache).name]


def test_the_ranking_reads_the_same_of_the_columns_as_of_the_symbols(tmp_path):
    """CodeShape.of_files (per file, from the index's columns) against CodeShape(symbols) (per symbol),
    on a tree with a C header whose source file is there (it sinks) and one whose is not."""
    from engines.code.ranking import CodeShape

    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)
    (tree / "native").mkdir()
    (tree / "native" / "ring_buffer.h").write_text("int ring_push(int x);\nstruct ring { int size; };\n")
    (tree / "native" / "ring_buffer.c").write_text("int ring_push(int x) { return x; }\n")
    (tree / "native" / "lone.h").write_text("int lone_value(void);\n")
    engine = CodeEngine(tree, persist=False)
    symbols = list(engine.symbols)
    columns, plain = engine.lexical_tier.shape, CodeShape(symbols)
    n = len(symbols)
    assert columns.file == plain.file and columns.stem == plain.stem
    assert [columns.penalty[i] for i in range(n)] == plain.penalty and list(columns.length) == plain.length
    assert set(columns.path_parts.keys()) == set(plain.path_parts)
    for key in plain.path_parts:
        assert columns.path_parts[key] == plain.path_parts[key] and columns.flat_stem.get(key) == plain.flat_stem[key]
        assert columns.stem_parts.get(key, ()) == plain.stem_parts[key]
    assert [columns.qualnames[i] for i in range(len(symbols))] == plain.qualnames
    assert list(columns.names) == plain.names and "" in plain.names  # own names, "" for each module
    for name in set(plain.by_name) | {"ring_push", "nothing_named_so", ""}:
        assert list(columns.by_name.get(name, ())) == plain.by_name.get(name, [])
        assert list(columns.by_lower.get(name.lower(), ())) == plain.by_lower.get(name.lower(), [])
    sank = [plain.penalty[i] for i, s in enumerate(symbols) if s.path.endswith("ring_buffer.h")]
    alone = [plain.penalty[i] for i, s in enumerate(symbols) if s.path.endswith("lone.h")]
    assert sank and alone and max(sank) < min(alone)  # the header with its source sank: the case is exercised
    engine.close()


def test_a_watchers_edit_patches_bm25_to_the_scores_a_fresh_build_gives(tree, tmp_path, monkeypatch):
    """The edit path (BM25Index.patched: entries renumbered and inserted, no sort) against a cold open
    of the tree as it ends up: the same symbols in the same order, scores equal to the last bit."""
    from engines.lexical import BM25Index

    patched = []
    original = BM25Index.patched

    def spy(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        patched.append(result is not None)
        return result

    monkeypatch.setattr(BM25Index, "patched", spy)
    cache = tmp_path / "cache"
    open_engine(tree, cache).close()
    engine = open_engine(tree, cache)  # the BM25 matrix and its counts read back from the cache
    (tree / "shopfront" / "cache.py").unlink()
    (tree / "shopfront" / "retry.py").write_text("def retry_with_jitter(limit):\n    '''Retry, waiting.'''\n")
    (tree / "shopfront" / "aaa_first.py").write_text("def throttle_first_requests():\n    pass\n")
    CodeWatcher(engine).apply({str(tree / "shopfront" / p) for p in ("cache.py", "retry.py", "aaa_first.py")})
    (tree / "zzz_last.py").write_text("class RequestThrottle:\n    def allow(self):\n        return True\n")
    CodeWatcher(engine).apply({str(tree / "zzz_last.py")})
    assert patched == [True, True]
    fresh = CodeEngine(tree, persist=False)
    assert [s.id for s in engine.symbols] == [s.id for s in fresh.symbols]
    for query in ("throttle requests", "retry jitter", "expiring cache", "allow", "order total tax"):
        words = fresh.lexical_tier.query_words(query)
        assert engine.lexical_tier.index.scores(words).tolist() == fresh.lexical_tier.index.scores(words).tolist()
        assert top_ids(engine, query) == top_ids(fresh, query)
    fresh.close()
    engine.close()
