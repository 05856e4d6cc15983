"""The symbol corpus: what ast reads from a file, and how a tree with bad files still loads.

Bad input is each skipped with one line naming it and why, and everything else is indexed; nothing
is written into the tree; installed modules are located and parsed, never imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.code.corpus import CorpusError, load_sources, module_sources, tree_source
from engines.code.symbols import parse_symbols

REPO = Path(__file__).resolve().parents[2]

SOURCE = '''"""Limits."""
import time

class RateLimiter(Base, metaclass=Meta):
    """Caps requests per client."""
    rate = 3

    @property
    def allow(self, key: str, cost: int = 1) -> bool:
        """Spend tokens."""
        return True

    if DEBUG:
        def dump(self): ...

async def fetch(url, *args, timeout=None, **kwargs) -> bytes:
    def inner(): pass
    return b""
'''


def by_qualname(symbols):
    return {s.qualname: s for s in symbols}


def test_every_module_class_function_and_method_with_signature_docstring_and_line():
    symbols = by_qualname(parse_symbols(SOURCE, "svc/limits.py", "/x/svc/limits.py", "svc.limits"))
    assert set(symbols) == {"svc.limits", "RateLimiter", "RateLimiter.allow", "RateLimiter.dump", "fetch",
                            "fetch.<locals>.inner"}
    limiter, allow, fetch = symbols["RateLimiter"], symbols["RateLimiter.allow"], symbols["fetch"]
    assert (limiter.kind, limiter.bases, limiter.summary, limiter.where) == (
        "class", ("Base", "metaclass=Meta"), "Caps requests per client.", "svc/limits.py:4")
    assert (allow.kind, allow.signature, allow.decorators, allow.line) == (
        "method", "(self, key: str, cost: int=1) -> bool", ("property",), 8)
    assert allow.title == "RateLimiter.allow(self, key: str, cost: int=1) -> bool"
    assert fetch.kind == "function" and fetch.signature == "(url, *args, timeout=None, **kwargs) -> bytes"
    assert symbols["RateLimiter.dump"].kind == "method"  # a def under `if` in a class body is a method
    assert symbols["svc.limits"].kind == "module" and symbols["svc.limits"].summary == "Limits."


def test_a_symbols_own_source_leaves_out_the_symbols_nested_in_it():
    symbols = by_qualname(parse_symbols(SOURCE, "svc/limits.py", "/x/svc/limits.py", "svc.limits"))
    assert "def allow" not in symbols["RateLimiter"].source and "rate = 3" in symbols["RateLimiter"].source
    assert symbols["RateLimiter.allow"].source.startswith("@property\ndef allow(")  # dedented, decorators kept
    assert "class RateLimiter" not in symbols["svc.limits"].source and "import time" in symbols["svc.limits"].source
    assert len({s.content_hash for s in symbols.values()}) == len(symbols)


def test_the_demo_tree_loads_whole_with_no_problems():
    load = load_sources([tree_source(REPO / "fixtures" / "code")])
    assert load.problems == [] and load.files >= 8
    names = {s.qualname for s in load.symbols}
    assert {"RateLimiter", "RateLimiter.allow", "retry", "backoff_delays", "ExpiringCache", "load_settings"} <= names
    limiter = next(s for s in load.symbols if s.qualname == "RateLimiter")
    assert limiter.where == "shopfront/limits.py:17" and "throttle" not in limiter.docstring.lower()


def test_bad_files_are_each_named_once_and_everything_else_is_indexed(tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "good.py").write_text('def fine():\n    """Works."""\n')
    (tree / "py2.py").write_text('print "hello"\n')
    (tree / "half.py").write_text("def half_written(:\n")
    (tree / "latin.py").write_bytes(b"NAME = '\xe9t\xe9'\n")  # latin-1 without a coding cookie
    (tree / "cookie.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    pass\n")
    with open(tree / "generated.py", "wb") as fh:
        fh.truncate(20 * 1024 * 1024)  # 20 MB (sparse)
    (tree / "binary.py").write_bytes(b"\x7fELF\x00\x01binary")
    (tree / "deep.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    (tree / "secret.py").write_text("def hidden(): pass\n")
    (tree / "pkg" / "__init__.py").write_text("")
    os.symlink(tree, tree / "pkg" / "loop")  # a symlink loop back to the top
    os.symlink(tree / "gone.py", tree / "dangling.py")
    real_open = os.open

    def unreadable(path, flags, *args, **kwargs):  # root reads anything: make one file refuse
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", unreadable)
    load = load_sources([tree_source(tree)])
    problems = {p.path: p.cause for p in load.problems}
    assert set(problems) >= {"py2.py", "half.py", "latin.py", "generated.py", "binary.py", "deep.py", "secret.py",
                             "dangling.py"}, problems
    assert "not Python 3 syntax" in problems["py2.py"] and "not Python 3 syntax" in problems["half.py"]
    assert "not UTF-8 (invalid byte 0xe9 at offset 8)" in problems["latin.py"] and "too large" in problems["generated.py"]
    assert "binary" in problems["binary.py"] and "permission denied" in problems["secret.py"]
    assert "nested" in problems["deep.py"] or "syntax" in problems["deep.py"]
    assert all("\n" not in str(p) for p in load.problems)
    assert len(load.problems) == len({p.path for p in load.problems})  # each named once
    names = {s.qualname for s in load.symbols}
    assert {"fine", "café", "pkg"} <= names  # the good files, the declared encoding, the package
    assert not any(s.path.startswith(str(tree / "pkg" / "loop")) for s in load.symbols)


def test_gitignore_virtualenvs_hidden_and_cache_folders_are_not_walked(tmp_path):
    (tmp_path / ".gitignore").write_text("build/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\n")
    for rel in ("app.py", "build/gen.py", "msg_pb2.py", "keep_pb2.py", "top_only.py", "sub/top_only.py",
                ".git/hooks/x.py", "venv/lib/site.py", "__pycache__/c.py", "node_modules/n.py", ".tox/t.py"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("X = 1\n")
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr\n")
    load = load_sources([tree_source(tmp_path)])
    files = sorted({s.where.split(":")[0] for s in load.symbols})
    assert files == ["app.py", "keep_pb2.py", "sub/top_only.py"]


def test_installed_modules_are_found_and_parsed_without_being_imported():
    script = ("import sys\nfrom engines.code.corpus import load_sources, module_sources\n"
              "load = load_sources(module_sources(['json', 'email.mime']))\n"
              "print(len(load.symbols), 'json.decoder' in sys.modules, 'email.mime' in sys.modules)\n"
              "modules = {s.module for s in load.symbols}\n"
              "print('json.decoder' in modules, 'email.mime.text' in modules)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    count, json_imported, mime_imported = out.stdout.split("\n")[0].split()
    assert int(count) > 50 and json_imported == "False" and mime_imported == "False"
    assert out.stdout.split("\n")[1] == "True True"


@pytest.mark.parametrize("names, message", [
    (["no_such_module_here"], "no installed module named 'no_such_module_here'"),
    (["math"], "has no Python source"),
    (["json.nothing"], "no module 'json.nothing'"),
    (["1bad"], "is not a module name"),
])
def test_a_bad_module_name_is_one_line_naming_it(names, message):
    with pytest.raises(CorpusError, match=message):
        module_sources(names)


def test_a_missing_or_wrong_corpus_is_one_line(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        tree_source(tmp_path / "nope")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(CorpusError, match="not a folder or a code file"):
        tree_source(tmp_path / "notes.txt")


def _collections_during(fn, while_paused: bool = False):
    """fn's result and the generations the collector swept while it ran (only inside a pause: while_paused)."""
    import gc

    from engines import gcpause

    seen = []

    def note(phase, info):
        if phase == "start" and (gcpause._depth > 0 or not while_paused):
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        result = fn()
    finally:
        gc.callbacks.remove(note)
    return result, seen


def test_the_garbage_collector_rests_while_a_tree_is_parsed_and_indexed_and_runs_again_after(tmp_path):
    import gc

    from engines.code.corpus import _load_sources
    from engines.code.lexical_tier import LexicalIndex

    for i in range(40):
        (tmp_path / f"m{i}.py").write_text(SOURCE * 20, encoding="utf-8")
    source = tree_source(tmp_path)
    assert gc.isenabled()
    unpaused, collected = _collections_during(lambda: _load_sources([source]))
    assert collected  # the same load, unpaused, sets the collector off: the pause has work to save
    loaded, collected = _collections_during(lambda: load_sources([source]), while_paused=True)
    assert collected == [] and len(loaded.symbols) == len(unpaused.symbols) == 40 * (20 * 5 + 1)
    assert [s.id for s in loaded.symbols] == [s.id for s in unpaused.symbols]
    _, collected = _collections_during(lambda: LexicalIndex.build(loaded.symbols), while_paused=True)
    assert collected == []
    assert gc.isenabled()


def test_a_paused_collector_resumes_only_when_the_last_section_ends_and_never_if_it_was_off():
    import gc

    from engines.gcpause import paused_gc

    with paused_gc():
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer section still parses
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # whoever switched it off decides
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with paused_gc():
            raise RuntimeError("a parse that fails")
    assert gc.isenabled()


BLOCKS = '''
for item in items:
    def in_for(): ...
else:
    def in_for_else(): ...
while waiting:
    def in_while(): ...
with opened() as fh:
    async def in_with(): ...
try:
    def in_try(): ...
except ValueError:
    def in_except(): ...
else:
    def in_try_else(): ...
finally:
    def in_finally(): ...
try:
    pass
except* OSError:
    def in_except_star(): ...
match command:
    case "go":
        class InCase:
            def method(self): ...
handler = lambda: None
result = [x for x in range(3)]
'''


def test_defs_under_every_kind_of_block_are_symbols_and_nothing_else_is():
    symbols = by_qualname(parse_symbols(BLOCKS, "blocks.py", "/x/blocks.py", "blocks"))
    assert set(symbols) == {"blocks", "in_for", "in_for_else", "in_while", "in_with", "in_try", "in_except",
                            "in_try_else", "in_finally", "in_except_star", "InCase", "InCase.method"}
    assert symbols["InCase.method"].kind == "method" and symbols["in_with"].signature == "()"
    assert "def in_for" not in symbols["blocks"].source and "handler = lambda" in symbols["blocks"].source
