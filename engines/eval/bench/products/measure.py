"""Speed and size figures of the products engine: build, memory, recall p50/p90, rules judge ms.

Recall is timed whole (every source, the local query embedding included) over real requests: the
`food` dev requests on the food catalogue, the Icecat dev queries (ratings-dev.csv) on Icecat. The
vectors come from the cache (`olai-tui index products --corpus ...` builds it once); a catalogue
whose vectors are not all embedded is reported as such, never timed as if it were.
"""

from __future__ import annotations

import csv
import gc
import time
import tracemalloc
from pathlib import Path
from typing import Callable

from engines.eval.food.load import load_food_requests
from engines.eval.metrics import percentile
from engines.locations import shown_url
from engines.products.database import is_database_url
from engines.products.engine import JUDGE_POOL, ProductsEngine

REPEATS = 3  # each request timed three times, every timing kept: p50/p90 over all of them


def icecat_queries(folder: Path) -> list[str]:
    path = folder / "ratings-dev.csv"
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", newline="") as handle:
        return list(dict.fromkeys(row["query"] for row in csv.DictReader(handle) if row.get("query")))


def measure(corpus: Path | str, queries: list[str], progress: Callable[[str], None] | None = None) -> dict:
    """``corpus``: a catalogue's file or folder, or a database URL (named without its password)."""
    say = progress or (lambda text: None)
    gc.collect()
    tracemalloc.start()
    started = time.perf_counter()
    engine = ProductsEngine(corpus, wait_for_index=True)
    load_s = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    name = shown_url(corpus) if is_database_url(corpus) else Path(corpus).name
    say(f"{name}: {len(engine.products):,} products loaded in {load_s:.1f} s; vectors")
    started = time.perf_counter()
    state = engine.build_index()
    vectors_s = time.perf_counter() - started
    out = {"corpus": shown_url(corpus) if is_database_url(corpus) else str(corpus), "name": name,
           "products": len(engine.products), "skipped_lines": len(engine.problems),
           "load_s": round(load_s, 2), "index_build_ms": engine.build_ms, "memory_peak_mb": round(peak / 2**20, 1),
           "vectors": state.state, "vectors_build_s": round(vectors_s, 2),
           "vectors_embedded_now": len(engine.vectors.embedded_texts), "queries": len(queries)}
    if state.state != "ready":
        out["note"] = f"vectors {state.state}: {state.reason}"
        engine.close()
        return out
    recall_ms: list[float] = []
    judge_ms: list[float] = []
    engine.recall(engine.understand(queries[0]))  # warm: the query context, numpy, rapidfuzz
    for _ in range(REPEATS):
        for text in queries:
            t = time.perf_counter()
            request = engine.understand(text)
            found = engine.recall(request)
            recall_ms.append((time.perf_counter() - t) * 1000)
            pool = [engine.products[pos] for pos, _, _ in found.fused[:JUDGE_POOL]]
            t = time.perf_counter()
            engine.rules_judge.judge(request, pool)
            judge_ms.append((time.perf_counter() - t) * 1000)
    engine.close()
    out.update({"recall_p50_ms": round(percentile(recall_ms, 50), 2), "recall_p90_ms": round(percentile(recall_ms, 90), 2),
                "rules_judge_p50_ms": round(percentile(judge_ms, 50), 3),
                "rules_judge_p90_ms": round(percentile(judge_ms, 90), 3)})
    return out


def default_queries() -> list[str]:
    return [r.text for r in load_food_requests("dev")]
