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
    from engines.eval.cosqa.load import function_symbol

    codes = ["def add(a, b):\n    return a + b", "def sort_list(xs):\n    '''sort a list'''\n    return sorted(xs)",
             "def sort_dict(d):\n    '''sort a dict by value'''\n    return sorted(d.items(), key=lambda kv: kv[1])"]
    engine = CodeEngine(symbols=[function_symbol(c, i) for i, c in enumerate(codes)])
    lexical = engine.lexical_tier
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


def test_a_c_header_gives_way_to_the_source_file_that_implements_it(tmp_path):
    root = write(tmp_path, {
        "lib/connect.h": "/* How to connect to a remote host: the host name, the port, the retries. */\n"
                         "struct connect_remote_host { const char *host; int port; int retries; };\n",
        "lib/connect.c": "/* Open a socket. */\nint open_remote(const char *host, int port) {\n"
                         "    return open_socket(resolve(host), port);\n}\n",
    })
    assert ids(CodeEngine(root=root), "connect to a remote host")[0].startswith("lib/connect.c")


def test_a_cpp_header_keeps_its_place_beside_its_source(tmp_path):
    # C++ headers hold classes and templates: often the answer, so they do not sink
    root = write(tmp_path, {
        "lib/connect.hpp": "/* Connect to a remote host: resolve the host name, then connect a socket to the\n"
                           " * remote host. Connect to the host, connect again on failure. */\n"
                           "class Connector { public: int connect_host(const char *host, int port); };\n",
        "lib/connect.cpp": "/* Connect to a remote host. */\nint Connector::connect_host(const char *host, int port) {\n"
                           "    return 0;\n}\n",
    })
    assert ids(CodeEngine(root=root), "connect to a remote host")[0].startswith("lib/connect.hpp")


def test_a_file_whose_every_name_word_the_question_holds_comes_first(tmp_path):
    mentions = "\n".join(f"    /** Null-safe string operations. */\n"
                         f"    public String op{i}(String text) {{ return text; }}" for i in range(4))
    root = write(tmp_path, {
        "src/lang/text/StrTokenizer.java": "public class StrTokenizer {\n" + mentions + "\n}\n",
        "src/lang/StringUtils.java": "public class StringUtils {\n    /** Checks if a string is empty: a null-safe string operation. */\n"
                                     "    public static boolean isEmpty(CharSequence cs) { return cs == null; }\n}\n",
    })
    assert ids(CodeEngine(root=root), "null-safe string operations and helpers")[0].startswith("src/lang/StringUtils.java")


def test_a_python_private_module_gives_way_to_the_public_one(tmp_path):
    private = 'def check(function, args):\n    """Validate the arguments of a call to a function."""\n    return args\n'
    root = write(tmp_path, {
        "pkg/_internal/_checks.py": private,
        "pkg/decorators.py": 'def validate_arguments(function):\n    """Validate the arguments of each call."""\n'
                             '    return function\n',
    })
    assert ids(CodeEngine(root=root), "validate the arguments of a function call")[0].startswith("pkg/decorators.py")


def test_a_name_nothing_defines_is_read_as_words_and_finds_the_file_named_for_it(tmp_path):
    # No class Tokenizer here (it comes from a library): the person means the tokenizer module, not
    # the method whose name and words Snowball reads as the same "token".
    root = write(tmp_path, {
        "lib/model.py": '''class StaticModel:
    def tokenize(self, sentences):
        """Tokenize the sentences into token ids: tokens, tokens, tokens."""
        return [self.tokens(s) for s in sentences]


def encode(self, texts):
    """Encode the texts with the tokenizer: tokenizer, tokenizer."""
    return self.tokenizer.encode(texts, tokenizer=self.tokenizer)
''',
        "lib/tokenizer/tokenizer.py": '"""Reading a vocabulary."""\n\nimport os\n\n\ndef load_vocabulary(path):\n'
                                      '    """Read the vocabulary, one piece a line."""\n    return open(path).read().split()\n',
    })
    assert ids(CodeEngine(root=root), "Tokenizer")[0] == "lib/tokenizer/tokenizer.py::lib.tokenizer.tokenizer"


def test_the_code_engines_words_are_snowball_stems_so_confirmation_meets_confirm(tmp_path):
    root = write(tmp_path, {
        "cli/ask.py": 'def confirm(text, default=False):\n    """Ask a yes or no question and return the answer."""\n'
                      '    return input(text).lower().startswith("y")\n',
        "cli/show.py": 'def echo(message):\n    """Print a message and a newline."""\n    print(message)\n',
    })
    engine = CodeEngine(root=root)
    assert ids(engine, "ask for confirmation")[0] == "cli/ask.py::confirm"
    assert ids(engine, "confirmation") == ["cli/ask.py::confirm"]
