"""Speed and quality figures of the code engine (behind `olai-tui bench code`).

Corpora: the CoSQA functions (6,267; ../shared/data/code/cosqa), the standard library of the running
interpreter, installed modules (httpx) and the demo tree, or one `--corpus` of your own. Every
figure is measured in this run: parse + BM25 build, lexical and merged query times (p50/p95 over
the CoSQA dev queries as query texts), embedding build ms/symbol (cold, into a throwaway cache),
and on CoSQA, MRR@10, recall@1 and recall@10 of each configuration on dev-500 and held-out test-500
(tuned on neither: the constants were chosen on dev by engines/eval/tuning/code_fields.py; held-out is only read).
The CoSQA function vectors come from the user's vector cache (scope "cosqa"), embedded on first use.
"""

from __future__ import annotations

import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from engines.code.corpus import CodeSource, load_sources, module_sources, tree_source
from engines.eval.cosqa.load import SCOPE, load_functions, load_queries
from engines.code.engine import CANDIDATES, CodeEngine
from engines.code.lexical_tier import LexicalIndex
from engines.code.merge import EMBEDDING, LEXICAL, fill, fuse
from engines.eval.metrics import mrr_at, percentile, recall_at

COLD_SAMPLE = 300  # functions embedded cold for ms/symbol: ~15 s on 2 cores
PER = 10_000  # build times are also given per this many symbols (the target is per 10,000)


def _summary(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 3), "p95": round(percentile(values, 95), 3), "n": len(values)}


def _timed(fn: Callable):
    start = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - start) * 1000


def lexical_speed(name: str, load: Callable[[], list], queries: Sequence[str]) -> dict:
    """Parse (or read) + BM25 build, and lexical query times, for one corpus."""
    symbols, parse_ms = _timed(load)
    index, build_ms = _timed(lambda: LexicalIndex.build(symbols))
    for q in queries[:5]:  # warm-up
        index.search(q, 10)
    times = [_timed(lambda q=q: index.search(q, 10))[1] for q in queries]
    n = max(1, len(symbols))
    return {"corpus": name, "symbols": len(symbols), "parse_ms": round(parse_ms, 1), "bm25_build_ms": round(build_ms, 1),
            "parse_and_build_ms_per_10k": round((parse_ms + build_ms) * PER / n, 1), "lexical_query_ms": _summary(times)}


def stdlib_sources() -> list[CodeSource]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return [CodeSource(stdlib, stdlib, "stdlib")]


def embedding_cold_build(embedder, symbols: Sequence) -> dict:
    sample = list(symbols[:: max(1, len(symbols) // COLD_SAMPLE)])[:COLD_SAMPLE]
    with tempfile.TemporaryDirectory(prefix="olai-bench-") as cache:
        engine = CodeEngine(symbols=sample, embedder=embedder, static=False, cache_dir=cache, scope="bench-cold")
        _, ms = _timed(engine.build_index)
    return {"symbols": len(sample), "ms_per_symbol": round(ms / len(sample), 2)}


def cosqa_quality(engine: CodeEngine, queries: Sequence[tuple[str, str]]) -> dict:
    """MRR@10, recall@1, recall@10 per configuration, from the engine's own tier rankings."""
    configs: dict[str, list[list[str]]] = {c: [] for c in ("lexical", "embedding", "fused", "merged", "rrf-equal")}
    for query, _ in queries:
        lexical = engine.lexical_tier.search(query, CANDIDATES)
        meaning = engine.embedding_ranking(query).ranked
        ids = engine.symbols
        configs["lexical"].append([ids[p].id for p, _ in lexical[:10]])
        configs["embedding"].append([ids[p].id for p, _ in meaning[:10]])
        configs["fused"].append([ids[m.position].id for m in fuse(lexical, meaning, 10)])
        configs["merged"].append([ids[m.position].id for m in fill(lexical, meaning, 10)])
        configs["rrf-equal"].append([ids[m.position].id for m in fuse(lexical, meaning, 10, k=60,
                                                                       weights={LEXICAL: 1, EMBEDDING: 1}, heads={})])
    out = {}
    for config, ranked in configs.items():
        pairs = list(zip(ranked, (a for _, a in queries)))
        out[config] = {"mrr@10": round(sum(mrr_at(r, {a}, 10) for r, a in pairs) / len(pairs), 4),
                       "recall@1": round(sum(recall_at(r, {a}, 1) for r, a in pairs) / len(pairs), 4),
                       "recall@10": round(sum(recall_at(r, {a}, 10) for r, a in pairs) / len(pairs), 4)}
    return out


def merged_query_ms(engine: CodeEngine, queries: Sequence[str]) -> dict:
    for q in queries[:5]:
        list(engine.search(q, 10, tiers=(LEXICAL, EMBEDDING)))
    times = [_timed(lambda q=q: list(engine.search(q, 10, tiers=(LEXICAL, EMBEDDING))))[1] for q in queries]
    return _summary(times)


def bench_cosqa(folder: Path, heldout: Path | None, embedder, progress=None) -> dict:
    dev = load_queries(folder / "cosqa-retrieval-dev-500.json")
    texts = [q for q, _ in dev]
    out = lexical_speed("cosqa", lambda: load_functions(folder), texts)
    symbols = load_functions(folder)
    out["embedding_cold_build"] = embedding_cold_build(embedder, symbols)
    engine = CodeEngine(symbols=symbols, embedder=embedder, scope=SCOPE, wait_for_index=True, static=False)
    state = engine.build_index(progress=progress)
    if state.state != "ready":
        out["embedding"] = {"status": state.state, "reason": state.reason}
        return out
    out["merged_query_ms"] = merged_query_ms(engine, texts)
    out["quality"] = {"dev": cosqa_quality(engine, dev)}
    test = heldout / "cosqa-retrieval-test-500.json" if heldout is not None else None
    if test is not None and test.is_file():
        out["quality"]["heldout"] = cosqa_quality(engine, load_queries(test))  # reported, never tuned on
    return out


def bench_sources(name: str, make_sources: Callable[[], list[CodeSource]], queries: Sequence[str],
                  embedder=None) -> dict:
    out = lexical_speed(name, lambda: load_sources(make_sources()).symbols, queries)
    if embedder is not None:
        with tempfile.TemporaryDirectory(prefix="olai-bench-") as cache:
            engine = CodeEngine(symbols=load_sources(make_sources()).symbols, embedder=embedder, static=False, cache_dir=cache,
                                scope=name, wait_for_index=True)
            _, ms = _timed(engine.build_index)
            out["embedding_cold_build"] = {"symbols": len(engine.symbols),
                                           "ms_per_symbol": round(ms / max(1, len(engine.symbols)), 2)}
            out["merged_query_ms"] = merged_query_ms(engine, queries)
    return out


def sources_of(kind: str, value) -> Callable[[], list[CodeSource]]:
    if kind == "modules":
        return lambda: module_sources(list(value))
    return lambda: [tree_source(value)]
