"""`olai-tui bench code`: the code engine's speed, memory and quality, as a table or as JSON.

CoSQA (speed and quality, dev and held-out), the standard library, httpx and the demo tree; or one
`--corpus` tree, opened cold and warm in fresh processes (engines/eval/bench/code/large_tree.py). Declared for
the CLI in engines/eval/bench/__init__.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from engines.errors import BadInput
from engines.eval.emit import corpora_report, emit, machine
from engines.locations import demo_corpus as default_corpus, shared_data, shared_heldout

if TYPE_CHECKING:
    from engines.contract import Console

CODE_QUERIES = [
    "where do we throttle requests", "retry with backoff", "load settings from the environment", "hash a password",
    "expiring cache", "write a file atomically", "order total with tax", "parse a url", "send a request with a timeout",
    "decode json", "follow redirects", "check a signed token",
]


def bench_code(corpus: Path | None, as_json: bool, quick: bool, console: Console) -> int:
    """`olai-tui bench code`: CoSQA (speed and quality, dev and held-out), the standard library,
    httpx and the demo tree; or one --corpus (bench_code_tree). --quick: no CoSQA quality, no embedding of httpx."""
    from engines.eval.bench.code import measure as code_bench
    from engines.eval.model import ready_embedder

    if corpus is not None:
        return bench_code_tree(corpus, as_json, quick, console)
    embedder = ready_embedder("code")  # OLAI_EMBED_MODEL / config.toml [code] model
    cosqa = shared_data() / "code" / "cosqa"
    queries = CODE_QUERIES
    if cosqa.is_dir():
        from engines.eval.cosqa.load import load_queries

        queries = [q for q, _ in load_queries(cosqa / "cosqa-retrieval-dev-500.json")]
    results = []
    if cosqa.is_dir() and not quick:
        progress = console.progress("embedding the CoSQA functions (once; cached)")
        results.append(code_bench.bench_cosqa(cosqa, shared_heldout() / "code", embedder, progress))
        progress.finish()
    results.append(code_bench.bench_sources("stdlib", code_bench.stdlib_sources, queries))
    results.append(code_bench.bench_sources("httpx (--modules)", code_bench.sources_of("modules", ["httpx"]),
                                            queries, None if quick else embedder))
    results.append(code_bench.bench_sources("demo tree", code_bench.sources_of("tree", default_corpus("code")),
                                            queries, embedder))
    return emit(corpora_report("code", embedder.info().model_id, results), as_json, print_code_report, console.out)


def print_code_report(report: dict, out: Callable[[str], None]) -> None:
    out(f"olai-tui bench code · model {report['model']} · {report['machine']['cpus']} CPUs")
    out("")
    out("| corpus | symbols | parse ms | BM25 build ms | parse+build ms per 10k | lexical p50/p95 ms "
          "| embed ms/symbol (cold) | merged p50/p95 ms |")
    out("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in report["corpora"]:
        lq, cold, merged = r["lexical_query_ms"], r.get("embedding_cold_build"), r.get("merged_query_ms")
        cold_text = f"{cold['ms_per_symbol']:.1f} ({cold['symbols']})" if cold else "-"
        merged_text = f"{merged['p50']:.2f} / {merged['p95']:.2f}" if merged else "-"
        out(f"| {r['corpus']} | {r['symbols']:,} | {r['parse_ms']:.0f} | {r['bm25_build_ms']:.0f} "
              f"| {r['parse_and_build_ms_per_10k']:.0f} | {lq['p50']:.2f} / {lq['p95']:.2f} "
              f"| {cold_text} | {merged_text} |")
    for r in report["corpora"]:
        for split, configs in r.get("quality", {}).items():
            out(f"\n{r['corpus']} {split} ({'test-500, never tuned on' if split == 'heldout' else 'dev-500'}):")
            out("| answer | MRR@10 | recall@1 | recall@10 |")
            out("|---|---:|---:|---:|")
            for config, q in configs.items():
                out(f"| {config} | {q['mrr@10']:.4f} | {q['recall@1']:.4f} | {q['recall@10']:.4f} |")


SCALE_QUERY = "flat hash map insert"  # the monorepo query: the first answer timed


def bench_code_tree(corpus: Path, as_json: bool, quick: bool, console: Console) -> int:
    """`olai-tui bench code --corpus DIR`: cold and warm opens of one tree in fresh processes, query
    p50 / p90, RSS, the index on disk and one edited file (engines/eval/bench/code/large_tree.py). --quick: one
    warm open and no baseline."""
    from engines.eval.bench.code.large_tree import bench_tree, unreadable_tree

    why = unreadable_tree(corpus)
    if why:
        raise BadInput(f"--corpus: {why}")
    queries = [SCALE_QUERY] + CODE_QUERIES
    cosqa = shared_data() / "code" / "cosqa" / "cosqa-retrieval-dev-500.json"
    if cosqa.is_file():
        from engines.eval.cosqa.load import load_queries

        queries += [q for q, _ in load_queries(cosqa)]
    result = bench_tree(corpus, queries, warm_runs=1 if quick else 3, baseline=not quick)
    report = {"engine": "code", "machine": machine(load_1min=round(os.getloadavg()[0], 2)), "tree": result}
    return emit(report, as_json, print_tree_report, console.out)


def print_tree_report(report: dict, out: Callable[[str], None]) -> None:
    r, corpus = report["tree"], report["tree"]["corpus"]
    out(f"olai-tui bench code --corpus {corpus} · {report['machine']['cpus']} CPUs · load {report['machine']['load_1min']}")
    out(f"{r['symbols']:,} symbols in {r['files']:,} files; index on disk {r['index_mb']:.1f} MB")
    out("")
    out("| open | to engine s | to first lexical answer s | its CPU s | RSS MB (peak) | runs |")
    out("|---|---:|---:|---:|---:|---:|")
    rows = [("cold (every file parsed, index written)", r["cold"]), ("warm (index read back)", r["warm"]),
            ("warm, lexical only (`--tiers lexical`), paired with the next row", r["warm_lexical_only"]),
            ("warm, default settings (both tiers: meaning read back too)", r["warm_default"])]
    if "baseline_no_kept_index" in r:
        rows.append(("baseline: no kept index (every file parsed)", r["baseline_no_kept_index"]))
    for name, o in rows:
        out(f"| {name} | {o['open_s']:.2f} | {o['first_answer_s']:.2f} | {o['cpu_s']:.2f} "
              f"| {o['rss_mb']:.0f} ({o['peak_rss_mb']:.0f}) "
              f"| {o['runs']} |")
    q, e = r["lexical_query_ms"], r["edit"]
    out("")
    out(f"warm with default settings over warm lexical-only: {r['warm_default_over_lexical']:.2f}x wall, "
        f"{r['warm_default_over_lexical_cpu']:.2f}x CPU "
        f"(embedding tier: {', '.join(map(str, r['warm_default']['embedding']))})")
    out(f"lexical query p50 / p90: {q['p50']:.2f} / {q['p90']:.2f} ms over {q['n']} queries (warm)")
    out(f"one edited file ({e['file']}) re-indexed: {e['ms']:.0f} ms ({e['cpu_ms']:.0f} ms CPU; found after: "
          f"{e['found']}); files parsed by the warm opens: "
          f"{r['warm_parsed_files']}")
    out(f"embedding tier: {r['embedding']}")
