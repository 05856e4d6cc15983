"""The lexical tier ranks code as a code reader means a query (engines/code/ranking.py).

Real engines over small trees written here: a symbol-shaped query puts the chunk that defines it
first, even where its uses outnumber it; a question puts the file named for it first; ten rows show
more than one file; code without paths (CoSQA's functions) keeps BM25's order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.answer import collect
from engines.code.engine import CodeEngine
from engines.code.ranking import embedded_symbols, query_keywords, symbol_query


def ids(engine: CodeEngine, query: str, limit: int = 10) -> list[str]:
    return [h.id for h in collect("code", query, engine.search(query, limit=limit)).hits]


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


USES = "\n\n".join(f'''def use_{i}(request):
    """Throttle with a RateLimiter before answering."""
    limiter = RateLimiter(RateLimiter.DEFAULT)
    return limiter.allow(request) and RateLimiter.report(limiter)
''' for i in range(6))


def test_a_symbol_query_puts_the_defining_chunk_first(tmp_path):
    root = write(tmp_path, {
        "shop/limits.py": 'class RateLimiter:\n    """Token bucket."""\n\n    DEFAULT = 10\n',
        "shop/views.py": USES,
        "shop/admin.py": USES.replace("use_", "admin_"),
    })
    engine = CodeEngine(root=root)
    first = collect("code", "RateLimiter", engine.search("RateLimiter")).hits[0]
    assert first.id == "shop/limits.py::RateLimiter" and first.tier == "lexical"
    assert first.extras["language"] == "python"
    # qualified forms name the same definition
    assert ids(engine, "limits.RateLimiter")[0] == "shop/limits.py::RateLimiter"


def test_the_definer_in_a_file_named_after_the_symbol_beats_another_definer(tmp_path):
    root = write(tmp_path, {
        "pkg/old.py": 'class Session:\n    """An old Session kept for old callers: Session(), Session.open()."""\n',
        "pkg/session.py": 'class Session:\n    """A session, with its cookie jar and its adapters kept between requests."""\n',
    })
    assert ids(CodeEngine(root=root), "Session")[0] == "pkg/session.py::Session"


def test_a_question_puts_the_file_named_for_it_first(tmp_path):
    mentions = "\n\n".join(f'''def step_{i}(state):
    """Part of request handling: the session cookie is read and the session management hook runs."""
    return state
''' for i in range(4))
    root = write(tmp_path, {
        "web/handlers.py": mentions,
        "web/sessions.py": 'def load(store, key):\n    """Look a session up by its key."""\n    return store.get(key)\n',
    })
    assert ids(CodeEngine(root=root), "session management")[0].startswith("web/sessions.py::")


def test_ten_rows_show_more_than_the_one_file_that_matches_most(tmp_path):
    many = "\n\n".join(f'def cache_{i}(key):\n    """Cache lookup {i}."""\n    return cache_get(key)\n'
                       for i in range(12))
    root = write(tmp_path, {"a/big.py": many, "a/other.py": 'def cache_get(key):\n    """The cache."""\n'})
    files = {i.split("::")[0] for i in ids(CodeEngine(root=root), "cache lookup")[:3]}
    assert files == {"a/big.py", "a/other.py"}


def test_code_without_paths_keeps_bm25s_order():
    from engines.eval.cosqa import function_symbol

    codes = ["def add(a, b):\n    return a + b", "def sort_list(xs):\n    '''sort a list'''\n    return sorted(xs)",
             "def sort_dict(d):\n    '''sort a dict by value'''\n    return sorted(d.items(), key=lambda kv: kv[1])"]
    engine = CodeEngine(symbols=[function_symbol(c, i) for i, c in enumerate(codes)])
    lexical = engine._lexical
    assert [p for p, _ in lexical.search("sort dict by value", 3)] == [p for p, _ in lexical.plain("sort dict by value", 3)]


@pytest.mark.parametrize("query, last", [("RateLimiter", "RateLimiter"), ("field_validator", "field_validator"),
                                         ("Sinatra::Base", "Base"), ("app.route", "route"), ("_private", "_private"),
                                         ("URL", "URL"), ("Foo\\Bar", "Bar")])
def test_symbol_shaped_queries(query, last):
    asked = symbol_query(query)
    assert asked is not None and asked.last == last


@pytest.mark.parametrize("query", ["session", "how are routes registered", "rate limiting", ""])
def test_words_are_not_symbols(query):
    assert symbol_query(query) is None


def test_a_question_keeps_its_content_words_and_its_embedded_identifiers():
    assert query_keywords("how does the DependencyInjector work") == ["dependency", "injector", "work"]
    assert embedded_symbols("how beforeAll hooks and safe_parse run") == ["beforeAll", "safe_parse"]
