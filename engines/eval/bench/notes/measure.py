"""Speed, memory and quality figures of the notes engine on one corpus (behind `olai-tui bench notes`).

Every figure is measured in this run: a cold index build into an empty cache, a warm rebuild after
one edit, per-query timings of each tier (medians and 90th/95th percentiles: the machine is shared
and noisy), resident memory, and, where the corpus has judgements, nDCG@10 and MRR@10 of the exact
tier alone, the semantic tier alone and the merged answer (every tier, as shipped). The baseline for throughput is the same
passages embedded one text per call, timed in the same run.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from typing import Callable, Mapping, Sequence

from engines.answer import collect
from engines.embed.llama import LlamaEmbedder
from engines.eval.metrics import mrr_at, ndcg_at, percentile
from engines.notes.corpus import Note
from engines.notes.engine import EXACT, SEMANTIC, TIERS, NotesEngine

BASELINE_SAMPLE = 200  # passages embedded one per call for the baseline: ~5 s on 2 cores


def resident_mb() -> float:
    """Resident memory now (VmRSS), in MB."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _summary(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 3), "p90": round(percentile(values, 90), 3),
            "p95": round(percentile(values, 95), 3), "n": len(values)}


def bench_corpus(name: str, engine: NotesEngine, embedder: LlamaEmbedder, queries: Sequence[str],
                 judged: Mapping[str, Mapping[str, float]] | None = None,
                 query_ids: Sequence[str] | None = None,
                 progress: Callable[[int, int], None] | None = None, baseline: bool = False) -> dict:
    """Figures for one corpus. ``engine`` must use a cold (empty) cache_dir for the build figures."""
    out: dict = {"corpus": name, "notes": len(engine.notes)}

    start = time.perf_counter()
    state = engine.build_index(progress=progress)
    build_s = (time.perf_counter() - start)
    if state.state != "ready":
        out["semantic"] = {"status": state.state, "reason": state.reason}
        return out
    embedded = engine.semantic.embedded_texts
    tokens = sum(embedder.count_tokens(t) for t in embedded)
    out["cold_build"] = {
        "seconds": round(build_s, 2), "passages": len(embedded), "tokens": tokens,
        "tokens_per_s": round(tokens / build_s), "ms_per_note": round(build_s * 1000 / max(1, len(engine.notes)), 2),
    }
    if baseline:
        out["cold_build"]["baseline_one_per_call_tokens_per_s"] = _one_per_call_rate(embedder, embedded)
    out["warm_rebuild_after_one_edit"] = _warm_rebuild(engine)
    out["rss_mb_after_indexing"] = round(resident_mb(), 1)

    for q in queries[:5]:  # warm-up: first calls pay for allocations, not for the work
        embedder.embed([q], "query")
    embed_ms = []
    for q in queries:
        start = time.perf_counter()
        embedder.embed([q], "query")
        embed_ms.append(_ms_since(start))
    out["query_embedding_ms"] = _summary(embed_ms)

    tier_ms: dict[str, list[float]] = {EXACT: [], SEMANTIC: []}
    ranked: dict[str, list[list[str]]] = {"exact": [], "semantic": [], "merged": []}
    for q in queries:
        for config, tiers in (("exact", (EXACT,)), ("semantic", (SEMANTIC,)), ("merged", TIERS)):
            answer = collect("notes", q, engine.search(q, limit=10, tiers=tiers))
            ranked[config].append([h.id for h in answer.hits])
            if config != "merged":
                report = answer.tier(tiers[0])
                if report.ms is not None:
                    tier_ms[tiers[0]].append(report.ms)
    out["exact_tier_ms"] = _summary(tier_ms[EXACT])
    out["semantic_leg_ms"] = _summary(tier_ms[SEMANTIC])

    if judged is not None and query_ids is not None:
        quality = {}
        for config, lists in ranked.items():
            ndcg = [ndcg_at(r, judged[qid], 10) for r, qid in zip(lists, query_ids)]
            mrr = [mrr_at(r, judged[qid], 10) for r, qid in zip(lists, query_ids)]
            quality[config] = {"ndcg@10": round(sum(ndcg) / len(ndcg), 4), "mrr@10": round(sum(mrr) / len(mrr), 4)}
        out["quality"] = quality
    return out


def _warm_rebuild(engine: NotesEngine) -> dict:
    notes = list(engine.notes)
    i = len(notes) // 2
    edited = dataclasses.replace(notes[i], body=notes[i].body + "\n\nEdited for the benchmark.")
    notes[i] = edited
    engine.set_notes(notes)
    before = len(engine.semantic.embedded_texts)
    start = time.perf_counter()
    engine.build_index()
    ms = _ms_since(start)
    return {"ms": round(ms, 1), "passages_embedded": len(engine.semantic.embedded_texts) - before}


def _one_per_call_rate(embedder: LlamaEmbedder, texts: Sequence[str]) -> int:
    sample = list(texts[:: max(1, len(texts) // BASELINE_SAMPLE)])[:BASELINE_SAMPLE]
    tokens = sum(embedder.count_tokens(t) for t in sample)
    start = time.perf_counter()
    for text in sample:
        embedder.embed([text], "document")
    return round(tokens / (time.perf_counter() - start))


def cold_engine(root, embedder: LlamaEmbedder, notes: list[Note] | None = None,
                wait_for_index: bool = True) -> tuple[NotesEngine, tempfile.TemporaryDirectory]:
    """An engine over an empty cache of its own (the caller cleans the directory up); ``wait_for_index``
    False: its index builds in the background, as the workbench has it."""
    cache = tempfile.TemporaryDirectory(prefix="olai-bench-")
    engine = NotesEngine(root, embedder=embedder, cache_dir=cache.name, wait_for_index=wait_for_index, notes=notes)
    return engine, cache
