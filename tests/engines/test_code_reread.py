"""MiniLM re-reads the first rows of a question asked in words (engines/code/reread.py, issue 60): the fusion
on rows made here, then the engine over a small tree written here with the installed model (a handful of
short gists: about a second)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest

from engines.answer import collect
from engines.code.engine import CodeEngine
from engines.code.merge import EMBEDDING, LEXICAL, Merged
from engines.code.knobs import KNOBS
from engines.code.reread import ROWS, Reread, gist_text, reread, reweigh
from engines.knobs import trying


def _row(p: int, fused: float | None) -> Merged:
    return Merged(p, LEXICAL, 1.0, {LEXICAL: p + 1}, {LEXICAL: 1.0}, fused)


def test_meaning_adds_its_scaled_cosine_to_each_rows_fused_score():
    merged = [_row(0, 0.9), _row(1, 0.8), _row(2, 0.5), _row(3, 0.4)]
    # scaled over the three read: 0, 1, 0.5 -> 0.9, 1.8, 1.0; the fourth row was not read and keeps its place
    out = reweigh(merged, [0.1, 0.5, 0.3], weight=1.0)
    assert [m.position for m in out] == [1, 2, 0, 3]
    assert [m.fused for m in out[:3]] == [1.8, 1.0, 0.9] and out[3] is merged[3]
    assert [m.position for m in reweigh(merged, [0.1, 0.5, 0.3], weight=0.05)] == [0, 1, 2, 3]  # a small weight
    assert reweigh(merged, [0.2, 0.2, 0.2]) == merged  # cosines alike: the table's order


def test_a_resemblance_row_or_one_not_read_keeps_its_place():
    guess = Merged(9, EMBEDDING, 0.7, {EMBEDDING: 1}, {EMBEDDING: 0.7})
    merged = [_row(0, 0.9), _row(1, 0.8), guess, _row(3, 0.7)]
    out = reweigh(merged, [0.0, np.nan, 0.9, 1.0])
    assert out[2] is guess and out[1].position == 1  # moved past by nothing, and not moved
    assert [m.position for m in out] == [3, 1, 9, 0]  # rows 0 and 3 changed places around them
    assert reweigh(merged[:1], [0.5]) == merged[:1]


def test_the_gist_is_the_path_the_names_words_the_signature_and_the_doc_or_first_lines():
    symbol = SimpleNamespace(rel="src/http/auth.py", qualname="BasicAuth.add_header", signature="(self, request)",
                             docstring="Add the user name and password to a request.", source="def add_header(...):")
    assert gist_text(symbol) == "src/http/auth.py\nbasic auth add header (self, request)\nAdd the user name and password to a request."
    bare = SimpleNamespace(rel="a.go", qualname="serve", signature="()", docstring="", source="\n".join(f"l{i}" for i in range(9)))
    assert gist_text(bare).endswith("\nl0\nl1\nl2\nl3\nl4\nl5")  # no doc: its first six lines
    long = SimpleNamespace(**{**vars(symbol), "docstring": "word " * 500})
    assert len(gist_text(long)) == 600


TREE = {
    "net/auth.py": '''
def add_credentials(request, user, password):
    """Put a user name and password on a request before it is sent."""
    request.headers["Authorization"] = encode(user, password)


def encode(user, password):
    """Base64 of user:password for the request header."""
    return (user + ":" + password).encode("base64")
''',
    "net/retry.py": '''
def send_with_retries(request, attempts=3):
    """Send a request again when the server did not answer."""
    for _ in range(attempts):
        if request.send():
            return True
    return False
''',
    "net/cookies.py": '''
def cookies_of(request):
    """The cookies a request carries, by name."""
    return dict(request.cookies)
''',
}
QUESTION = "how is a user name and password added to a request"


class Counting:
    """The installed model, counting the texts it embeds as documents."""

    def __init__(self) -> None:
        from engines.embed.choose import embedder_for

        self.model, self.documents = embedder_for("code"), 0

    def info(self):
        return self.model.info()

    def embed(self, texts, kind):
        if kind == "document":
            self.documents += len(texts)
        return self.model.embed(texts, kind)


@pytest.fixture(scope="module")
def model():
    counting = Counting()
    try:
        counting.info()
    except Exception as exc:  # noqa: BLE001 - no model installed: said, not failed
        pytest.skip(f"the installed model cannot run: {exc}")
    return counting


def _tree(tmp_path):
    for rel, text in TREE.items():
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / rel).write_text(text, encoding="utf-8")
    return tmp_path / "tree"


def _ask(engine, query):
    answer = collect("code", query, engine.search(query, 10))
    return [h.id for h in answer.hits], next(t for t in answer.tiers if t.name == EMBEDDING)


def test_a_question_in_words_is_re_read_once_and_its_vectors_kept_for_the_next_open(tmp_path, model):
    root, cache = _tree(tmp_path), str(tmp_path / "cache")
    engine = CodeEngine(root, embedder=model, contextual=False, wait_for_index=True, cache_dir=cache)
    try:
        model.documents = 0
        ids, report = _ask(engine, QUESTION)
        evidence = sum(1 for h in collect("code", QUESTION, engine.search(QUESTION, 10, tiers="lexical")).hits)
        named, named_report = _ask(engine, "add_credentials")  # a name asked for: not re-read
    finally:
        engine.close()
    read = min(evidence, ROWS)
    assert report.reason == f"meaning re-read the first {read} rows contextually (MiniLM)" and read >= 2
    assert model.documents == read and ids[0] == "net/auth.py::add_credentials"
    assert named_report.reason is None and named[0] == "net/auth.py::add_credentials"
    assert list((tmp_path / "cache").glob("*.vec"))  # kept where the engine keeps its cache, nowhere in the tree
    assert not [p for p in root.rglob("*") if p.is_file() and p.suffix != ".py"]

    again = CodeEngine(root, embedder=model, contextual=False, wait_for_index=True, cache_dir=cache)
    try:
        model.documents = 0
        ids_again, report_again = _ask(again, QUESTION)
        assert ids_again == ids and report_again.reason == report.reason  # the same answer, nothing embedded again
        assert model.documents == 0
    finally:
        again.close()

    off = CodeEngine(root, embedder=model, contextual=False, wait_for_index=True, cache_dir=cache, reread=False)
    try:
        table, table_report = _ask(off, QUESTION)
    finally:
        off.close()
    assert table_report.reason is None and sorted(table) == sorted(ids)


def test_what_the_budget_did_not_read_keeps_the_tables_order(tmp_path, model):
    engine = CodeEngine(_tree(tmp_path), embedder=model, contextual=False, wait_for_index=True,
                        cache_dir=str(tmp_path / "cache"), reread=False)
    try:
        merged = [_row(p, 1.0 - p / 10) for p in range(len(engine.symbols))]
        reader = Reread(lambda: model, "scope", str(tmp_path / "cache"))
        model.documents = 0
        assert reread(merged, engine.symbols, QUESTION, reader, time.monotonic() - 1) == (merged, 0)
        assert model.documents == 0  # the deadline had passed: nothing embedded, the table's order
        out, read = reread(merged, engine.symbols, QUESTION, reader, None)
        assert read == len(merged) and model.documents == len(merged)  # no deadline: every row read
        assert sorted(m.position for m in out) == [m.position for m in merged]
        with trying(KNOBS, {"reread_rows": 0}):  # the knob in force (a corpus's setting, a trial): none read
            assert reread(merged, engine.symbols, QUESTION, reader, None) == (merged, 0)
        with trying(KNOBS, {"reread_weight": 0.0}):  # MiniLM given no weight: the table's order stands
            assert reread(merged, engine.symbols, QUESTION, reader, None)[0] == merged
    finally:
        engine.close()


class Broken:
    """A model that cannot run here."""

    def info(self):
        from engines.embed.base import EmbedderUnavailable

        raise EmbedderUnavailable("no model file at /nowhere", "install the model")

    def embed(self, texts, kind):
        raise AssertionError("never reached")


def test_a_model_that_cannot_run_leaves_the_tables_answer_and_says_why(tmp_path, model):
    root, cache = _tree(tmp_path), str(tmp_path / "cache")
    broken = CodeEngine(root, embedder=Broken(), contextual=False, wait_for_index=True, cache_dir=cache)
    table = CodeEngine(root, embedder=model, contextual=False, wait_for_index=True, cache_dir=cache, reread=False)
    try:
        ids, report = _ask(broken, QUESTION)
        assert ids == _ask(table, QUESTION)[0] and report.status == "answered"
        assert report.reason == "meaning did not re-read the rows: no model file at /nowhere"
    finally:
        broken.close()
        table.close()
