"""Meaning first on a cold vault (behind `olai-tui bench notes --corpus DIR`): how long after the open the
semantic tier answers from static vectors for every note, and how fast the model's own index then builds.

One fresh process over an empty cache of its own (``python -m engines.eval.bench.notes.meaning_first ROOT CACHE``
prints one JSON object): the engine opens as the command line opens it (the shipped models, the static
stand-in), its indexing starts, and the clock runs from the end of the open to the moment every note
has static vectors and a query's semantic tier says so (``vectors``: static 1.0). Then the model's
build is watched for ``WINDOW_S``: passages embedded and their word pieces per second (counted with the
static embedder's tokenizer, which is MiniLM's own, plus [CLS] and [SEP] per text). The vault itself
is never written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

WINDOW_S = 30.0  # the model's build watched this long: ~60 of its batches of 64 passages
QUERIES = ["protecting young plants from snails", "ionospheric turbulence", "boundary layer transition",
           "how radio waves bend at night", "wings faster than sound"]


def measure(root: str, cache: str) -> dict:
    os.environ["XDG_CACHE_HOME"] = cache  # before the engine's modules read it
    from engines.answer import collect
    from engines.embed.static import StaticEmbedder
    from engines.eval.metrics import percentile
    from engines.notes.engine import NotesEngine

    started = time.perf_counter()
    engine = NotesEngine(root)
    opened = time.perf_counter()
    engine.start_indexing()
    static = engine.static_vectors
    while static.state().state not in ("ready", "unavailable", "failed"):
        time.sleep(0.05)
    answers, ms = [], []
    for query in QUERIES:
        asked = time.perf_counter()
        answer = collect("notes", query, engine.search(query, limit=10))
        ms.append((time.perf_counter() - asked) * 1000)
        answers.append(answer.tier("semantic").to_json())
    answered = time.perf_counter()
    contextual = engine.vectors
    while contextual.embedded_texts.count == 0 and contextual.state().state in ("idle", "building"):
        time.sleep(0.05)  # the model loads and its first batch lands: the window starts after it
    first, window_start = contextual.embedded_texts.count, time.perf_counter()
    time.sleep(WINDOW_S)
    texts = list(contextual.embedded_texts)[first:]
    elapsed = time.perf_counter() - window_start
    state = contextual.state()
    engine.close()
    pieces = sum(len(ids) + 2 for ids in StaticEmbedder().token_ids(texts))
    return {
        "corpus": root, "notes": len(engine.notes), "open_s": round(opened - started, 2),
        "static_answers_after_open_s": round(answered - opened, 2),
        "static_state": static.state().state, "first_answers": answers,
        "query_ms": {"p50": round(percentile(ms, 50), 1), "max": round(max(ms), 1), "n": len(ms)},
        "contextual": {"window_s": round(elapsed, 1), "passages": len(texts),
                       "passages_per_s": round(len(texts) / elapsed, 1),
                       "tokens_per_s": round(pieces / elapsed), "done": state.done, "of": state.of},
    }


def meaning_first(root: Path) -> dict:
    """The measurement in a fresh process over a throwaway cache (the user's cache is never touched)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="olai-meaning-first-") as cache:
        done = subprocess.run([sys.executable, "-m", "engines.eval.bench.notes.meaning_first", str(root), cache],
                              capture_output=True, text=True, cwd=Path(__file__).resolve().parents[4],
                              env=dict(os.environ, OLAI_RECALL=""))
    if done.returncode != 0:
        raise RuntimeError(f"meaning first on {root} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def print_meaning_first(m: dict, out) -> None:
    c = m["contextual"]
    out(f"\nmeaning first, cold ({m['notes']:,} notes; open {m['open_s']:.1f} s): the semantic tier answers "
        f"from static vectors for every note {m['static_answers_after_open_s']:.1f} s after the open "
        f"(query p50 {m['query_ms']['p50']:.0f} ms); then the model's build: {c['passages_per_s']:.1f} passages/s, "
        f"{c['tokens_per_s']:,} tokens/s over {c['window_s']:.0f} s")


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], sys.argv[2])))
