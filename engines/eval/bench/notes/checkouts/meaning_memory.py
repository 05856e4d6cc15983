"""Resident memory of the whole notes engine with meaning on, at a vault's size: the notes, the exact
and words tiers, the model, and the meaning index read back warm from its vector cache
(docs/bench-notes.md).

    python engines/eval/bench/notes/checkouts/meaning_memory.py CHECKOUT CACHE [VAULT] [SAMPLE]

Embedding a 100,000-note vault takes hours on two cores, so the vault's vector cache is filled once
(in CACHE, kept between runs) with grown vectors (engines/eval/bench/notes/vectors.py: real MiniLM vectors of
a Vaswani sample, mixed two by two) under the keys of the vault's own texts; the model embeds the
queries and the floor's probes for real. Then, in a fresh process, the engine opens the vault warm,
answers every tier until the meaning tier has answered, and the resident memory is read.
Prints one JSON line for each way the process's threads allocate (engines/memory.py): an arena a
thread, as the workbench and the MCP server run, then one heap, as the command line runs; VAULT
defaults to /tmp/vault-100k.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, sys.argv[1])

import numpy as np  # noqa: E402

QUERIES = ["pulse modulators", "ionospheric turbulence", "boundary layer transition", "heat transfer in laminar flow",
           "how radio waves bounce off the upper atmosphere", "noise in amplifiers", "wings faster than sound"]


def fill(vault: str, cache: str, sample: int) -> None:
    from engines.embed.cache import VectorCache, text_key
    from engines.embed.llama import LlamaEmbedder
    from engines.eval.vaswani.load import load_vaswani
    from engines.eval.bench.notes.vectors import synthetic
    from engines.locations import shared_data
    from engines.notes.chunks import note_texts
    from engines.notes.engine import NotesEngine

    engine = NotesEngine(vault, cache_dir=cache)
    keys = list(dict.fromkeys(text_key(t) for note in engine.notes for t in note_texts(note)))
    engine.close()
    model = LlamaEmbedder()
    info = model.info()
    vectors = VectorCache(info.model_id, info.dims, scope=str(Path(vault).resolve()), directory=cache)
    if all(k in vectors for k in keys):
        return
    c = load_vaswani(shared_data() / "notes" / "vaswani")
    texts = [n.title + "\n" + n.body for n in c.notes[:: max(1, len(c.notes) // sample)]][:sample]
    real = np.asarray(model.embed(texts, "document"), np.float32)
    for at in range(0, len(keys), 50_000):
        part = keys[at:at + 50_000]
        vectors.put_many(part, synthetic(real, len(part), seed=at))
    vectors.save(keep=keys, ordered=True)


def measure(vault: str, cache: str) -> dict:
    from engines.answer import collect
    from engines.eval.bench.notes.measure import resident_mb

    from engines.notes.engine import NotesEngine

    started = time.perf_counter()
    engine = NotesEngine(vault, cache_dir=cache)
    out = {"notes": len(engine.notes), "open_s": round(time.perf_counter() - started, 2)}
    answered = None
    deadline = time.monotonic() + 600
    while answered is None and time.monotonic() < deadline:  # until the index is read back and answers
        for query in QUERIES:
            report = collect("notes", query, engine.search(query, limit=10)).tier("semantic")
            if report.status in ("answered", "empty"):
                answered = report.status
        time.sleep(0.2)
    out["ready_s"] = round(time.perf_counter() - started, 2)
    ms = [collect("notes", q, engine.search(q, limit=10)).tier("semantic").ms for q in QUERIES * 3]
    ms = [m for m in ms if m is not None]
    out["semantic"] = answered
    out["semantic_tier_ms_p50"] = round(float(np.median(ms)), 1) if ms else None
    out["rss_mb"] = round(resident_mb(), 1)
    state = engine.semantic.state()
    out["index"] = f"{state.state} {state.done}/{state.of}"
    engine.close()
    return out


def main() -> None:
    cache = sys.argv[2]
    vault = sys.argv[3] if len(sys.argv) > 3 else "/tmp/vault-100k"
    heap = os.environ.get("OLAI_MEANING_MEMORY_CHILD")
    if heap:
        if heap == "one heap":  # as the command line runs (engines/memory.py)
            from engines.memory import share_one_heap

            share_one_heap()
        print(json.dumps({"heap": heap, **measure(vault, cache)}))
        return
    fill(vault, cache, int(sys.argv[4]) if len(sys.argv) > 4 else 300)
    for heap in ("arena a thread", "one heap"):  # the workbench's and MCP's, then the command line's
        child = subprocess.run([sys.executable, __file__, *sys.argv[1:]], capture_output=True, text=True,
                               env=dict(os.environ, OLAI_MEANING_MEMORY_CHILD=heap))
        sys.stdout.write(child.stdout or child.stderr)


if __name__ == "__main__":
    main()
