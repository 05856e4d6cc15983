"""Per repository, from a cold cache: how long the code pane takes to index it and to have the trained
table's vector for every symbol, and how long its default answer (words and that meaning) takes (issue 45).

    .venv/bin/python -m engines.eval.bench.code.static_per_repo [--split dev] [--repos a,b] [--json]

Each of semble's repositories (../shared/data/code/semble, the dev split unless told) is opened into a
throwaway cache: ``open_s`` is the walk, the parse and BM25 (the first lexical answer can come), and
``vectors_s`` the trained table's vectors of every symbol after it (a gather and a sum each). Queries are
the repository's own dev questions, each asked of the default answer once: ``query_ms`` is their median.
Timings only; no score is read here.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time


def measure(repo, queries: list[str]) -> dict:
    from engines.answer import collect
    from engines.code.engine import CodeEngine

    with tempfile.TemporaryDirectory(prefix="olai-static-bench-") as cache:
        started = time.perf_counter()
        engine = CodeEngine(root=repo.root, wait_for_index=True, cache_dir=cache, contextual=False)
        opened = time.perf_counter()
        engine.build_index()
        built = time.perf_counter()
        times = []
        for q in queries:
            at = time.perf_counter()
            collect("code", q, engine.search(q, limit=10))
            times.append((time.perf_counter() - at) * 1000)
        symbols = len(engine.symbols)
        engine.close()
    return {"repo": repo.name, "language": repo.language, "symbols": symbols,
            "open_s": round(opened - started, 2), "vectors_s": round(built - opened, 2),
            "query_ms": round(statistics.median(times), 1) if times else None}


def main(argv: list[str] | None = None) -> int:
    from engines.eval.semble.load import load_queries, load_repos
    from engines.locations import shared_data

    parser = argparse.ArgumentParser(prog="python -m engines.eval.bench.code.static_per_repo")
    parser.add_argument("--split", default="dev", choices=("dev", "heldout", "all"))
    parser.add_argument("--repos", default=None, help="names, comma-separated (default: every one of the split)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = shared_data() / "code" / "semble"
    wanted = set(args.repos.split(",")) if args.repos else None
    repos = [r for r in load_repos(data).values()
             if (args.split == "all" or r.split == args.split) and (wanted is None or r.name in wanted)]
    if not repos:
        print(f"--repos: none of {args.repos!r} is in the {args.split} split", file=sys.stderr)
        return 2
    rows = []
    for n, repo in enumerate(repos, 1):
        annotations = data / "annotations" / f"{repo.name}.json"
        queries = [q.text for q in load_queries(annotations, repo.name)] if annotations.is_file() else []
        rows.append(measure(repo, queries))
        r = rows[-1]
        print(f"{n}/{len(repos)} {repo.name}: {r['symbols']:,} symbols, open {r['open_s']} s, "
              f"vectors {r['vectors_s']} s, query p50 {r['query_ms']} ms", file=sys.stderr, flush=True)
    summary = {key: round(statistics.median(r[key] for r in rows if r[key] is not None), 2)
               for key in ("symbols", "open_s", "vectors_s", "query_ms")}
    out = {"repos": len(rows), "median": summary, "rows": rows}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{len(rows)} repositories, median: {summary['symbols']:,.0f} symbols, open {summary['open_s']} s, "
              f"vectors {summary['vectors_s']} s, default answer {summary['query_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
