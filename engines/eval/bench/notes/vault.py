"""A large vault's figures (behind `olai-tui bench notes --corpus DIR`): opened cold and warm, each in a
fresh process, so resident memory and the open are what a user's next run sees.

Each open (``python -m engines.eval.bench.notes.vault ROOT CACHE``) prints one JSON object: seconds to the
engine (the notes read, from the saved index or the files), milliseconds from there to the first
exact answer and to the first words answer, each tier's per-query milliseconds over the queries,
resident memory after them, and what the open said (a discarded index). The cold open starts from an
empty cache folder of the bench's own (the user's cache is never touched) and also times how long
the saved index takes to be written; the warm open reads that back. Then, in the warm process, one
file's notes are replaced (as the watcher does after an edit) and the time until the words leg
answers from the new text is the cost of one edited file. The vault itself is never written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from engines.eval.metrics import percentile

VAULT_QUERIES = [
    "pulse modulators", "ionospheric turbulence", "boundary layer transition", "heat transfer in laminar flow",
    "transistor amplifier noise", "meteor echoes", "supersonic wing", "radio propagation at night",
    "shock wave", "plasma oscillations", "command palette", "semantic recall", "magnetic storms",
    "skin friction", "feedback oscillator", "slender body theory", "antenna arrays", "electron density",
    "buckling of cylinders", "dark theme",
]


def _summary(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 3), "p90": round(percentile(values, 90), 3), "n": len(values)}


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def open_once(root: str, cache: str, queries: Sequence[str], edit: bool) -> dict:
    """One open of ``root`` over the cache folder ``cache``, in this process (see the module doc)."""
    from engines.answer import collect
    from engines.eval.bench.notes.measure import resident_mb
    from engines.notes.engine import NotesEngine

    started, cpu = time.perf_counter(), time.process_time()
    engine = NotesEngine(root, cache_dir=cache)
    opened = time.perf_counter()
    # CPU seconds beside wall seconds: on a machine other work loads, the wall clock says more about them
    out: dict = {"notes": len(engine.notes), "open_s": round(opened - started, 3),
                 "open_cpu_s": round(time.process_time() - cpu, 3)}
    first = collect("notes", queries[0], engine.search(queries[0], limit=10, tiers=("exact",)))
    out["first_exact_ms"] = round((time.perf_counter() - opened) * 1000, 1)
    out["open_to_first_exact_cpu_s"] = round(time.process_time() - cpu, 3)
    out["first_exact_hits"] = len(first.hits)
    start = time.perf_counter()
    collect("notes", queries[0], engine.search(queries[0], limit=10, tiers=("words",)))
    out["first_words_ms_after_open"] = round((time.perf_counter() - opened) * 1000, 1)
    out["first_words_ms"] = round((time.perf_counter() - start) * 1000, 1)
    store = engine.words_tier.store  # None: no saved index (a corpus given as notes, not a folder)
    if store is not None:
        start = time.perf_counter()
        store.wait_saved()
        out["saved_s"] = round(time.perf_counter() - start, 3)  # waited for the write after the first answers
        out["index_writes"] = store.writes
    ms: dict[str, list[float]] = {"exact": [], "words": []}
    for query in queries:
        for tier in ms:
            answer = collect("notes", query, engine.search(query, limit=10, tiers=(tier,)))
            report = answer.tier(tier)
            if report.ms is not None:
                ms[tier].append(report.ms)
    out["query_ms"] = {tier: _summary(values) for tier, values in ms.items()}
    out["rss_mb"] = round(resident_mb(), 1)
    out["notices"] = engine.notices()
    if edit:
        out["edit_one_file_ms"] = _edit_one(engine)
    engine.close()
    return out


def _edit_one(engine) -> float:
    """Replace one file's notes with an edited copy (the vault is not written) and time until the words
    leg answers from the new text: what a watcher's edit costs the evidence tiers."""
    note = engine.notes[len(engine.notes) // 2]
    body = note.body + "\n\nquixotically edited for the benchmark"
    digest = hashlib.sha256((note.title + "\n" + body).encode("utf-8")).hexdigest()  # as corpus.py keys a note
    edited = dataclasses.replace(note, body=body, content_hash=digest)
    start, cpu = time.perf_counter(), time.process_time()
    engine.replace_file(note.path, [edited])
    answer = engine.words_tier.ranked("quixotically")
    took, took_cpu = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
    assert len(answer.order) == 1, "the edit is not in the words index"
    return {"ms": round(took, 1), "cpu_ms": round(took_cpu, 1)}


def bench_vault(root: Path, queries: Sequence[str] = VAULT_QUERIES) -> dict:
    """Cold then warm open of ``root``, each in a fresh process, over a throwaway cache folder."""
    results: dict = {"corpus": str(root)}
    with tempfile.TemporaryDirectory(prefix="olai-vault-bench-") as cache:
        for name, edit in (("cold", False), ("warm", True)):
            results[name] = open_in_child(root, cache, queries, edit)
        results["index_bytes"] = folder_bytes(Path(cache) / "notes-index")
    results["notes"] = results["warm"]["notes"]
    return results


def open_in_child(root: Path, cache: str, queries: Sequence[str], edit: bool) -> dict:
    argv = [sys.executable, "-m", "engines.eval.bench.notes.vault", str(root), cache, json.dumps(list(queries))]
    if edit:
        argv.append("--edit")
    done = subprocess.run(argv, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[4],
                          env=dict(os.environ, OLAI_RECALL=""))
    if done.returncode != 0:
        raise RuntimeError(f"the open of {root} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(json.dumps(open_once(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), "--edit" in sys.argv)))


def semantic_leg(corpus: Path, notes: int, queries, sample: int) -> dict:
    """The semantic leg at ``notes`` notes, on vectors grown from ``sample`` of the vault's own, embedded."""
    from engines.embed.base import EmbedderUnavailable
    from engines.embed.llama import LlamaEmbedder
    from engines.eval.bench.notes.vectors import bench_vectors

    embedder = LlamaEmbedder()
    try:
        embedder.info()
    except EmbedderUnavailable as exc:
        return {"status": "unavailable", "reason": exc.reason}
    from engines.notes.corpus import load_file
    from engines.notes.note_files import find_note_files

    paths, _ = find_note_files(os.path.abspath(corpus))
    step = max(1, len(paths) // sample)
    texts = []
    for path in paths[::step][:sample]:
        for note in load_file(path, corpus)[0][:1]:
            texts.append(note.title + "\n" + note.body)
    result = bench_vectors(embedder, texts, queries, notes)
    result["model"] = embedder.info().model_id
    return result
