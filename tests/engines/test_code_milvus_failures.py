"""Code search on Milvus when Milvus fails (issue 36): a stalled server, a killed one, the breaker,
milvus-only. The local index answers within the deadline and the answer says so, once in the notices."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("pymilvus", reason="the milvus extra: pip install -e '.[milvus]' (make test installs it)")

from engines.answer import collect  # noqa: E402
from engines.breaker import Breaker  # noqa: E402
from engines.code.engine import CodeEngine  # noqa: E402
from engines.code.milvus import publish as pub  # noqa: E402
from engines.code.milvus.router import SearchSettings  # noqa: E402
from engines.locations import demo_corpus  # noqa: E402
from engines.milvus.server import LocalMilvus  # noqa: E402
from engines.milvus.versions import connect  # noqa: E402

DEADLINE_MS = 400
# The local ranking after the deadline and the threads' hand-offs; what this checks is that nothing waits
# on the stalled server past the deadline (the figure is the benchmark's: engines/eval/bench/code/milvus.py).
SLACK_S = 0.3
QUERIES = ["rate limiter", "RateLimiter", "how are tokens refilled", "parse config file", "retry with backoff",
           "cart", "shopping cart total"]
ROOT = demo_corpus("code")


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    engine = CodeEngine(ROOT, cache_dir=str(tmp_path_factory.mktemp("cache")), contextual=True)
    yield engine
    engine.close()


@pytest.fixture
def server(tmp_path, local):
    milvus = LocalMilvus(tmp_path / "data.db").start()
    client = connect(milvus.uri)
    pub.publish_tree(client, local, "shopfront")
    client.close()
    yield milvus
    milvus.stop()


def engine_on(server, tmp_path, backend="milvus", breaker=None) -> CodeEngine:
    engine = CodeEngine(ROOT, cache_dir=str(tmp_path / "cache"), contextual=True,
                        search=SearchSettings(backend=backend, uri=server.uri, tree="shopfront",
                                              deadline_ms=DEADLINE_MS))
    if breaker is not None:
        engine._router.router.breaker = breaker
    return engine


def ask(engine, query):
    # the lexical tier: what Milvus answers or the local index falls back to (meaning's own fallback is
    # test_code_milvus.py's)
    return collect("code", query, engine.search(query, 10, ("lexical",)))


def ids(answer):
    return [h.id for h in answer.hits]


def test_a_stalled_milvus_is_answered_by_the_local_index_within_the_deadline_and_said(server, local, tmp_path):
    engine = engine_on(server, tmp_path)
    try:
        assert ask(engine, "retry with backoff").extras["backend"] == "milvus"  # connected, warm
        server.stall()
        started = time.perf_counter()
        answer = ask(engine, "rate limiter")
        waited = time.perf_counter() - started
    finally:
        server.resume()
        engine.close()
    assert answer.extras["backend"] == "local"
    assert answer.extras["backend_fallback"] == f"milvus: no answer within {DEADLINE_MS} ms"
    assert waited <= DEADLINE_MS / 1000 + SLACK_S, waited
    assert ids(answer) == ids(ask(local, "rate limiter"))
    assert engine.notices().count(f"code search: milvus: no answer within {DEADLINE_MS} ms; the local index answers") == 1


def test_three_failures_open_the_breaker_the_local_index_answers_at_once_and_a_later_try_closes_it(server, tmp_path):
    now = [0.0]
    engine = engine_on(server, tmp_path, breaker=Breaker(clock=lambda: now[0]))
    try:
        server.stall()
        late = [ask(engine, q) for q in QUERIES[:3]]
        assert all(a.extras["backend_fallback"].endswith(f"within {DEADLINE_MS} ms") for a in late)
        started = time.perf_counter()
        opened = ask(engine, QUERIES[3])
        assert time.perf_counter() - started < 0.2  # no wait on the stalled server while the breaker is open
        assert opened.extras["backend"] == "local"
        assert opened.extras["backend_fallback"].startswith("milvus: breaker open after 3 failures in a row")
        server.resume()
        now[0] += 29.0
        assert "breaker open" in ask(engine, QUERIES[4]).extras["backend_fallback"]
        now[0] += 1.0  # 30 s after it opened: one try, which succeeds and closes it
        again = ask(engine, QUERIES[5])
        assert again.extras["backend"] == "milvus" and again.extras["backend_fallback"] is None
        assert engine._router.router.breaker.in_a_row == 0
        assert not [n for n in engine.notices() if n.startswith("code search")]  # said until Milvus answered again
    finally:
        server.resume()
        engine.close()


def test_a_milvus_killed_mid_run_leaves_every_answer_correct_from_the_local_index(server, local, tmp_path):
    expected = {q: ids(ask(local, q)) for q in QUERIES}
    engine = engine_on(server, tmp_path)
    answers, problems = [], []
    stop = threading.Event()

    def ask_on():
        i = 0
        while not stop.is_set() or i < 2 * len(QUERIES):
            q = QUERIES[i % len(QUERIES)]
            try:
                answers.append((q, ask(engine, q)))
            except Exception as exc:  # noqa: BLE001 - what the test forbids
                problems.append(exc)
            i += 1

    asker = threading.Thread(target=ask_on)
    try:
        asker.start()
        time.sleep(0.5)
        server.kill()
        time.sleep(0.5)
        stop.set()
        asker.join(timeout=60)
    finally:
        engine.close()
    assert not problems
    assert {a.extras["backend"] for _, a in answers} == {"milvus", "local"}
    for q, a in answers:
        assert ids(a) == expected[q], q
        if a.extras["backend"] == "local":
            assert a.extras["backend_fallback"].startswith("milvus: ")


def test_milvus_only_says_the_lexical_tier_failed_when_milvus_does_not_answer(server, tmp_path):
    engine = engine_on(server, tmp_path, backend="milvus-only")
    try:
        assert ask(engine, "rate limiter").tier("lexical").status == "answered"
        server.kill()
        answer = ask(engine, "retry with backoff")
    finally:
        engine.close()
    assert answer.hits == []
    report = answer.tier("lexical")
    assert report.status == "failed" and report.reason.startswith("milvus: ")
