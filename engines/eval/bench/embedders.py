"""The embedding models side by side on the same machine in the same run: query embedding p50/p95 (one
thread, as the engines embed a query), document throughput in tokens per second, and resident memory.

    python -m engines.eval.bench.embedders [--queries N] [--json]

The queries are the roadmap dev set's (engines/eval/roadmap/dev.jsonl: short requests of every kind), the
documents the demo notebook's notes; the models alternate query by query, so a busy neighbour slows both
alike and the ratio holds when the absolute figures do not. The static embedder (engines/embed/static.py)
is measured beside them on the same notes, read STATIC_REPEATS times over (once is a few milliseconds).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from engines.embed.models import E5, MINILM
from engines.eval.metrics import percentile
from engines.locations import fixtures_dir

DEV = Path(__file__).resolve().parents[1] / "roadmap" / "dev.jsonl"
STATIC_REPEATS = 100


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _queries(n: int) -> list[str]:
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["query"] for r in rows][:n]


def _documents(limit: int = 40) -> list[str]:
    notes = sorted((fixtures_dir() / "notes").rglob("*.md"))[:limit]
    return [p.read_text(encoding="utf-8")[:1500] for p in notes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engines.eval.bench.embedders")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from engines.embed.choose import e5_path
    from engines.embed.llama import LlamaEmbedder
    from engines.embed.provenance import PACKAGED_MODEL

    path, why = e5_path()
    if path is None:
        print(f"embedders: {E5.name} unavailable: {why}", file=sys.stderr)
        return 1
    rss0 = _rss_mb()
    models = {}
    for spec, file in ((MINILM, PACKAGED_MODEL), (E5, path)):
        before = _rss_mb()
        embedder = LlamaEmbedder(file, spec=spec)
        embedder.embed(["warm up"], "query")
        embedder.embed(["warm up"], "document")
        models[spec.name] = {"embedder": embedder, "rss_load_mb": round(_rss_mb() - before, 1), "ms": []}
    from engines.embed.static import StaticEmbedder

    before = _rss_mb()
    static = StaticEmbedder()
    static.embed(["warm up"] * 300, "document")  # both tokenizer threads' vocabularies loaded
    models[static.info().name] = {"embedder": static, "rss_load_mb": round(_rss_mb() - before, 1), "ms": [],
                                  "repeats": STATIC_REPEATS}
    queries = _queries(args.queries)
    for q in queries:
        for row in models.values():
            start = time.perf_counter()
            row["embedder"].embed([q], "query")
            row["ms"].append((time.perf_counter() - start) * 1000)
    docs = _documents()
    report = {"queries": len(queries), "documents": len(docs), "rss_start_mb": round(rss0, 1), "models": {}}
    for name, row in models.items():
        embedder = row["embedder"]
        texts = docs * row.get("repeats", 1)
        tokens = sum(embedder.count_tokens(d) for d in texts)
        start = time.perf_counter()
        embedder.embed(texts, "document")
        seconds = time.perf_counter() - start
        report["models"][name] = {"query_p50_ms": round(percentile(row["ms"], 50), 2),
                                  "query_p95_ms": round(percentile(row["ms"], 95), 2),
                                  "document_tokens_per_s": round(tokens / seconds), "document_tokens": tokens,
                                  "rss_after_load_mb": row["rss_load_mb"]}
    report["rss_peak_mb"] = round(_rss_mb(), 1)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{len(queries)} queries (roadmap dev), {len(docs)} demo notes; peak RSS {report['rss_peak_mb']} MB")
    print("| model | query p50 ms | query p95 ms | document tokens/s | RSS added by loading MB |")
    print("|---|---|---|---|---|")
    for name, r in report["models"].items():
        print(f"| {name} | {r['query_p50_ms']} | {r['query_p95_ms']} | {r['document_tokens_per_s']:,} "
              f"| {r['rss_after_load_mb']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
