"""Recall on Milvus when Milvus fails (issue 8): a stalled server, the breaker, the fallbacks, a server killed
mid-run. Every answer still comes back, from memory, within the deadline, and says why.

Each test here starts its own milvus-lite binary on 127.0.0.1 (stalled with SIGSTOP, killed with
SIGKILL, by its PID), publishes the default food fixture to it, and stops it afterwards.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pymilvus", reason="the milvus extra: pip install -e '.[milvus]' (make test installs it)")

from engines.products.backends import publish as pub  # noqa: E402
from engines.milvus.server import LocalMilvus  # noqa: E402
from engines.breaker import Breaker
from engines.products.backends.router import RecallSettings, router_for  # noqa: E402
from engines.milvus.asking import late  # noqa: E402
from engines.products.engine import ProductsEngine  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "products"
DEADLINE_MS = 400
# The fallback answers after the deadline plus memory's own recall and the threads' hand-offs: 424-519 ms
# measured (docs/reliability.md); 457 ms under a loaded fresh-clone run (2026-12-03). What this checks is
# the behaviour, no wait on the stalled server past the deadline; the figure is the benchmark's.
SLACK_S = 0.25
QUERIES = ["laktoositon maito 1 l", "oat drink without soy", "vegan butter", "dark chocolate", "gluten free pasta",
           "kaurajuoma", "greek yogurt", "ilman soijaa"]


@pytest.fixture(scope="module")
def memory():
    engine = ProductsEngine(FIXTURE, wait_for_index=True)
    engine.build_index()
    yield engine
    engine.close()


@pytest.fixture
def server(tmp_path, memory):
    milvus = LocalMilvus(tmp_path / "data.db").start()
    client = pub.connect(milvus.uri)
    pub.publish(client, "olai_products", memory.catalogue, memory.knowledge, memory.index.masks,
                pub.catalogue_vectors(memory), memory.vectors.embedder.info().model_id)
    client.close()
    yield milvus
    milvus.stop()


def engine_on(uri, backend="milvus", breaker=None, **kwargs):
    engine = ProductsEngine(FIXTURE, **{"wait_for_index": True, **kwargs})
    engine.router = router_for(engine, RecallSettings(backend=backend, uri=uri, deadline_ms=DEADLINE_MS))
    if breaker is not None:
        engine.router.breaker = breaker
    return engine


def recall_s(answer) -> float:
    return answer.tier("recall").ms / 1000


def test_a_stalled_milvus_answers_from_memory_within_the_deadline_and_says_why(server, memory):
    engine = engine_on(server.uri)
    try:
        assert engine.answer("dark chocolate").extras["recall_backend"] == "milvus"  # connected, warm
        server.stall()
        started = time.perf_counter()
        a = engine.answer("vegan butter")
        whole_s = time.perf_counter() - started
    finally:
        server.resume()
        engine.close()
    assert a.extras["recall_backend"] == "memory"
    assert a.extras["recall_fallback"] == f"milvus: no answer within {DEADLINE_MS} ms"
    assert recall_s(a) <= DEADLINE_MS / 1000 + SLACK_S, recall_s(a)
    assert whole_s < DEADLINE_MS / 1000 + 0.5  # the judge and the rest after recall add little
    assert [h.id for h in a.hits] == [h.id for h in memory.answer("vegan butter").hits]


def test_grpc_s_own_deadline_firing_first_is_named_as_late_not_as_a_grpc_error(server):
    # The router gives gRPC the time it waits itself; under load gRPC's DEADLINE_EXCEEDED can reach the wait
    # first (CI, 2026-12-03: "milvus: deadline_exceeded: Deadline Exceeded"). Either way the answer was late.
    engine = engine_on(server.uri)
    try:
        assert engine.answer("dark chocolate").extras["recall_backend"] == "milvus"
        request = engine.understand("vegan butter")
        allowed = np.ones(len(engine.catalogue.by_id), bool)
        server.stall()
        with pytest.raises(Exception) as raised:
            engine.router.milvus.lists(request, allowed, engine.catalogue.by_id, None, 0.0, True, 0.1)
    finally:
        server.resume()
        engine.close()
    assert late(raised.value), repr(raised.value)
    assert not late(ConnectionRefusedError("refused"))


def test_three_failures_open_the_breaker_then_memory_answers_at_once_and_a_later_try_closes_it(server):
    now = [0.0]
    engine = engine_on(server.uri, breaker=Breaker(clock=lambda: now[0]))
    try:
        server.stall()
        timed_out = [engine.answer(q) for q in QUERIES[:3]]
        assert all(a.extras["recall_fallback"].endswith(f"within {DEADLINE_MS} ms") for a in timed_out)
        opened = engine.answer(QUERIES[3])
        assert opened.extras["recall_backend"] == "memory"
        assert opened.extras["recall_fallback"].startswith("milvus: breaker open after 3 failures in a row")
        assert recall_s(opened) < 0.1  # no waiting on the stalled server while the breaker is open
        server.resume()
        now[0] += 29.0
        assert "breaker open" in engine.answer(QUERIES[4]).extras["recall_fallback"]
        now[0] += 1.0  # 30 s after it opened: one try, which succeeds and closes it
        again = engine.answer(QUERIES[5])
        assert again.extras["recall_backend"] == "milvus" and again.extras["recall_fallback"] is None
        assert engine.router.breaker.in_a_row == 0
    finally:
        server.resume()
        engine.close()


def test_a_killed_milvus_mid_run_leaves_every_answer_correct_from_memory_with_the_reason(server, memory):
    expected = {q: [h.id for h in memory.answer(q).hits] for q in QUERIES}
    engine = engine_on(server.uri)
    answers, problems = [], []
    stop = threading.Event()

    def ask_on():
        i = 0
        while not stop.is_set() or i < 2 * len(QUERIES):
            q = QUERIES[i % len(QUERIES)]
            try:
                answers.append((q, engine.answer(q), time.monotonic()))
            except Exception as exc:  # noqa: BLE001 - what the test forbids
                problems.append(exc)
            i += 1

    assert engine.answer(QUERIES[0]).extras["recall_backend"] == "milvus"  # warm: the model, the connection
    asker = threading.Thread(target=ask_on)
    asker.start()
    wait_for(lambda: len(answers) >= 3)
    killed_at = time.monotonic()
    server.kill()
    wait_for(lambda: sum(t > killed_at + 0.5 for _, _, t in answers) >= 3)
    stop.set()
    asker.join(timeout=60)
    engine.close()
    assert not problems and not asker.is_alive()
    before = [a for q, a, t in answers if t < killed_at]
    after = [a for q, a, t in answers if t > killed_at + 0.5]
    assert before and after
    assert all(a.extras["recall_backend"] == "milvus" for a in before[:-1])
    for q, a, _ in answers:
        assert [h.id for h in a.hits] == expected[q], (q, a.extras["recall_backend"], a.extras["recall_fallback"])
    for a in after:
        assert a.extras["recall_backend"] == "memory" and a.extras["recall_fallback"].startswith("milvus: ")


def wait_for(condition, limit_s: float = 20.0) -> None:
    give_up = time.monotonic() + limit_s
    while not condition() and time.monotonic() < give_up:
        time.sleep(0.02)


def test_nothing_published_at_the_uri_makes_memory_answer_with_the_reason(tmp_path):
    with LocalMilvus(tmp_path / "empty.db") as empty:
        engine = engine_on(empty.uri)
        try:
            a = engine.answer("dark chocolate")
        finally:
            engine.close()
    assert a.extras["recall_backend"] == "memory"
    assert a.extras["recall_fallback"] == f"milvus: nothing published as olai_products at {empty.uri}"


def test_milvus_only_says_its_sources_failed_and_the_local_sources_still_answer(server):
    engine = engine_on(server.uri, backend="milvus-only")
    try:
        server.kill()
        a = engine.answer("dark chocolate")
    finally:
        engine.close()
    assert a.extras["recall_backend"] == "milvus" and a.extras["recall_fallback"] is None
    assert a.extras["sources"]["words"]["status"] == "failed" and a.extras["sources"]["vectors"]["status"] == "failed"
    assert a.extras["sources"]["lexical"]["status"] == "answered" and a.hits


def test_the_memory_router_asks_milvus_while_memory_vectors_are_still_indexing(server, tmp_path):
    # a cold cache of its own and no waiting: memory's vectors are not there yet, Milvus's are
    engine = engine_on(server.uri, backend="memory", wait_for_index=False, cache_dir=str(tmp_path / "cold"))
    try:
        a = engine.answer("vegan butter")
    finally:
        engine.close()
    assert a.extras["recall_backend"] == "milvus" and a.extras["recall_fallback"] is None
    assert a.extras["sources"]["vectors"]["status"] == "answered"


def test_the_breaker_lets_one_probe_through_when_its_time_is_up_and_a_failed_probe_reopens_it():
    now = [0.0]
    breaker = Breaker(clock=lambda: now[0])
    for _ in range(3):
        assert breaker.closed()
        breaker.record(False)
    assert not breaker.closed() and breaker.seconds_left() == 30.0
    now[0] = 30.0
    assert breaker.closed() and not breaker.closed()  # the probe, then nobody else while it is out
    breaker.record(False)
    assert not breaker.closed() and breaker.seconds_left() == 30.0  # re-opened by the failed probe
    now[0] = 60.0
    assert breaker.closed()
    breaker.record(True)
    assert breaker.closed() and breaker.closed() and breaker.in_a_row == 0
