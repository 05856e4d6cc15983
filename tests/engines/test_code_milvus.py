"""Code search on Milvus (issue 36): trees published as versions, answers matching the local engine's.

A real Milvus: milvus-lite's own binary on 127.0.0.1, started for this module and stopped by its PID;
pymilvus talks to it over the network as to a cluster. Two trees go into one collection: the demo
code tree and a second one (a few of this project's own modules, copied). Failures (a stalled or
killed server, the breaker, milvus-only) are in test_code_milvus_failures.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pymilvus", reason="the milvus extra: pip install -e '.[milvus]' (make test installs it)")

from engines.answer import collect  # noqa: E402
from engines.code.engine import CodeEngine  # noqa: E402
from engines.code.milvus import publish as pub  # noqa: E402
from engines.code.milvus.router import SearchSettings  # noqa: E402
from engines.locations import demo_corpus  # noqa: E402
from engines.milvus.server import LocalMilvus  # noqa: E402
from engines.milvus.versions import connect  # noqa: E402
from olai_tui.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# Questions and names over both trees; each tree's own rows must come first, and never the other tree's.
QUERIES = ["rate limiter", "RateLimiter", "how are tokens refilled", "parse config file", "retry with backoff",
           "circuit breaker opens after failures", "Breaker", "reciprocal rank fusion", "rrf", "quotas per source",
           "shopping cart total", "checkout", "open the breaker for a while"]
SECOND_TREE_FILES = ["engines/breaker.py", "engines/fusion.py", "engines/milvus/asking.py", "engines/milvus/versions.py"]


def second_tree(folder: Path) -> Path:
    for rel in SECOND_TREE_FILES:
        target = folder / "kit" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, target)
    return folder / "kit"


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    return {"shopfront": demo_corpus("code"), "kit": second_tree(tmp_path_factory.mktemp("trees"))}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    milvus = LocalMilvus(tmp_path_factory.mktemp("milvus") / "data.db").start()
    yield milvus
    milvus.stop()


@pytest.fixture(scope="module")
def local(trees, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache"))
    engines = {name: CodeEngine(root, wait_for_index=True, cache_dir=cache, contextual=True) for name, root in trees.items()}
    yield engines
    for engine in engines.values():
        engine.close()


@pytest.fixture(scope="module")
def published(server, local):
    client = connect(server.uri)
    done = {name: pub.publish_tree(client, engine, name, vectors=pub.tree_vectors(engine))
            for name, engine in local.items()}
    yield client, done
    client.close()


def on_milvus(server, root, tree, backend="milvus", cache=None, **settings) -> CodeEngine:
    return CodeEngine(root, wait_for_index=True, cache_dir=cache, contextual=True,
                      search=SearchSettings(backend=backend, uri=server.uri, tree=tree, **settings))


def ids(answer) -> list[str]:
    return [h.id for h in answer.hits]


def test_two_trees_go_into_one_collection_each_with_its_own_version(published, local):
    client, done = published
    assert {d["collection"] for d in done.values()} == {"olai_code"}
    for name, engine in local.items():
        assert done[name]["version"] == "v1" and done[name]["count"] == len(engine.symbols) > 0
        assert done[name]["vectors"] is True
    assert pub.status(client, "olai_code", "kit")["current"] == "v1"


@pytest.mark.parametrize("tiers", [("lexical",), ("lexical", "embedding")], ids=["lexical", "fused"])
def test_milvus_names_the_same_first_symbol_as_the_local_engine_on_both_trees(published, local, trees, server, tiers,
                                                                               tmp_path):
    for name, root in trees.items():
        remote = on_milvus(server, root, name, cache=str(tmp_path))
        other = {s.id for s in local["kit" if name == "shopfront" else "shopfront"].symbols}
        try:
            for query in QUERIES:
                theirs = collect("code", query, remote.search(query, 10, tiers))
                ours = collect("code", query, local[name].search(query, 10, tiers))
                assert theirs.extras["backend"] == "milvus" and theirs.extras["backend_fallback"] is None, query
                # BM25's statistics in Milvus are the collection's (both trees): the heads may differ below the top
                assert ids(theirs)[:1] == ids(ours)[:1], (name, query)
                assert theirs.total == ours.total
                assert "backend" not in ours.extras  # the local backend's answers stay as they were
                assert not other & set(ids(theirs))  # a tree's search never shows another tree's rows
        finally:
            remote.close()


def test_a_tree_alone_in_its_collection_answers_exactly_what_the_local_engine_answers(server, local, trees, tmp_path):
    client = connect(server.uri)
    engine = local["shopfront"]
    pub.publish_tree(client, engine, "shopfront", "olai_code_alone", vectors=pub.tree_vectors(engine))
    remote = on_milvus(server, trees["shopfront"], "shopfront", cache=str(tmp_path), collection="olai_code_alone")
    try:
        for tiers in (("lexical",), ("lexical", "embedding")):
            for query in QUERIES:
                theirs = collect("code", query, remote.search(query, 10, tiers))
                assert theirs.extras["backend"] == "milvus"
                assert ids(theirs) == ids(collect("code", query, engine.search(query, 10, tiers))), (tiers, query)
    finally:
        remote.close()
        client.close()


def test_the_fused_tier_answers_from_milvus_while_the_local_vectors_are_cold(published, trees, server, tmp_path):
    remote = on_milvus(server, trees["shopfront"], "shopfront", cache=str(tmp_path / "cold"))
    try:
        answer = collect("code", "how are tokens refilled",
                         remote.search("how are tokens refilled", 10, ("lexical", "embedding")))
        assert answer.extras["backend"] == "milvus" and answer.extras.get("merge") == "fused"
        assert answer.tier("embedding").status == "answered"
        assert remote.vectors.state().done == 0  # nothing embedded here: the vectors were Milvus's
    finally:
        remote.close()


def test_an_unchanged_tree_is_not_published_again_an_edited_one_is_and_rollback_returns(server, tmp_path):
    root = second_tree(tmp_path)
    client = connect(server.uri)
    engine = CodeEngine(root, cache_dir=str(tmp_path / "cache"), contextual=True)
    try:
        first = pub.publish_tree(client, engine, "edited")
        assert pub.published_unchanged(client, "olai_code", "edited", engine.symbols, None) == first["version"]
        (root / "engines" / "extra.py").write_text("def refill_tokens(bucket):\n    return bucket\n")
        engine.reload()
        assert pub.published_unchanged(client, "olai_code", "edited", engine.symbols, None) is None
        second = pub.publish_tree(client, engine, "edited")
        assert (first["version"], second["version"], second["previous"]) == ("v1", "v2", "v1")
        stale = on_milvus(server, root, "edited", cache=str(tmp_path / "cache"))
        try:
            assert collect("code", "refill", stale.search("refill")).extras["backend"] == "milvus"
            back = pub.rollback(client, "olai_code", "edited")
            assert back == {"tree": "edited", "version": "v1", "previous": "v2"}
            stale.close()
            stale = on_milvus(server, root, "edited", cache=str(tmp_path / "cache"))
            answer = collect("code", "refill", stale.search("refill"))
            # v1 holds the tree before the edit: not the one open here, so the local index answers and says why
            assert answer.extras["backend"] == "local"
            assert "holds another version of the tree" in answer.extras["backend_fallback"]
            assert any("holds another version" in n for n in stale.notices())
            assert ids(answer) == ids(collect("code", "refill", engine.search("refill")))
        finally:
            stale.close()
        with pytest.raises(pub.PublishError, match="no earlier version"):
            pub.rollback(client, "olai_code", "edited")
    finally:
        engine.close()
        client.close()


def test_a_version_whose_words_an_earlier_stemmer_read_is_refused_and_published_again(server, tmp_path):
    """Query words stemmed by Snowball would meet none of a version's light-stemmed words: the search
    says so and answers locally, and publish does not call that version unchanged."""
    root = second_tree(tmp_path)
    client = connect(server.uri)
    engine = CodeEngine(root, cache_dir=str(tmp_path / "cache"), contextual=True)
    try:
        first = pub.publish_tree(client, engine, "stemmed")
        meta = pub.version_meta(client, "olai_code", "stemmed", first["version"])
        assert meta["words"] == "snowball"
        del meta["words"]  # as a version published before the code engine's own stemmer recorded none
        pub._record(client, "olai_code", "stemmed", first["version"], meta)
        assert pub.published_unchanged(client, "olai_code", "stemmed", engine.symbols, None) is None
        old = on_milvus(server, root, "stemmed", cache=str(tmp_path / "cache"))
        try:
            answer = collect("code", "refill", old.search("refill"))
            assert answer.extras["backend"] == "local"
            assert "stemmed by an earlier reading of code (publish it again)" in answer.extras["backend_fallback"]
        finally:
            old.close()
        again = pub.publish_tree(client, engine, "stemmed")
        assert (again["version"], again["previous"]) == ("v2", "v1")
        fresh = on_milvus(server, root, "stemmed", cache=str(tmp_path / "cache"))
        try:
            assert collect("code", "refill", fresh.search("refill")).extras["backend"] == "milvus"
        finally:
            fresh.close()
    finally:
        engine.close()
        client.close()


def test_versions_past_the_last_three_are_deleted_never_the_current_one(server, tmp_path):
    root = second_tree(tmp_path)
    client = connect(server.uri)
    engine = CodeEngine(root, cache_dir=str(tmp_path / "cache"), contextual=True)
    try:
        for n in range(5):
            (root / "engines" / "more.py").write_text(f"def step_{n}():\n    return {n}\n")
            engine.reload()
            done = pub.publish_tree(client, engine, "pruned")
        assert done["version"] == "v5"
        listed = [v["version"] for v in pub.status(client, "olai_code", "pruned")["versions"]]
        assert listed == ["v3", "v4", "v5"]
        from engines.code.milvus.collection import TreeVersion, versions_filter
        from engines.milvus.versions import count

        assert count(client, "olai_code", versions_filter([TreeVersion("pruned", 1)])) == 0
        assert count(client, "olai_code", versions_filter([TreeVersion("pruned", 5)])) == len(engine.symbols)
    finally:
        engine.close()
        client.close()


def test_a_tree_published_as_words_only_answers_the_fused_tier_locally(server, trees, tmp_path):
    client = connect(server.uri)
    engine = CodeEngine(trees["kit"], cache_dir=str(tmp_path), wait_for_index=True, contextual=True)
    try:
        pub.publish_tree(client, engine, "words")
        remote = on_milvus(server, trees["kit"], "words", cache=str(tmp_path))
        try:
            answer = collect("code", "breaker", remote.search("breaker", 10, ("lexical", "embedding")))
            assert answer.extras["backend"] == "milvus"
            assert remote.vectors.state().state == "ready"  # Milvus has no vectors of it: the local tier embedded
        finally:
            remote.close()
    finally:
        engine.close()
        client.close()


def test_the_command_line_publishes_lists_and_searches_through_milvus(server, trees, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    corpus = str(trees["kit"])
    assert main(["index", "code", "--corpus", corpus, "--backend", "milvus", "--uri", server.uri, "--tree", "cli",
                 "--words-only"]) == 0
    assert "olai_code/cli -> v1" in capsys.readouterr().out
    assert main(["index", "code", "--corpus", corpus, "--backend", "milvus", "--uri", server.uri, "--tree", "cli",
                 "--words-only"]) == 0
    assert "unchanged" in capsys.readouterr().out
    assert main(["index", "code", "--corpus", corpus, "--backend", "milvus", "--uri", server.uri, "--tree", "cli",
                 "--status"]) == 0
    assert "* v1" in capsys.readouterr().out
    assert main(["search", "code", "breaker opens", "--corpus", corpus, "--backend", "milvus", "--uri", server.uri,
                 "--tree", "cli", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["backend"] == "milvus" and answer["hits"]
    assert main(["search", "code", "breaker opens", "--corpus", corpus, "--backend", "milvus", "--uri", server.uri,
                 "--tree", "cli"]) == 0
    assert "· via milvus ·" in capsys.readouterr().out
    assert main(["search", "code", "x", "--corpus", corpus, "--backend", "milvus"]) == 2
    assert "needs uri" in capsys.readouterr().err
