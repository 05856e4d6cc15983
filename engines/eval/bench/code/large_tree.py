"""The code engine on one large tree (behind `olai-tui bench code --corpus DIR`): opens, answers, memory.

Each open runs in a fresh process, as a user's command would, timed from before the process starts
to its first lexical answer: a cold open (an empty index cache: every file parsed, with progress on
stderr), then warm opens (the cache from the cold one: only changed files parsed). The baseline, in
the same run, is an open that keeps no index (``persist=False``: every file parsed every time, as
before the index was kept). The last warm open also times query p50 / p90 over the queries and the
cost of one edited file: the file's new text (a function added) is parsed from a copy under a
temporary folder and handed to the engine as its watcher would, so nothing is written into the tree.
RSS is the process's resident set after the first answer (VmRSS) and its peak (VmHWM); the index size
is the cache file's. Meaning is timed as the code pane gives it by default: the trained code table's
vector of every symbol (static_vectors.py), from before the process starts to the first answer with
meaning for the whole tree (``first_meaning_s``: cold, every symbol embedded; warm, read from the vector
cache). The warm open with default settings (``warm_default``, issue 60) is its own fresh processes after
the warm ones, each right after a lexical-only open (``warm_lexical_only``, `--tiers lexical`) so a pair
sees the same load: opened and asked once, as `olai-tui search code` answers, timed to that answer (the
embedding tier's status beside it); the ratio is of the two medians, wall and CPU. MiniLM's contextual vectors are opt-in and not timed here: embedding a monorepo's symbols with
it is hours of model time, measured per symbol by the other `bench code` corpora.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from engines.eval.metrics import percentile


def unreadable_tree(corpus: Path) -> str | None:
    """Why ``corpus`` cannot be benchmarked as a code tree, in one line; None when it can."""
    from engines.code.corpus import tree_source

    try:
        tree_source(corpus)
    except Exception as exc:  # noqa: BLE001 - CorpusError: one line naming the folder
        return str(exc)
    return None


def bench_tree(corpus: Path, queries: Sequence[str], warm_runs: int = 3, baseline: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="olai-bench-code-") as cache:
        cold = _child(corpus, cache, queries[:1], persist=True)
        warm = [_child(corpus, cache, queries if i == warm_runs - 1 else queries[:1], persist=True,
                       edit=i == warm_runs - 1) for i in range(warm_runs)]
        # in pairs, a lexical-only open then a default one, so both see the same moment's load
        pairs = [(_child(corpus, cache, queries[:1], persist=True, lexical_only=True),
                  _child(corpus, cache, queries[:1], persist=True, default=True)) for _ in range(warm_runs)]
        lexical_only, default = [p[0] for p in pairs], [p[1] for p in pairs]
    base = _child(corpus, None, queries[:1], persist=False) if baseline else None
    last = warm[-1]
    out = {"corpus": str(corpus), "symbols": last["symbols"], "files": last["files"],
           "cold": _open_figures(cold), "warm": _open_figures(*warm),
           "warm_runs": [round(w["first_answer_s"], 3) for w in warm],
           "warm_lexical_only": _open_figures(*lexical_only),
           "warm_default": _open_figures(*default) | {"embedding": [d["embedding"] for d in default]},
           "warm_default_over_lexical": round(_open_figures(*default)["first_answer_s"]
                                              / max(_open_figures(*lexical_only)["first_answer_s"], 1e-9), 3),
           "warm_default_over_lexical_cpu": round(_open_figures(*default)["cpu_s"]
                                                  / max(_open_figures(*lexical_only)["cpu_s"], 1e-9), 3),
           "index_mb": round(cold["index_bytes"] / 1e6, 1), "cold_cache_written_s": round(cold["saved_s"], 2),
           "warm_parsed_files": [w["parsed"] for w in warm],
           "lexical_query_ms": last["query_ms"], "edit": last["edit"],
           "meaning": {"cold_first_meaning_s": cold.get("first_meaning_s"),
                       "warm_first_meaning_s": round(percentile([w["first_meaning_s"] for w in warm], 50), 3)
                       if all("first_meaning_s" in w for w in warm) else None,
                       "embedded": cold.get("embedded"), "vectors": "static (the trained code table)"},
           "embedding": "MiniLM's contextual vectors are opt-in; not timed on this tree (see the other bench "
                        "code corpora for ms per symbol)"}
    if base is not None:
        out["baseline_no_kept_index"] = _open_figures(base)
    return out


def _open_figures(*runs: dict) -> dict:
    """Medians over the runs: seconds to the engine open and to the first answer, RSS in MB."""
    def median(key: str) -> float:
        return round(percentile([r[key] for r in runs], 50), 3)

    return {"open_s": median("open_s"), "first_answer_s": median("first_answer_s"), "cpu_s": median("cpu_s"),
            "rss_mb": median("rss_mb"),
            "peak_rss_mb": median("peak_rss_mb"), "runs": len(runs)}


def _child(corpus: Path, cache: str | None, queries: Sequence[str], persist: bool, edit: bool = False,
           default: bool = False, lexical_only: bool = False) -> dict:
    spec = json.dumps({"corpus": str(corpus), "cache": cache, "queries": list(queries), "persist": persist,
                       "edit": edit, "default": default, "lexical_only": lexical_only, "started": time.time()})
    done = subprocess.run([sys.executable, "-m", "engines.eval.bench.code.large_tree", spec], stdout=subprocess.PIPE,
                          text=True, cwd=Path(__file__).resolve().parents[4], check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _rss_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MB (Linux; elsewhere the peak from getrusage twice)."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak


def _run_child(spec: dict) -> dict:
    from engines.code.engine import LEXICAL, CodeEngine

    def progress(done: int, of: int) -> None:
        print(f"\rparsing {done:,} / {of:,} files", end="\n" if done == of else "", file=sys.stderr, flush=True)

    started = spec["started"]  # the parent's clock before it started this process: imports count
    if spec.get("default") or spec.get("lexical_only"):
        return _default_child(spec, progress)
    engine = CodeEngine(spec["corpus"], cache_dir=spec["cache"], persist=spec["persist"], progress=progress)
    opened = time.time()
    list(engine.search(spec["queries"][0], 10, tiers=(LEXICAL,)))
    answered, cpu = time.time(), time.process_time()  # CPU of this process since it started (not the workers')
    rss, peak = _rss_mb()
    engine.wait_saved()
    saved = time.time()
    meaning: dict = {}
    static = engine.static_vectors
    if static is not None:  # the default answer's meaning: every symbol's trained-table vector
        static.build(progress=lambda done, of: print(f"\rstatic vectors {done:,} / {of:,}", end="\n" if done == of
                                                     else "", file=sys.stderr, flush=True))
        list(engine.search(spec["queries"][0], 10))
        meaning = {"first_meaning_s": time.time() - started, "embedded": static.state().done}
    out = {"open_s": opened - started, "first_answer_s": answered - started, "cpu_s": cpu, "rss_mb": rss,
           "peak_rss_mb": peak,
           "saved_s": saved - started, "symbols": len(engine.symbols), "files": engine.files,
           "parsed": engine.parsed, "index_bytes": engine.index_file.stat().st_size if engine.index_file else 0,
           **meaning}
    if len(spec["queries"]) > 1:
        times = []
        for query in spec["queries"]:
            t = time.perf_counter()
            list(engine.search(query, 10, tiers=(LEXICAL,)))
            times.append((time.perf_counter() - t) * 1000)
        out["query_ms"] = {"p50": round(percentile(times, 50), 3), "p90": round(percentile(times, 90), 3),
                           "n": len(times)}
    if spec["edit"]:
        out["edit"] = _edit_one_file(engine)
    engine.close()
    return out


def _default_child(spec: dict, progress) -> dict:
    """A warm open with default settings (both tiers, waiting for meaning as `search --wait` does), or
    with the lexical tier alone (``lexical_only``: `--tiers lexical`), and nothing after its answer."""
    from engines.code.engine import LEXICAL, CodeEngine

    engine = CodeEngine(spec["corpus"], cache_dir=spec["cache"], persist=True, progress=progress, wait_for_index=True)
    opened = time.time()
    tiers = (LEXICAL,) if spec.get("lexical_only") else None
    answer = engine.collect(spec["queries"][0], engine.search(spec["queries"][0], 10, tiers=tiers))
    answered, cpu = time.time(), time.process_time()
    rss, peak = _rss_mb()
    embedding = next((t.status for t in answer.tiers if t.name == "embedding"), None)
    engine.close()
    return {"open_s": opened - spec["started"], "first_answer_s": answered - spec["started"], "cpu_s": cpu,
            "rss_mb": rss, "peak_rss_mb": peak, "embedding": embedding, "parsed": engine.parsed}


def _edit_one_file(engine) -> dict:
    """One file's edit as the watcher applies it: parse its new text, replace its symbols, rebuild."""
    from dataclasses import replace

    from engines.code.corpus import load_file

    files = [f for f in engine.indexed_files if f.end > f.first and f.path.endswith(".py")] or \
        [f for f in engine.indexed_files if f.end > f.first]
    record = files[len(files) // 2]  # a file in the middle of the tree, the same one every run
    with tempfile.TemporaryDirectory(prefix="olai-bench-edit-") as scratch:
        copy = Path(scratch) / record.rel
        copy.parent.mkdir(parents=True, exist_ok=True)
        text = Path(record.path).read_text(encoding="utf-8", errors="replace")
        copy.write_text(text + "\n\ndef bench_added_function(value):\n    return value\n", encoding="utf-8")
        t, cpu = time.perf_counter(), time.process_time()
        symbols, problem = load_file(copy, scratch)
        symbols = [replace(s, path=record.path) for s in symbols]
        engine.replace_files([(record.path, symbols, problem, record.rel)])
        ms, cpu_ms = (time.perf_counter() - t) * 1000, (time.process_time() - cpu) * 1000
    query = "bench_added_function"  # its name: the symbol-shaped query finds the definition first
    hits = engine.collect(query, engine.search(query, 3, tiers=("lexical",))).hits
    found = bool(hits) and hits[0].id.endswith("::bench_added_function")
    return {"file": record.rel, "ms": round(ms, 1), "cpu_ms": round(cpu_ms, 1), "symbols_after": len(engine.symbols),
            "found": found}


if __name__ == "__main__":
    print(json.dumps(_run_child(json.loads(sys.argv[1]))))
