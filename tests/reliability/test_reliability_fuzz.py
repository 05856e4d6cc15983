"""Hostile input, generated: every engine's query reading, and the loaders of notes files, Python source
and catalogue lines, under hypothesis with bounded budgets. Always a valid envelope (or, for a corpus
that cannot be read at all, one clear error), never an exception escaping to the user.

Budgets (examples per target) are the ``BUDGET`` values below; the whole file runs in ~20 s on 2 cores.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")  # in the `test` extra; skipped where an old venv lacks it
from hypothesis import HealthCheck, example, given, settings, strategies as st  # noqa: E402

from engines.answer import STATUSES, collect  # noqa: E402
from engines.code.corpus import CorpusError as CodeCorpusError  # noqa: E402
from engines.code.engine import CodeEngine  # noqa: E402
from engines.notes.corpus import load_corpus  # noqa: E402
from engines.notes.engine import NotesEngine  # noqa: E402
from engines.products.catalogue import CatalogueError, load_catalogue  # noqa: E402
from engines.products.engine import ProductsEngine, collect_products  # noqa: E402
from engines.products.knowledge import KnowledgeMap  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
NO_VECTORS = ("code", "lexical", "typo", "words", "kinds")
BUDGET = {"notes query": 150, "code query": 150, "products query": 150,
          "notes file": 100, "python source": 100, "catalogue lines": 60}
FUZZ = dict(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
ran = {name: 0 for name in BUDGET}  # examples each target really ran: the budget is spent, not just set

# Any code point, control characters and lone surrogates included; a few shapes people actually paste.
hostile_text = st.one_of(
    st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=200),
    st.text(st.sampled_from("\x00\t\n\r\x1b[31m\u200b\u202e\ufeff\ud800 \"'\\*?()[]{}|&~^:-_/#@"), max_size=80),
    st.from_regex(r"[a-z_]{1,12}([ .,:;-][A-Za-z0-9_]{1,12}){0,20}", fullmatch=True),
)
HUGE = ["x" * 100_000, "slugs " * 20_000, "\x00" * 10_000, "🐌" * 30_000, "a" + "\u0301" * 50_000]


def valid_envelope(answer, limit: int) -> None:
    data = answer.to_json()
    json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")  # --json prints it
    assert len(answer.hits) <= limit and answer.total >= len(answer.hits), "total counts every row shown"
    assert answer.tiers and all(t.status in STATUSES for t in answer.tiers)
    assert len({h.id for h in answer.hits}) == len(answer.hits), "a row twice"



@pytest.fixture(scope="module")
def notes(embedder):
    return NotesEngine(FIXTURES / "notes", embedder=embedder, wait_for_index=True)


@pytest.fixture(scope="module")
def code(embedder):
    return CodeEngine(FIXTURES / "code", embedder=embedder, wait_for_index=True)


@pytest.fixture(scope="module")
def products():
    return ProductsEngine(FIXTURES / "products")


# -- query reading ------------------------------------------------------------------------------------
def test_notes_reads_any_query(notes):
    @settings(max_examples=BUDGET["notes query"], **FUZZ)
    @given(query=hostile_text, limit=st.integers(1, 50))
    def check(query, limit):
        ran['notes query'] += 1
        valid_envelope(collect("notes", query, notes.search(query, limit)), limit)

    for query in HUGE:
        valid_envelope(collect("notes", query, notes.search(query, 10)), 10)
    check()


def test_code_reads_any_query(code):
    @settings(max_examples=BUDGET["code query"], **FUZZ)
    @given(query=hostile_text, limit=st.integers(1, 50))
    def check(query, limit):
        ran['code query'] += 1
        valid_envelope(collect("code", query, code.search(query, limit, ("lexical", "embedding"))), limit)

    for query in HUGE:
        valid_envelope(collect("code", query, code.search(query, 10, ("lexical", "embedding"))), 10)
    check()


def test_products_reads_any_query(products):
    @settings(max_examples=BUDGET["products query"], **FUZZ)
    @given(query=hostile_text, limit=st.integers(1, 50))
    def check(query, limit):
        ran['products query'] += 1
        answer = collect_products(query, products.search(query, limit, sources=NO_VECTORS))
        valid_envelope(answer, limit)
        assert answer.extras["path"] in ("exact", "fused", "judged")

    for query in HUGE:
        valid_envelope(collect_products(query, products.search(query, 10, sources=NO_VECTORS)), 10)
    check()


# -- corpus loaders ------------------------------------------------------------------------------------
# Text with the shapes the loaders look for (headings, front matter, outline lines, tabs), mixed with noise.
note_like = st.lists(st.one_of(
    st.sampled_from(["# ", "## ", "---\n", "tags: [a, b]\n", "- [ ] ", "* ", "\t", "{\"text\": ", "}\n", "\n\n",
                     "#tag ", "\r\n", "\x00", "\ufeff"]),
    st.text(max_size=40)), max_size=30).map("".join)
file_bytes = st.one_of(st.binary(max_size=2_000), note_like.map(lambda t: t.encode("utf-8", "surrogatepass")))


def test_notes_files_of_any_bytes_load_as_notes_or_problems(embedder):
    @settings(max_examples=BUDGET["notes file"], **FUZZ)
    @given(contents=st.lists(file_bytes, min_size=1, max_size=4),
           suffixes=st.lists(st.sampled_from([".md", ".txt", ".org", ".jsonl", ".markdown"]), min_size=4, max_size=4))
    def check(contents, suffixes):
        ran['notes file'] += 1
        with tempfile.TemporaryDirectory() as folder:
            for i, data in enumerate(contents):
                Path(folder, f"note-{i}{suffixes[i]}").write_bytes(data)
            loaded = load_corpus(folder)
            assert all(isinstance(str(p), str) for p in loaded.problems)
            engine = NotesEngine(folder, wait_for_index=True, embedder=embedder)
            for note in engine.notes[:2]:
                words = (note.title + " " + note.body).split()[:3]
                valid_envelope(collect("notes", " ".join(words), engine.search(" ".join(words), 5, ("exact",))), 5)

    check()


python_like = st.lists(st.one_of(
    st.sampled_from(["def ", "class ", "async def ", "(", "):\n", "    ", '"""', "'''", "@decorator\n", "return ",
                     "lambda", ":", "\n", "#", "\\\n", "\x00", "f'{", "}'", "yield", "import ", "×"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True), st.text(max_size=10)), max_size=60).map("".join)


def test_python_source_of_any_bytes_gives_symbols_or_one_named_problem():
    @settings(max_examples=BUDGET["python source"], **FUZZ)
    @given(sources=st.lists(st.one_of(st.binary(max_size=1_500),
                                      python_like.map(lambda t: t.encode("utf-8", "surrogatepass"))),
                            min_size=1, max_size=3))
    def check(sources):
        ran['python source'] += 1
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "good.py").write_text("def throttle_requests(rate):\n    return rate\n")
            for i, data in enumerate(sources):
                Path(folder, f"mod{i}.py").write_bytes(data)
            try:
                engine = CodeEngine(folder)
            except CodeCorpusError as exc:  # the one clear error a whole corpus may give
                assert "\n" not in str(exc)
                return
            assert any(s.title.startswith("throttle_requests") for s in engine.symbols), "the good file still counts"
            assert {p.path for p in engine.problems} <= {f"mod{i}.py" for i in range(len(sources))}
            valid_envelope(collect("code", "throttle requests", engine.search("throttle requests", 5)), 5)

    check()


def test_catalogue_lines_of_any_text_load_as_products_or_problems():
    header, *rows = (FIXTURES / "products" / "food.tsv").read_text(encoding="utf-8").splitlines()
    knowledge = KnowledgeMap.for_catalogue(FIXTURES / "products")
    cell = st.one_of(st.text(max_size=30), st.sampled_from(["", "en:milk", "1 l", "en:gluten", "0000101209159", "\\t"]))
    row = st.one_of(st.lists(cell, max_size=15).map("\t".join), st.text(max_size=200), st.sampled_from(rows[:50]))

    @settings(max_examples=BUDGET["catalogue lines"], **FUZZ)
    @given(lines=st.lists(row, min_size=1, max_size=8), raw=st.binary(max_size=300))
    @example(lines=["\t" * 40], raw=b"\xff\xfe\x00")
    def check(lines, raw):
        ran['catalogue lines'] += 1
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "food.tsv")
            path.write_bytes(("\n".join([header, *lines]) + "\n").encode("utf-8", "surrogatepass") + raw)
            try:
                catalogue = load_catalogue(path, knowledge)
            except CatalogueError as exc:
                assert "\n" not in str(exc)
                return
            engine = ProductsEngine(catalogue=catalogue, knowledge=knowledge)
            for query in ("milk", lines[0][:30]):
                answer = collect_products(query, engine.search(query, 5, sources=NO_VECTORS))
                valid_envelope(answer, 5)

    check()


def test_every_fuzz_target_spent_its_budget():
    # runs last in this file: each target above ran at least the examples its budget names
    print("\nFUZZ examples run: " + ", ".join(f"{name} {n}" for name, n in ran.items()))
    if not any(ran.values()):
        pytest.skip("no fuzz target ran in this session (selected alone)")
    # every target, one that never ran included: a target whose body stopped being reached fails here
    assert all(ran[name] >= budget for name, budget in BUDGET.items()), ran
