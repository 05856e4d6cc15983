"""The code pane's meaning in seconds: the trained code table answers in the default answer, stands in
while MiniLM's index builds (where contextual vectors are asked for), and says so in the tier and per row.

The contextual model is the real MiniLM, its document batches held at a gate the test opens, so which
symbols have contextual vectors is decided here, not by the machine's speed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from engines.answer import RESEMBLANCE, collect
from engines.code.engine import EMBEDDING, LEXICAL, CodeEngine
from engines.embed import trained_code_table

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "code"
LIMITER = "shopfront/limits.py::RateLimiter"
JUNK = ["football world cup final score", "wedding speech ideas", "the french revolution"]


class Gated:
    """The real model whose document batches wait until ``gate`` is set (queries pass at once)."""

    def __init__(self, inner) -> None:
        self.inner, self.gate = inner, threading.Event()

    def info(self):
        return self.inner.info()

    def embed(self, texts, kind):
        if kind == "document":
            self.gate.wait(60)
        return self.inner.embed(texts, kind)


def ask(engine, query, limit=10, tiers=None):
    return collect("code", query, engine.search(query, limit=limit, tiers=tiers))


def _until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    engine = CodeEngine(DEMO, wait_for_index=True, cache_dir=str(tmp_path_factory.mktemp("cache")), contextual=False)
    yield engine
    engine.close()


def test_the_default_answer_has_meaning_from_the_trained_table_and_says_so(shipped):
    answer = ask(shipped, "where do we throttle requests")
    assert answer.hits[0].id == LIMITER and answer.hits[0].marker == ""  # the words still lead
    tiers = {t.name: t for t in answer.tiers}
    assert tiers[LEXICAL].status == "answered"
    assert tiers[EMBEDDING].status == "answered" and tiers[EMBEDDING].vectors == {"static": 1.0}
    assert tiers[EMBEDDING].to_json()["vectors"] == {"static": 1.0}
    found = [h for h in answer.hits if h.tier == EMBEDDING]
    assert found and all(h.extras["vectors"] == "static" for h in found)
    assert all(h.marker == RESEMBLANCE for h in found if LEXICAL not in h.extras["ranks"])
    status = {t.name: t for t in shipped.status().tiers}[EMBEDDING]
    assert status.status == "answered" and status.vectors == {"static": 1.0}


def test_meaning_finds_what_the_words_miss(shipped):
    # none of these words is in the tree: the words find nothing, the table's meaning the right symbol
    for query, wanted in (("credentials", "shopfront/auth.py::verify_password"), ("memoization", "shopfront/cache.py::ExpiringCache")):
        assert ask(shipped, query, tiers=(LEXICAL,)).hits == [], query
        hits = ask(shipped, query).hits
        assert wanted in [h.id for h in hits[:2]], query
        assert all(h.marker == RESEMBLANCE and h.extras["vectors"] == "static" for h in hits), query
    # a broader word: the module that does it and its parts (which of them leads is the table's taste)
    hits = ask(shipped, "authentication").hits
    assert hits and all(h.id.startswith("shopfront/auth.py::") for h in hits[:2]), [h.id for h in hits]
    assert ask(shipped, "authentication", tiers=(LEXICAL,)).hits == []


def test_junk_stays_under_the_tables_floor(shipped):
    for query in JUNK:
        answer = ask(shipped, query)
        assert [h.id for h in answer.hits if h.marker == RESEMBLANCE] == [], query


def test_while_minilm_builds_the_static_vectors_stand_in(tmp_path, embedder):
    gated = Gated(embedder)
    engine = CodeEngine(DEMO, embedder=gated, cache_dir=str(tmp_path), persist=False)
    try:
        engine.start()
        _until(lambda: engine.static_vectors.state().state == "ready")
        answer = ask(engine, "where do we throttle requests")
        semantic = {t.name: t for t in answer.tiers}[EMBEDDING]
        # every symbol has vectors (static ones): answered for the whole tree, MiniLM's progress kept
        assert semantic.status == "answered" and semantic.done == 0 and semantic.of == len(engine.symbols)
        assert semantic.vectors == {"static": 1.0, "contextual": 0.0}
        assert semantic.reason == "static 100 %, contextual 0 %"
        found = [h for h in answer.hits if h.tier == EMBEDDING]
        assert found and all(h.extras["vectors"] == "static" for h in found)
        gated.gate.set()
        _until(lambda: engine.vectors.state().state == "ready")
        answer = ask(engine, "where do we throttle requests")
        semantic = {t.name: t for t in answer.tiers}[EMBEDDING]
        assert semantic.status == "answered" and semantic.vectors is None  # MiniLM's for every symbol now
        assert all("vectors" not in h.extras for h in answer.hits)
    finally:
        gated.gate.set()
        engine.close()


def test_a_damaged_table_is_said_in_one_line_and_the_words_still_answer(tmp_path, monkeypatch):
    bad = tmp_path / trained_code_table.FILENAME
    bad.write_bytes(b"not a table")
    monkeypatch.setattr(trained_code_table, "locations", lambda: [bad])
    engine = CodeEngine(DEMO, wait_for_index=True, cache_dir=str(tmp_path), persist=False, contextual=False)
    try:
        answer = ask(engine, "where do we throttle requests")
        assert answer.hits[0].id == LIMITER
        semantic = {t.name: t for t in answer.tiers}[EMBEDDING]
        assert semantic.status == "unavailable" and "damaged" in semantic.reason and "\n" not in semantic.reason
        assert semantic.enable
        assert {t.name: t for t in engine.status().tiers}[EMBEDDING].status == "unavailable"
    finally:
        engine.close()


def test_the_static_score_fusion_reorders_the_evidence_by_meaning_and_fills_behind_it():
    from engines.code.merge import weigh

    lexical = [(1, 10.0), (2, 8.0), (3, 1.0)]  # BM25: 1, 0.8, 0.1 of the best
    cosines = [0.1, 0.2, 0.9]  # scaled over these rows: 0, 0.125, 1
    meaning = [(4, 0.95), (3, 0.9)]  # 4: only meaning found it
    merged = weigh(lexical, cosines, meaning, 10, share=0.6)
    assert [m.position for m in merged] == [3, 1, 2, 4]  # 0.64, 0.40, 0.395; then meaning's own row
    assert [m.tier for m in merged] == [LEXICAL, LEXICAL, LEXICAL, EMBEDDING]  # evidence first, said as such
    assert merged[0].ranks == {LEXICAL: 3, EMBEDDING: 2} and merged[0].score == 1.0  # its words' own score
    assert [m.position for m in weigh(lexical, cosines, meaning, 10, share=0.0)] == [1, 2, 3, 4]  # words alone
    assert [m.position for m in weigh(lexical, cosines, meaning, 2, share=0.6)] == [3, 1]  # cut to the limit
    # a row not embedded yet (NaN) weighs by its words alone, the least meaning
    fused = {m.position: m.fused for m in weigh(lexical, [float("nan"), 0.2, 0.9], meaning, 10, share=0.6)}
    assert fused[1] == pytest.approx(0.4) and fused[3] == pytest.approx(0.64)


def _shipped_over(tmp_path, files: dict[str, str]) -> CodeEngine:
    """The engine as the code pane opens it (the trained table, no MiniLM) over a tree of ``files``."""
    for rel, text in files.items():
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / rel).write_text(text, encoding="utf-8")
    return CodeEngine(tmp_path / "tree", wait_for_index=True, cache_dir=str(tmp_path / "cache"), contextual=False)


def test_the_static_vectors_know_where_a_symbol_lives(tmp_path):
    # the same function in two files: only the path can tell the table which one a question means
    body = 'def apply(total, rate):\n    """Scale the total by the rate."""\n    return total * rate\n'
    engine = _shipped_over(tmp_path, {"payments/refunds.py": body, "render/colours.py": body})
    try:
        for query, wanted in (("payment refunds", "payments/refunds.py::apply"),
                              ("colours for rendering", "render/colours.py::apply")):
            hits = [h for h in ask(engine, query, tiers=(EMBEDDING,)).hits if h.id.endswith("::apply")]
            assert [h.id for h in hits][:1] == [wanted], (query, [(h.id, h.score) for h in hits])
            assert len(hits) < 2 or hits[0].score > hits[1].score, query  # not a tie broken by order
    finally:
        engine.close()


def _static_scores(tmp_path, query: str):
    engine = CodeEngine(DEMO, wait_for_index=True, cache_dir=str(tmp_path / "cache"), contextual=False)
    try:
        static = engine.static_vectors
        static.build()
        vector = static.embedder.embed([query], "query")[0]
        return static.scores(vector)
    finally:
        engine.close()


def test_the_static_ranking_is_corrected_by_density_even_before_the_build_measures_it(tmp_path, monkeypatch):
    from engines.code.static_vectors import StaticVectorIndex

    # a search that comes between the build's "ready" and its density: the search measures it first
    monkeypatch.setattr(StaticVectorIndex, "_completed", lambda self: None)
    rows, cosines, ranking = _static_scores(tmp_path, "where do we throttle requests")
    assert len(rows) > 10 and (ranking < cosines).all()  # every symbol's density is subtracted
    assert [int(r) for r in rows[np.argsort(-ranking)][:10]] != [int(r) for r in rows[np.argsort(-cosines)][:10]]


def test_a_tree_larger_than_the_density_bound_ranks_by_plain_cosine(tmp_path, monkeypatch):
    from engines.code.static_vectors import StaticVectorIndex

    monkeypatch.setattr(StaticVectorIndex, "density_most", 3)
    rows, cosines, ranking = _static_scores(tmp_path, "where do we throttle requests")
    assert len(rows) > 3 and np.array_equal(ranking, cosines)


CLICKLIKE = {
    "cli/termui.py": '''def prompt(text, default=None, hide_input=False, confirmation_prompt=False, type=None):
    """Prompts a user for input. This is a convenience function that can be used to prompt a user
    for input later. If the user aborts the input by sending an interrupt signal, this function will
    catch it and raise an Abort exception."""
    while True:
        value = prompt_func(text)
        if not confirmation_prompt:
            return value
        if value == prompt_func("Repeat for confirmation: "):
            return value


def confirm(text, default=False, abort=False):
    """Prompts for confirmation (yes/no question). If the user aborts the input by sending an
    interrupt signal this function will catch it and raise an Abort exception."""
    answer = input(text + " [y/N]: ").strip().lower()
    if abort and answer != "y":
        raise Abort()
    return answer == "y" if answer else default


def _build_prompt(text, suffix, show_default=False, default=None):
    """The prompt's text as the user sees it: the default in brackets, then the suffix."""
    return f"{text} [{default}]{suffix}" if show_default and default is not None else text + suffix
''',
    "cli/decorators.py": '''def password_option(*param_decls, **kwargs):
    """Add a --password option which prompts for a password, hiding input and asking to enter the
    value again for confirmation."""
    kwargs.setdefault("prompt", True)
    kwargs.setdefault("confirmation_prompt", True)
    kwargs.setdefault("hide_input", True)
    return option(*param_decls, **kwargs)


def version_option(version=None, *param_decls, **kwargs):
    """Add a --version option which immediately prints the version number and exits the program."""
    kwargs.setdefault("is_flag", True)
    return option(*param_decls, **kwargs)
''',
    "cli/core.py": '''class Option:
    def prompt_for_value(self, ctx):
        """This is called when the option asks the user for a value: the prompt, its default, and a
        second prompt for confirmation where the option asks for one."""
        return prompt(self.prompt, default=self.default, confirmation_prompt=self.confirmation_prompt)

    def get_default(self, ctx):
        """The option's default value, called if it is a callable."""
        return self.default() if callable(self.default) else self.default
''',
}




def test_a_function_named_for_the_question_that_meaning_finds_too_is_not_halved_behind_its_file(tmp_path):
    # The file saturation halves a second chunk of a file already shown (semble grades whole files);
    # confirm() is named by "confirmation" and the trained table finds it: it keeps its whole score.
    engine = _shipped_over(tmp_path, CLICKLIKE)
    query = "prompt the user for confirmation"
    words = [h.id for h in ask(engine, query, tiers="lexical").hits]
    meaning = [h.id for h in ask(engine, query, tiers="embedding").hits]
    both = [h.id for h in ask(engine, query).hits]
    engine.close()
    confirm, password = "cli/termui.py::confirm", "cli/decorators.py::password_option"
    assert words.index(confirm) > words.index(password)  # the words alone: halved behind prompt()
    assert confirm in meaning[:3]
    assert both.index(confirm) < both.index(password)


def test_only_a_further_chunk_both_named_by_the_question_and_near_it_gets_its_score_back(tmp_path):
    from engines.code.ranking import SATURATION, stand_alone

    engine = _shipped_over(tmp_path, CLICKLIKE)
    lexical, query = engine.lexical_tier, "prompt the user for confirmation"
    ranked = lexical.search(query, 10)
    engine.close()
    where = {engine.symbols[p].qualname: p for p, _ in ranked}
    score = dict(ranked)
    confirm, build, prompt = where["confirm"], where["_build_prompt"], where["prompt"]
    assert stand_alone(query, ranked, lexical.shape, [(build, 0.9)]) == ranked  # near, but "build" is not asked
    assert stand_alone(query, ranked, lexical.shape, [(prompt, 0.9)]) == ranked  # its file's first: never halved
    assert stand_alone(query, ranked, lexical.shape, [(p, 0.5) for p, _ in ranked[:3] if p != confirm] * 2
                       + [(confirm, 0.4)]) == ranked  # named, but not among meaning's first three
    back = dict(stand_alone(query, ranked, lexical.shape, [(confirm, 0.9)]))
    assert back[confirm] == pytest.approx(score[confirm] / SATURATION)
    assert {p: s for p, s in back.items() if p != confirm} == {p: s for p, s in score.items() if p != confirm}


def test_a_question_asked_in_words_weighs_meaning_more_than_the_same_words_unasked(tmp_path, monkeypatch):
    # issue 60: "how does the app find its templates" is a person who does not know the code's names
    import engines.code.engine as engine_module
    from engines.code.merge import STATIC_QUESTION_SHARE, STATIC_TREE_SHARE, question_asked

    assert question_asked("how does the app find its templates") and question_asked("Where are proxies read?")
    assert question_asked("can I cancel a request")
    assert not question_asked("how commands are structured and invoked")  # a topic, semble's shape
    assert not question_asked("prompt the user for confirmation") and not question_asked("how")
    assert not question_asked("RateLimiter.allow")
    shares = []
    weigh = engine_module.weigh
    monkeypatch.setattr(engine_module, "weigh", lambda *a, **k: shares.append(a[4]) or weigh(*a, **k))
    engine = _shipped_over(tmp_path, CLICKLIKE)
    try:
        asked = ask(engine, "how does it ask the user for confirmation")
        ask(engine, "ask the user for confirmation")
    finally:
        engine.close()
    assert shares == [STATIC_QUESTION_SHARE, STATIC_TREE_SHARE]
    assert "cli/termui.py::confirm" in [h.id for h in asked.hits[:3]]
