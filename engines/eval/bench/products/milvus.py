"""Memory against Milvus in one run: publish time, recall p50/p90, the same first product, a stalled server.

    .venv/bin/python -m engines.eval.bench.products.milvus [--corpus PATH] [--uri URI] [--json]

Without ``--uri`` it starts milvus-lite's binary on 127.0.0.1 over a temporary data file and stops
it at the end. The requests are the Icecat dev queries (``ratings-dev.csv`` beside the catalogue) or
the food dev requests. Every request is asked of both backends in turn, ``REPEATS`` times; recall is
timed alone (reading the words, the rules, every source, the fusion; the query embedding included)
and end to end (``answer``: the three tiers). Then the server is stalled (SIGSTOP) and the fallback
is timed: what a buyer waits while Milvus does not answer.

``milvus_engine`` is what ``olai-tui eval products --configs smart_milvus`` calls: the same engine,
its recall routed through Milvus (memory the fallback), published first when needed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from engines.breaker import Breaker
from engines.eval.metrics import percentile
from engines.locations import demo_corpus
from engines.products.backends import publish as pub
from engines.milvus.server import LocalMilvus
from engines.products.backends.router import RecallSettings, catalogue_name, router_for
from engines.products.engine import ProductsEngine
from engines.products.recall import SOURCES

REPEATS = 3  # as engines/eval/bench/products/measure.py: every request three times, every timing kept
STALLED_ASKS = 20  # requests asked while the server is stopped, each with a fresh breaker


@contextmanager
def milvus_engine(corpus: str | Path, uri: str | None = None, backend: str = "milvus", data_dir: str | None = None):
    """Yield (a ProductsEngine whose recall goes through Milvus, facts: uri, collection, publish_s).

    With no ``uri``, milvus-lite's binary runs on loopback for the duration; the catalogue is published
    when the alias does not already name this catalogue. The engine's vectors come from the cache."""
    engine = ProductsEngine(corpus, wait_for_index=True)
    server = None
    with tempfile.TemporaryDirectory(prefix="olai-milvus-", dir=data_dir) as scratch:
        try:
            if uri is None:
                server = LocalMilvus(Path(scratch) / "data.db").start()
                uri = server.uri
            facts = ensure_published(engine, uri)
            engine.router = router_for(engine, RecallSettings(backend=backend, uri=uri))
            facts["server"] = server
            yield engine, facts
        finally:
            engine.close()
            if server is not None:
                server.stop()


def ensure_published(engine: ProductsEngine, uri: str) -> dict:
    from engines.products.backends.collection import fingerprint

    client = pub.connect(uri)
    alias = pub.alias_for(catalogue_name(engine.catalogue))
    try:
        state = pub.read_pointer(client, alias)
        if state.current and pub.describe(client, state.current).get("fingerprint") == \
                fingerprint(engine.catalogue, engine.knowledge):
            return {"uri": uri, "collection": state.current, "publish_s": None}
        vectors = pub.catalogue_vectors(engine)
        done = pub.publish(client, alias, engine.catalogue, engine.knowledge, engine.index.masks, vectors,
                           engine.vectors.embedder.info().model_id)
        return {"uri": uri, "collection": done["collection"], "publish_s": done["publish_s"], "fill_s": done["fill_s"]}
    finally:
        client.close()


def _timed_recall(engine: ProductsEngine, text: str):
    started = time.perf_counter()
    request = engine.understand(text)
    found, backend, fallback = engine.router.recall(engine, request, SOURCES, engine.index.masks.allowed(request))
    return (time.perf_counter() - started) * 1000, found, backend, fallback


def compare(corpus: Path, queries: list[str], uri: str | None = None, say=lambda text: None) -> dict:
    memory = ProductsEngine(corpus, wait_for_index=True)
    state = memory.build_index()
    if state.state != "ready":
        return {"corpus": str(corpus), "note": f"vectors {state.state}: {state.reason}"}
    say(f"{len(memory.products):,} products; publishing")
    with milvus_engine(corpus, uri) as (remote, facts):
        say(f"published {facts['collection']} in {facts['publish_s']} s; timing {len(queries)} requests x {REPEATS}")
        timings = {"memory": [], "milvus": []}
        ends = {"memory": [], "milvus": []}
        same_first, overlap, fell_back = 0, [], {}
        for name, engine in (("memory", memory), ("milvus", remote)):  # warm: model contexts, connection
            engine.answer(queries[0])
        for repeat in range(REPEATS):
            for text in queries:
                ms_m, found_m, _, _ = _timed_recall(memory, text)
                ms_r, found_r, backend, fallback = _timed_recall(remote, text)
                timings["memory"].append(ms_m)
                timings["milvus"].append(ms_r)
                if fallback is not None:  # a code said outright is a lookup in memory, not a fallback
                    fell_back[fallback] = fell_back.get(fallback, 0) + 1
                for name, engine in (("memory", memory), ("milvus", remote)):
                    started = time.perf_counter()
                    answer = engine.answer(text)
                    ends[name].append((time.perf_counter() - started) * 1000)
                    if name == "memory":
                        first_m = [h.id for h in answer.hits[:1]]
                    elif repeat == 0:
                        same_first += [h.id for h in answer.hits[:1]] == first_m
                if repeat == 0:
                    a = {pos for pos, _, _ in found_m.fused[:40]}
                    b = {pos for pos, _, _ in found_r.fused[:40]}
                    overlap.append(len(a & b) / max(1, len(a | b)))
        stalled = _stalled(remote, facts.get("server"), queries)
    memory.close()
    out = {"corpus": str(corpus), "products": len(memory.products), "queries": len(queries),
           "collection": facts["collection"], "publish_s": facts["publish_s"], "fill_s": facts.get("fill_s"),
           "same_first_product": round(same_first / len(queries), 4), "fused_top40_jaccard_mean":
               round(sum(overlap) / len(overlap), 4), "milvus_fell_back": fell_back}
    for name in ("memory", "milvus"):
        out[f"{name}_recall_p50_ms"] = round(percentile(timings[name], 50), 2)
        out[f"{name}_recall_p90_ms"] = round(percentile(timings[name], 90), 2)
        out[f"{name}_answer_p50_ms"] = round(percentile(ends[name], 50), 2)
        out[f"{name}_answer_p90_ms"] = round(percentile(ends[name], 90), 2)
    out.update(stalled)
    return out


def _stalled(engine: ProductsEngine, server: LocalMilvus | None, queries: list[str]) -> dict:
    if server is None:
        return {"stalled": "not measured: a server given by --uri is not stopped by this bench"}
    server.stall()
    try:
        waits, answered_by = [], set()
        for text in (queries * 2)[:STALLED_ASKS]:
            engine.router.breaker = Breaker()  # a closed breaker each time: every request waits the deadline
            ms, _, backend, fallback = _timed_recall(engine, text)
            waits.append(ms)
            answered_by.add(f"{backend}: {fallback}")
    finally:
        server.resume()
    return {"deadline_ms": round(engine.router.deadline_s * 1000), "stalled_recall_p50_ms": round(percentile(waits, 50), 1),
            "stalled_recall_max_ms": round(max(waits), 1), "stalled_answered_by": sorted(answered_by)}


def main(argv: list[str] | None = None) -> int:
    from engines.eval.bench.products.measure import default_queries, icecat_queries

    parser = argparse.ArgumentParser(prog="python -m engines.eval.bench.products.milvus")
    parser.add_argument("--corpus", default=str(demo_corpus("products")))
    parser.add_argument("--uri", help="a Milvus already running (default: milvus-lite's binary on loopback)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.exists():
        print(f"bench: {corpus}: no such file or directory", file=sys.stderr)
        return 2
    folder = corpus if corpus.is_dir() else corpus.parent
    queries = icecat_queries(folder) or default_queries()
    result = compare(corpus, queries, args.uri, say=lambda text: print(f"bench: {text}", file=sys.stderr))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
