"""Measure each notebook's junk ceiling from the shipped probe queries, beside what real queries reach.

    .venv/bin/python -m engines.eval.tuning.notebook_floor [--user-cache]   (OLAI_EMBED_MODEL=e5-small: that model)

For the demo notebook, the olai roadmap and a cut of Vaswani: the distribution of the probes' best
(passage) cosines, then the best cosine of the dev set's off-topic queries and, per paraphrase, the
cosine of its best acceptable node. The per-notebook floor (engines/notes/floor.py) is chosen from these.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]

from engines.embed.choose import embedder_for
from engines.notes.engine import NotesEngine
from engines.notes.floor import load_probes

SHARED = ROOT.parent / "shared" / "data" / "notes"


def best(engine, embedder, queries):
    vectors = embedder.embed(queries, "query")
    out = []
    for v in vectors:
        ranked = engine.semantic.ranked(v)
        out.append(float(np.max(ranked.best)))
    return np.array(out)


def main() -> None:
    embedder = embedder_for("notes")  # OLAI_EMBED_MODEL=e5-small measures that model
    print(f"model: {embedder.spec.name}")
    probes = load_probes()
    dev = [json.loads(l) for l in (ROOT / "engines/eval/roadmap/dev.jsonl").read_text().splitlines() if l.strip()]
    # --user-cache: the vectors `olai-tui eval notes --dataset roadmap` already embedded (same model, same
    # notebook path: the same cache file), instead of embedding both notebooks again
    with tempfile.TemporaryDirectory() as scratch:
        cache = None if "--user-cache" in sys.argv else scratch
        for name, path in (("demo notebook", ROOT / "fixtures" / "notes"), ("olai roadmap", SHARED / "olai-roadmap.jsonl")):
            engine = NotesEngine(path, embedder=embedder, cache_dir=cache, wait_for_index=True)
            engine.build_index()
            b = best(engine, embedder, probes)
            q = np.percentile(b, [50, 75, 90, 95, 98])
            print(f"{name} ({len(engine.notes)} notes), {len(probes)} probes: best cosine p50 {q[0]:.3f} p75 {q[1]:.3f} "
                  f"p90 {q[2]:.3f} p95 {q[3]:.3f} p98 {q[4]:.3f} max {b.max():.3f}")
            if name == "olai roadmap":
                junk = best(engine, embedder, [r["query"] for r in dev if r.get("off_topic")])
                print(f"  dev off-topic: max {junk.max():.3f}, p90 {np.percentile(junk, 90):.3f}, median {np.median(junk):.3f}")
                prefix = "olai-roadmap.jsonl#"
                scores = []
                for r in dev:
                    if r.get("off_topic"):
                        continue
                    ranked = engine.semantic.ranked(embedder.embed([r["query"]], "query")[0])
                    s = max(float(ranked.best[ranked.index_of[prefix + a]]) for a in r["accept"])
                    scores.append(s)
                s = np.array(scores)
                print(f"  dev paraphrases, best acceptable node: p10 {np.percentile(s, 10):.3f} median {np.median(s):.3f} "
                      f"min {s.min():.3f}; under the model floor {embedder.spec.floor}: "
                      f"{int((s < embedder.spec.floor).sum())}/{len(s)}")
            else:
                for query in ("protecting young plants from snails",):
                    ranked = engine.semantic.ranked(embedder.embed([query], "query")[0])
                    print(f"  {query!r}: best {float(np.max(ranked.best)):.3f}")
            engine.close()


if __name__ == "__main__":
    main()
