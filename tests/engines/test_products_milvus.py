"""Recall on Milvus (issue 8): publishing with an alias swap, rollback, and answers matching memory's.

A real Milvus: milvus-lite's own binary on 127.0.0.1, started for this module and stopped by its PID;
pymilvus talks to it over the network as to a cluster. The catalogue is the default food fixture.
Failures (a stalled server, the breaker, a server killed mid-run) are in test_products_milvus_failures.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("pymilvus", reason="the milvus extra: pip install -e '.[milvus]' (make test installs it)")

from engines.eval.food.load import load_food_requests  # noqa: E402
from engines.products.backends import publish as pub  # noqa: E402
from engines.milvus.server import LocalMilvus  # noqa: E402
from engines.products.backends.router import RecallRouter, RecallSettings, router_for  # noqa: E402
from engines.products.engine import ProductsEngine  # noqa: E402
from olai_tui.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "products"
ALIAS = "olai_products"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    milvus = LocalMilvus(tmp_path_factory.mktemp("milvus") / "data.db").start()
    yield milvus
    milvus.stop()


@pytest.fixture(scope="module")
def memory():
    engine = ProductsEngine(FIXTURE, wait_for_index=True)
    engine.build_index()
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def published(server, memory):
    client = pub.connect(server.uri)
    vectors = pub.catalogue_vectors(memory)
    first = pub.publish(client, ALIAS, memory.catalogue, memory.knowledge, memory.index.masks, vectors,
                        memory.vectors.embedder.info().model_id)
    return client, vectors, first


@pytest.fixture(scope="module")
def on_milvus(server, published):
    engine = ProductsEngine(FIXTURE, wait_for_index=True)
    engine.router = router_for(engine, RecallSettings(backend="milvus", uri=server.uri))
    yield engine
    engine.close()


def publish_again(memory, client, vectors):
    return pub.publish(client, ALIAS, memory.catalogue, memory.knowledge, memory.index.masks, vectors,
                       memory.vectors.embedder.info().model_id)


def test_publishing_fills_a_version_and_points_the_alias_at_it_once_the_count_matches(published, memory):
    client, _, first = published
    assert first["collection"] == f"{ALIAS}_v1" and first["previous"] is None
    assert first["count"] == len(memory.products) == pub.count(client, first["collection"])
    assert pub.read_pointer(client, ALIAS).current == first["collection"]


def test_milvus_answers_the_same_first_product_as_memory_on_the_food_dev_requests(on_milvus, memory):
    requests = [r.text for r in load_food_requests("dev")]
    same_first, same_words, same_vectors = 0, 0, 0
    for text in requests:
        theirs, ours = on_milvus.answer(text), memory.answer(text)
        assert theirs.extras["recall_fallback"] is None, (text, theirs.extras["recall_fallback"])
        if theirs.extras["sources"].get("vectors") or theirs.extras["sources"].get("words"):
            assert theirs.extras["recall_backend"] == "milvus", text
        same_first += [h.id for h in theirs.hits[:1]] == [h.id for h in ours.hits[:1]]
        mine, remote = memory.explain(text, k=60), _lists(on_milvus, text)
        same_words += remote["words"] == mine["sources"].get("words", [])
        same_vectors += remote["vectors"] == mine["sources"].get("vectors", [])
    assert same_first / len(requests) >= 0.95, f"{same_first}/{len(requests)} same first product"
    # the lists themselves: BM25 over the same tokens and a flat (exact) vector index
    assert same_words / len(requests) >= 0.9 and same_vectors / len(requests) >= 0.9, (same_words, same_vectors)


def _lists(engine, text):
    request = engine.understand(text)
    found, backend, _ = engine.router.recall(engine, request, ("code", "lexical", "typo", "words", "kinds", "vectors"),
                                             engine.index.masks.allowed(request))
    ids = lambda positions: [engine.products[i].id for i in positions]  # noqa: E731
    return {name: ids(found.lists.get(name, [])) for name in ("words", "vectors")}


def test_hard_rules_hold_on_what_milvus_returns(on_milvus):
    a = on_milvus.answer("oat drink without soy", limit=40)
    assert a.extras["recall_backend"] == "milvus" and a.hits
    for hit in a.hits:
        assert "soy" not in hit.extras["allergens"] and "soy" not in hit.extras["traces"]
        assert hit.extras["allergen_data"]


def test_a_second_publish_moves_the_alias_keeps_the_first_and_rollback_moves_it_back(published, memory, on_milvus):
    client, vectors, first = published
    second = publish_again(memory, client, vectors)
    assert second["collection"] == f"{ALIAS}_v2" and second["previous"] == first["collection"]
    assert pub.read_pointer(client, ALIAS).current == second["collection"]
    assert client.has_collection(first["collection"])
    state = pub.status(client, ALIAS)
    assert [(v["collection"], v["current"]) for v in state["versions"]] == [(first["collection"], False),
                                                                             (second["collection"], True)]
    back = pub.rollback(client, ALIAS)
    assert back == {"alias": ALIAS, "collection": first["collection"], "previous": second["collection"]}
    on_milvus.router.milvus.forget()  # a search resolves the alias again: it answers from v1
    assert on_milvus.answer("vegan butter").extras["recall_backend"] == "milvus"
    assert on_milvus.router.milvus.collection == first["collection"]
    with pytest.raises(pub.PublishError, match="no earlier version"):
        pub.rollback(client, ALIAS)


def test_old_versions_are_pruned_but_never_the_one_behind_the_alias_nor_the_one_before_it(published, memory):
    client, vectors, _ = published
    for _ in range(3):
        done = publish_again(memory, client, vectors)
    state = pub.read_pointer(client, ALIAS)
    assert state.current == done["collection"] and len(state.versions) == pub.KEEP_VERSIONS
    assert all(client.has_collection(v) for v in state.versions)
    pub.rollback(client, ALIAS)
    behind = pub.read_pointer(client, ALIAS).current
    publish_again(memory, client, vectors)
    assert client.has_collection(behind)


def test_a_publish_that_cannot_match_the_count_leaves_the_alias_where_it_was(published, memory):
    client, vectors, _ = published
    before = pub.read_pointer(client, ALIAS).current
    with pytest.raises(pub.PublishError, match="vectors for"):
        pub.publish(client, ALIAS, memory.catalogue, memory.knowledge, memory.index.masks, vectors[:-1], "m")
    assert pub.read_pointer(client, ALIAS).current == before


def test_a_collection_of_another_catalogue_is_refused_and_memory_answers(server, published):
    other = ProductsEngine(FIXTURE, wait_for_index=True)
    other.catalogue.products.pop()  # not the catalogue that was published
    other.router = router_for(other, RecallSettings(backend="milvus", uri=server.uri, collection=ALIAS))
    try:
        a = other.answer("dark chocolate")
    finally:
        other.close()
    assert a.extras["recall_backend"] == "memory"
    assert "another catalogue" in a.extras["recall_fallback"]


def test_the_cli_publishes_lists_and_rolls_back_in_one_line_each(server, published, capsys):
    assert main(["index", "products", "--backend", "milvus", "--uri", server.uri]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith(f"{ALIAS} -> {ALIAS}_v") and "929 products" in out[-1]
    assert main(["index", "products", "--backend", "milvus", "--uri", server.uri, "--status"]) == 0
    listed = capsys.readouterr().out.strip().splitlines()
    assert listed[0].startswith(f"{ALIAS} -> ") and sum(line.startswith("*") for line in listed) == 1
    assert main(["index", "products", "--backend", "milvus", "--uri", server.uri, "--rollback"]) == 0
    assert "(was " in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["index", "products", "--backend", "milvus"],
                                  ["index", "products", "--uri", "http://127.0.0.1:1", "--status"],
                                  ["index", "notes", "--backend", "milvus", "--uri", "http://127.0.0.1:1"],
                                  ["index", "products", "--backend", "cassandra"]])
def test_bad_index_arguments_are_one_line_and_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("olai-tui: ")


def test_a_refused_milvus_is_one_line_and_exit_1(capsys):
    started = time.monotonic()
    code = main(["index", "products", "--backend", "milvus", "--uri", "http://127.0.0.1:1", "--status"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "127.0.0.1:1" in err[0] and "Traceback" not in err[0]
    assert time.monotonic() - started < 30


def test_the_default_router_is_memory_and_says_so(memory):
    a = memory.answer("dark chocolate")
    assert a.extras["recall_backend"] == "memory" and a.extras["recall_fallback"] is None
    assert memory.answer("").extras["recall_backend"] is None  # recall did not run
    with pytest.raises(ValueError, match="no Milvus configured"):
        RecallRouter("milvus")


def test_the_cli_publishes_again_only_when_the_rows_changed(server, published, capsys):
    # every version here holds the fixture's rows: the one behind the alias already has them
    assert main(["index", "products", "--backend", "milvus", "--uri", server.uri]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith(f"{ALIAS} -> {ALIAS}_v") and "(unchanged: 929 products as published" in line
    before = pub.read_pointer(pub.connect(server.uri), ALIAS).current
    assert main(["index", "products", "--backend", "milvus", "--uri", server.uri, "--force"]) == 0
    assert f"; was {before}" in capsys.readouterr().out
