"""The code engine on the demo tree, with the real local model: tiers, merges, the envelope, privacy.

Source never leaves the process (the sockets-blocked test), an edit re-embeds only the symbol whose
text changed, nothing is written into the tree searched, and a tier that does not answer says why.
"""

from __future__ import annotations

import shutil
import socket
import threading
from pathlib import Path

import pytest

from engines.answer import RESEMBLANCE, collect
from engines.code.engine import EMBEDDING, LEXICAL, CodeEngine
from engines.code.live import CodeWatcher
from engines.embed.llama import LlamaEmbedder

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "code"
LIMITER = "shopfront/limits.py::RateLimiter"
BOTH = (LEXICAL, EMBEDDING)



@pytest.fixture(scope="module")
def demo(embedder):
    engine = CodeEngine(DEMO, embedder=embedder, wait_for_index=True)
    yield engine
    engine.close()


def ask(engine, query, limit=10, tiers=BOTH):
    return collect("code", query, engine.search(query, limit=limit, tiers=tiers))


def test_the_default_answers_where_do_we_throttle_requests_with_the_rate_limiter_first(demo):
    answer = ask(demo, "where do we throttle requests", tiers=None)
    assert answer.hits[0].id == LIMITER and answer.hits[0].marker == ""
    assert answer.hits[0].title == "RateLimiter" and answer.hits[0].where == "shopfront/limits.py:17"
    assert answer.hits[0].extras["summary"].startswith("Caps how many requests each client may make")
    tiers = {t.name: t for t in answer.tiers}
    assert tiers[LEXICAL].status == "answered"
    assert tiers[EMBEDDING].status == "answered" and tiers[EMBEDDING].vectors is None  # MiniLM's, asked for


def test_lexical_alone_says_what_the_embedding_tier_would_add(demo):
    answer = ask(demo, "where do we throttle requests", tiers=(LEXICAL,))
    assert answer.hits[0].id == LIMITER and all(h.tier == LEXICAL for h in answer.hits)
    tiers = {t.name: t for t in answer.tiers}
    assert tiers[EMBEDDING].status == "off" and "--tiers" in tiers[EMBEDDING].enable


def test_both_tiers_merge_into_one_ranking_that_says_which_tier_found_each_row(demo):
    answer = ask(demo, "where do we throttle requests", limit=5)
    ids = [h.id for h in answer.hits]
    assert LIMITER in ids[:2]
    limiter = answer.hits[ids.index(LIMITER)]
    assert set(limiter.extras["ranks"]) == {LEXICAL, EMBEDDING}  # found by its words and by meaning
    assert {t.name: t.status for t in answer.tiers} == {LEXICAL: "answered", EMBEDDING: "answered"}
    assert answer.extras["merge"] == "fused"
    for hit in answer.hits:
        assert hit.tier in hit.extras["ranks"] and hit.score == pytest.approx(hit.extras["scores"][hit.tier], abs=1e-3)
        assert hit.marker == ("" if LEXICAL in hit.extras["ranks"] else RESEMBLANCE)


def test_meaning_finds_what_shares_no_word_with_the_query_and_marks_it_as_resemblance(demo):
    answer = ask(demo, "secure credential storage", limit=3)
    # Over a source tree the lexical tier leads the fused blend (merge.py): storage.py, named by the
    # query, comes first; the module found by meaning alone follows it, marked as resemblance.
    found = {h.id: h for h in answer.hits}
    first = found["shopfront/auth.py::shopfront.auth"]  # passwords and tokens: no word in common
    assert (first.tier, first.marker, first.extras["ranks"]) == (EMBEDDING, RESEMBLANCE, {EMBEDDING: 1})


def test_merged_keeps_lexical_rows_first_and_fills_only_the_room_left(embedder):
    engine = CodeEngine(DEMO, embedder=embedder, wait_for_index=True, merge="merged")
    lexical = ask(engine, "secure credential storage", limit=20, tiers=(LEXICAL,))
    answer = ask(engine, "secure credential storage", limit=len(lexical.hits) + 3)
    assert [h.id for h in answer.hits[: len(lexical.hits)]] == [h.id for h in lexical.hits]
    added = answer.hits[len(lexical.hits):]
    assert added and all(h.tier == EMBEDDING and h.marker == RESEMBLANCE for h in added)
    assert not {h.id for h in added} & {h.id for h in lexical.hits}


def test_both_tiers_run_with_sockets_blocked(tmp_path, monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network use is forbidden in this test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    engine = CodeEngine(DEMO, embedder=LlamaEmbedder(), cache_dir=str(tmp_path / "cache"), wait_for_index=True,
                        remote_endpoint="https://embeddings.example.com/v1")
    answer = ask(engine, "where do we throttle requests")
    assert {t.name: t.status for t in answer.tiers} == {LEXICAL: "answered", EMBEDDING: "answered"}
    assert attempts == []
    assert any("never sends source" in n and "ignored" in n for n in engine.notices())


def test_an_edit_re_embeds_only_the_symbol_whose_text_changed(tmp_path, embedder):
    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)
    engine = CodeEngine(tree, embedder=embedder, cache_dir=str(tmp_path / "cache"), wait_for_index=True)
    engine.build_index()
    first = len(engine.vectors.embedded_texts)
    assert first == len(engine.symbols)
    limits = tree / "shopfront" / "limits.py"
    limits.write_text(limits.read_text().replace('"""Seconds until the client may make its next request."""',
                                                 '"""Seconds until the client may call again: the cool-down."""'))
    CodeWatcher(engine).apply({str(limits)})
    engine.build_index()
    assert len(engine.vectors.embedded_texts) == first + 1
    assert "cool-down" in engine.vectors.embedded_texts[-1]
    answer = ask(engine, "cool-down", tiers=(LEXICAL,))
    assert answer.hits[0].id == "shopfront/limits.py::RateLimiter.retry_after"


def test_the_watcher_drops_a_deleted_file_and_names_one_that_stopped_parsing(tmp_path, embedder):
    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)
    engine = CodeEngine(tree, embedder=embedder)
    watcher = CodeWatcher(engine)
    (tree / "shopfront" / "cache.py").unlink()
    (tree / "shopfront" / "retry.py").write_text("def retry(:\n")
    watcher.apply({str(tree / "shopfront" / "cache.py"), str(tree / "shopfront" / "retry.py")})
    names = {s.qualname for s in engine.symbols}
    assert "ExpiringCache" not in names and "backoff_delays" not in names and "RateLimiter" in names
    assert [p.path for p in engine.problems] == ["shopfront/retry.py"]
    (tree / "shopfront" / "retry.py").write_text("def retry():\n    pass\n")
    watcher.apply({str(tree / "shopfront" / "retry.py")})
    assert engine.problems == [] and "retry" in {s.qualname for s in engine.symbols}


def test_nothing_is_written_into_the_tree_searched(tmp_path, embedder):
    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)

    def listing():
        return sorted((str(p.relative_to(tree)), p.stat().st_mtime_ns, p.stat().st_size) for p in tree.rglob("*"))

    before = listing()
    engine = CodeEngine(tree, embedder=embedder, cache_dir=str(tmp_path / "cache"), wait_for_index=True)
    ask(engine, "where do we throttle requests")
    engine.close()
    assert listing() == before


def test_while_the_index_builds_lexical_answers_at_once_and_meaning_says_indexing(tmp_path, embedder):
    release = threading.Event()

    class Gated:  # the real embedder, with document batches held until the test lets them go
        def info(self):
            return embedder.info()

        def embed(self, texts, kind):
            if kind == "document":
                release.wait(30)
            return embedder.embed(texts, kind)

    engine = CodeEngine(DEMO, embedder=Gated(), cache_dir=str(tmp_path / "cache"))
    try:
        batches = list(engine.search("where do we throttle requests", limit=20, tiers=BOTH))
        assert batches[0].hits[0].id == LIMITER and [t.name for t in batches[0].tiers] == [LEXICAL]
        report = batches[-1].tiers[0]
        assert report.name == EMBEDDING and report.status in ("indexing", "skipped")
        state = engine.vectors.state()
        assert state.state != "ready" and state.done == 0 and state.of == len(engine.symbols)
    finally:
        release.set()
        engine.close()


def test_a_missing_model_makes_the_embedding_tier_unavailable_and_lexical_unchanged(tmp_path):
    engine = CodeEngine(DEMO, embedder=LlamaEmbedder(model_path=tmp_path / "missing.gguf"), wait_for_index=True)
    lexical = ask(engine, "where do we throttle requests", limit=30, tiers=(LEXICAL,))
    answer = ask(engine, "where do we throttle requests", limit=30)
    assert [h.id for h in answer.hits] == [h.id for h in lexical.hits]
    report = answer.tier(EMBEDDING)
    assert report.status == "unavailable" and "missing.gguf" in report.reason and report.enable


def test_lexical_only_never_loads_the_model_and_recall_off_switches_meaning_off(monkeypatch):
    class Untouchable:
        def info(self):
            raise AssertionError("the model was asked for")

        embed = info

    engine = CodeEngine(DEMO, embedder=Untouchable())
    assert ask(engine, "cache", tiers=None).hits
    monkeypatch.setenv("OLAI_RECALL", "off")
    answer = ask(engine, "cache")
    assert answer.tier(EMBEDDING).status == "off" and answer.tier(EMBEDDING).enable == "unset OLAI_RECALL"


@pytest.mark.parametrize("query", ["", "   ", "!!!", "where"])
def test_queries_with_no_searchable_words_answer_cleanly(demo, query):
    answer = ask(demo, query)
    # no word to search for ("where" is a question word, not a name): an empty answer, not an error
    assert answer.total == 0 and answer.hits == []
    assert answer.tier("lexical").status == "empty"


def test_tiers_are_validated_and_default_to_both():
    assert CodeEngine.parse_tiers(None) == BOTH
    assert CodeEngine.parse_tiers("lexical") == (LEXICAL,)
    assert CodeEngine.parse_tiers("embedding,lexical") == BOTH
    with pytest.raises(ValueError, match="unknown tier 'semantic' for code"):
        CodeEngine.parse_tiers("lexical,semantic")


def test_the_watcher_sees_a_new_file_without_being_told(tmp_path, embedder):
    import time

    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)
    engine = CodeEngine(tree, embedder=embedder)
    watcher = CodeWatcher(engine)
    watcher.start()
    try:
        time.sleep(0.3)  # let watchfiles arm before the edit
        (tree / "shopfront" / "coupons.py").write_text('def apply_coupon(total, code):\n    """Take a voucher off."""\n')
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "apply_coupon" not in {s.qualname for s in engine.symbols}:
            time.sleep(0.05)
        assert ask(engine, "voucher", tiers=(LEXICAL,)).hits[0].id == "shopfront/coupons.py::apply_coupon"
    finally:
        watcher.stop()


def test_reload_reads_the_tree_again(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree)
    engine = CodeEngine(tree)
    (tree / "shopfront" / "gifts.py").write_text("def wrap_gift():\n    pass\n")
    assert "wrap_gift" not in {s.qualname for s in engine.symbols}
    engine.reload()
    assert "wrap_gift" in {s.qualname for s in engine.symbols} and engine.files == 10
