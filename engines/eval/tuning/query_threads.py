"""Query-embedding latency by thread count and OpenMP wait policy (the QUERY_THREADS measurement).

    for pol in PASSIVE ACTIVE; do for nt in 1 2; do
        OMP_WAIT_POLICY=$pol .venv/bin/python -m engines.eval.tuning.query_threads $nt; done; done

Loads a llama.cpp context with NT threads directly (not through QUERY_THREADS) and embeds 100 short
queries after a warm-up; prints p50 and p95 in ms.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from engines.embed.provenance import default_model_path


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    from llama_cpp import Llama

    llm = Llama(model_path=str(default_model_path()), embedding=True, n_ctx=256, n_batch=256, n_ubatch=256,
                n_threads=threads, n_threads_batch=threads, verbose=False)
    queries = ["protecting young plants from snails", "measurement of dielectric constant of liquids",
               "keeping blades keen", "nix flake", "what to sow in march"] * 20
    for q in queries[:5]:
        llm.embed(q)
    times = []
    for q in queries:
        start = time.perf_counter()
        llm.embed(q)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'default')} threads={threads} "
          f"p50 {statistics.median(times):.2f} ms p95 {times[94]:.2f} ms")


if __name__ == "__main__":
    main()
