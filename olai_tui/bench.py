"""`olai-tui bench notes`: the notes engine's speed, memory and quality, printed or as JSON.

Corpora: the demo notebook, the olai roadmap and the Vaswani collection (../shared/data/notes),
or one `--corpus` of your own: a folder is benchmarked as a vault (olai_tui/bench_vault.py: opened
cold and warm, the evidence tiers, the semantic leg at its size), a note file as the corpora above. Each is indexed cold into a throwaway cache, so a run takes a few
minutes (the 11,429 Vaswani abstracts are most of it); `--quick` leaves Vaswani out.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

from engines.locations import demo_corpus as default_corpus, shared_data, shared_heldout
from olai_tui.emit import emit
from olai_tui.errors import UsageError
from olai_tui.progress import Progress

DEMO_QUERIES = [
    "seedlings", "protecting young plants from snails", "jam", "sharpening", "my table in the shed rocks",
    "compost", "keeping blades keen", "copper tape", "rainwater tank leaking at the tap", "varnish",
    "frost", "what to sow in march", "rust on tools", "pickling", "bench vice",
]
ROADMAP_QUERIES = [
    "search", "nix flake", "command palette", "semantic recall", "mobile", "keyboard shortcuts",
    "drag and drop", "undo", "agent chat", "sync between devices", "outline mirrors", "dark theme",
    "export to markdown", "performance of large outlines", "tests in CI",
]




def bench(engine_name: str, corpus: Path | None, as_json: bool, quick: bool) -> int:
    if corpus is not None and corpus.is_dir():
        from olai_tui.bench_vault import bench_vault_command

        return bench_vault_command(corpus, as_json, quick)
    from engines.eval.collections import load_vaswani
    from engines.eval.model import ready_embedder
    from engines.eval.notes_bench import bench_corpus, cold_engine
    embedder = ready_embedder("notes")  # OLAI_EMBED_MODEL / config.toml [notes] model

    runs = []
    if corpus is not None:
        runs.append((str(corpus), corpus, None, DEMO_QUERIES, None, None))
    else:
        vaswani_dir = shared_data() / "notes" / "vaswani"
        if not quick and vaswani_dir.is_dir():
            c = load_vaswani(vaswani_dir)
            ids = sorted(c.queries, key=int)
            runs.append(("vaswani", vaswani_dir / "doc-text.trec", c.notes, [c.queries[i] for i in ids], c.judged, ids))
        roadmap = shared_data() / "notes" / "olai-roadmap.jsonl"
        if roadmap.is_file():
            runs.append(("olai-roadmap", roadmap, None, ROADMAP_QUERIES, None, None))
        runs.append(("demo notebook", default_corpus("notes"), None, DEMO_QUERIES, None, None))

    results = []
    for name, root, notes, queries, judged, ids in runs:
        engine, cache = cold_engine(root, embedder, notes=notes)
        try:
            progress = Progress(f"indexing {name}")
            result = bench_corpus(name, engine, embedder, queries, judged=judged, query_ids=ids,
                                  progress=progress, baseline=(name == "vaswani"))
            progress.finish()
        finally:
            engine.close()
            cache.cleanup()
        results.append(result)

    report = {"engine": engine_name, "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
              "model": embedder.info().model_id, "corpora": results}
    return emit(report, as_json, print_report)


def print_report(report: dict) -> None:
    print(f"olai-tui bench notes · model {report['model']} · {report['machine']['cpus']} CPUs")
    print()
    print("| corpus | notes | query embed p50/p95 ms | exact p50 ms | semantic leg p50 ms | cold build tokens/s | ms/note | warm rebuild ms (passages) | RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in report["corpora"]:
        if "cold_build" not in r:
            print(f"| {r['corpus']} | {r['notes']:,} | semantic {r['semantic']['status']}: {r['semantic']['reason']} |")
            continue
        e, b, w = r["query_embedding_ms"], r["cold_build"], r["warm_rebuild_after_one_edit"]
        print(f"| {r['corpus']} | {r['notes']:,} | {e['p50']:.2f} / {e['p95']:.2f} | {r['exact_tier_ms']['p50']:.2f} "
              f"| {r['semantic_leg_ms']['p50']:.2f} | {b['tokens_per_s']:,} | {b['ms_per_note']:.1f} "
              f"| {w['ms']:.0f} ({w['passages_embedded']}) | {r['rss_mb_after_indexing']:.0f} |")
    for r in report["corpora"]:
        base = r.get("cold_build", {}).get("baseline_one_per_call_tokens_per_s")
        if base:
            b = r["cold_build"]
            print(f"\n{r['corpus']}: cold build {b['seconds']:.0f} s for {b['passages']:,} passages / {b['tokens']:,} tokens; "
                  f"batched {b['tokens_per_s']:,} tokens/s against {base:,} tokens/s one text per call "
                  f"(x{b['tokens_per_s'] / base:.2f}, same run)")
        if "quality" in r:
            print(f"\n{r['corpus']} quality ({len(r.get('quality', {}))} configurations, {r['query_embedding_ms']['n']} queries):")
            print("| answer | nDCG@10 | MRR@10 |")
            print("|---|---:|---:|")
            for config, q in r["quality"].items():
                print(f"| {config} | {q['ndcg@10']:.4f} | {q['mrr@10']:.4f} |")


# -- the code engine -----------------------------------------------------------------------------
CODE_QUERIES = [
    "where do we throttle requests", "retry with backoff", "load settings from the environment", "hash a password",
    "expiring cache", "write a file atomically", "order total with tax", "parse a url", "send a request with a timeout",
    "decode json", "follow redirects", "check a signed token",
]


def bench_code(corpus: Path | None, as_json: bool, quick: bool) -> int:
    """`olai-tui bench code`: CoSQA (speed and quality, dev and held-out), the standard library,
    httpx and the demo tree; or one --corpus (bench_code_tree). --quick: no CoSQA quality, no embedding of httpx."""
    from engines.eval import code_bench
    from engines.eval.model import ready_embedder

    if corpus is not None:
        return bench_code_tree(corpus, as_json, quick)
    embedder = ready_embedder("code")  # OLAI_EMBED_MODEL / config.toml [code] model
    cosqa = shared_data() / "code" / "cosqa"
    queries = CODE_QUERIES
    if cosqa.is_dir():
        from engines.eval.cosqa import load_queries

        queries = [q for q, _ in load_queries(cosqa / "cosqa-retrieval-dev-500.json")]
    results = []
    if cosqa.is_dir() and not quick:
        progress = Progress("embedding the CoSQA functions (once; cached)")
        results.append(code_bench.bench_cosqa(cosqa, shared_heldout() / "code", embedder, progress))
        progress.finish()
    results.append(code_bench.bench_sources("stdlib", code_bench.stdlib_sources, queries))
    results.append(code_bench.bench_sources("httpx (--modules)", code_bench.sources_of("modules", ["httpx"]),
                                            queries, None if quick else embedder))
    results.append(code_bench.bench_sources("demo tree", code_bench.sources_of("tree", default_corpus("code")),
                                            queries, embedder))
    report = {"engine": "code", "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
              "model": embedder.info().model_id, "corpora": results}
    return emit(report, as_json, print_code_report)


def print_code_report(report: dict) -> None:
    print(f"olai-tui bench code · model {report['model']} · {report['machine']['cpus']} CPUs")
    print()
    print("| corpus | symbols | parse ms | BM25 build ms | parse+build ms per 10k | lexical p50/p95 ms "
          "| embed ms/symbol (cold) | merged p50/p95 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in report["corpora"]:
        lq, cold, merged = r["lexical_query_ms"], r.get("embedding_cold_build"), r.get("merged_query_ms")
        cold_text = f"{cold['ms_per_symbol']:.1f} ({cold['symbols']})" if cold else "-"
        merged_text = f"{merged['p50']:.2f} / {merged['p95']:.2f}" if merged else "-"
        print(f"| {r['corpus']} | {r['symbols']:,} | {r['parse_ms']:.0f} | {r['bm25_build_ms']:.0f} "
              f"| {r['parse_and_build_ms_per_10k']:.0f} | {lq['p50']:.2f} / {lq['p95']:.2f} "
              f"| {cold_text} | {merged_text} |")
    for r in report["corpora"]:
        for split, configs in r.get("quality", {}).items():
            print(f"\n{r['corpus']} {split} ({'test-500, never tuned on' if split == 'heldout' else 'dev-500'}):")
            print("| answer | MRR@10 | recall@1 | recall@10 |")
            print("|---|---:|---:|---:|")
            for config, q in configs.items():
                print(f"| {config} | {q['mrr@10']:.4f} | {q['recall@1']:.4f} | {q['recall@10']:.4f} |")


SCALE_QUERY = "flat hash map insert"  # the monorepo query: the first answer timed


def bench_code_tree(corpus: Path, as_json: bool, quick: bool) -> int:
    """`olai-tui bench code --corpus DIR`: cold and warm opens of one tree in fresh processes, query
    p50 / p90, RSS, the index on disk and one edited file (engines/eval/code_scale.py). --quick: one
    warm open and no baseline."""
    from engines.eval.code_scale import bench_tree, unreadable_tree

    why = unreadable_tree(corpus)
    if why:
        raise UsageError(f"--corpus: {why}")
    queries = [SCALE_QUERY] + CODE_QUERIES
    cosqa = shared_data() / "code" / "cosqa" / "cosqa-retrieval-dev-500.json"
    if cosqa.is_file():
        from engines.eval.cosqa import load_queries

        queries += [q for q, _ in load_queries(cosqa)]
    result = bench_tree(corpus, queries, warm_runs=1 if quick else 3, baseline=not quick)
    report = {"engine": "code", "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                            "load_1min": round(os.getloadavg()[0], 2)}, "tree": result}
    return emit(report, as_json, print_tree_report)


def print_tree_report(report: dict) -> None:
    r, corpus = report["tree"], report["tree"]["corpus"]
    print(f"olai-tui bench code --corpus {corpus} · {report['machine']['cpus']} CPUs · load {report['machine']['load_1min']}")
    print(f"{r['symbols']:,} symbols in {r['files']:,} files; index on disk {r['index_mb']:.1f} MB")
    print()
    print("| open | to engine s | to first lexical answer s | its CPU s | RSS MB (peak) | runs |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [("cold (every file parsed, index written)", r["cold"]), ("warm (index read back)", r["warm"])]
    if "baseline_no_kept_index" in r:
        rows.append(("baseline: no kept index (every file parsed)", r["baseline_no_kept_index"]))
    for name, o in rows:
        print(f"| {name} | {o['open_s']:.2f} | {o['first_answer_s']:.2f} | {o['cpu_s']:.2f} "
              f"| {o['rss_mb']:.0f} ({o['peak_rss_mb']:.0f}) "
              f"| {o['runs']} |")
    q, e = r["lexical_query_ms"], r["edit"]
    print()
    print(f"lexical query p50 / p90: {q['p50']:.2f} / {q['p90']:.2f} ms over {q['n']} queries (warm)")
    print(f"one edited file ({e['file']}) re-indexed: {e['ms']:.0f} ms ({e['cpu_ms']:.0f} ms CPU; found after: "
          f"{e['found']}); files parsed by the warm opens: "
          f"{r['warm_parsed_files']}")
    print(f"embedding tier: {r['embedding']}")
