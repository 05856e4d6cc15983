"""Resident memory of the notes engine's meaning index at a vault's size, with grown vectors
(engines/eval/bench/notes/vectors.py: real MiniLM vectors of a Vaswani sample, grown to N notes of three
vectors each), to compare two checkouts (docs/bench-notes.md):

    python engines/eval/bench/notes/checkouts/vectors_memory.py CHECKOUT [NOTES] [SAMPLE] [CACHE]

CACHE: a folder kept between runs; the second run over it reads the vectors back from the file (a
warm open) instead of embedding them.

Prints the resident memory before the build (the grown source, 154 MB at 100,000, included), after
it (the vectors in the cache, the source dropped) and after the first searches (the index's rows
stacked), and the vectors' fp32 size.
"""

from __future__ import annotations

import json
import sys
import tempfile
from contextlib import nullcontext

sys.path.insert(0, sys.argv[1])

import numpy as np  # noqa: E402

from engines.embed.llama import LlamaEmbedder  # noqa: E402
from engines.eval.vaswani.load import load_vaswani  # noqa: E402
from engines.eval.bench.notes.measure import resident_mb  # noqa: E402
from engines.eval.bench.notes.vectors import GrownVectors, synthetic  # noqa: E402
from engines.locations import shared_data  # noqa: E402
from engines.notes.chunks import note_texts  # noqa: E402
from engines.notes.corpus import Note  # noqa: E402
from engines.notes.semantic import SemanticIndex  # noqa: E402


def main() -> None:
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    sample = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    model = LlamaEmbedder()
    c = load_vaswani(shared_data() / "notes" / "vaswani")
    texts = [n.title + "\n" + n.body for n in c.notes[:: max(1, len(c.notes) // sample)]][:sample]
    grown = synthetic(np.asarray(model.embed(texts, "document"), dtype=np.float32), count)
    queries = np.asarray(model.embed(list(c.queries.values())[:10], "query"), dtype=np.float32)
    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"Paragraph {i} of the grown vault.", where=f"n{i}.md",
                  path=f"/grown/n{i}.md") for i in range(count)]
    of_notes = [note_texts(note) for note in notes]
    vectors = sum(len(set(t)) for t in of_notes)
    out = {"notes": count, "vectors": vectors, "vector_mb": round(vectors * grown.shape[1] * 4 / 1e6, 1)}
    kept = sys.argv[4] if len(sys.argv) > 4 else None  # a cache folder: the second run reads the vectors back
    with (tempfile.TemporaryDirectory(prefix="olai-memory-") if kept is None else nullcontext(kept)) as cache:
        index = SemanticIndex(GrownVectors(model, grown, of_notes), "grown vault", cache_dir=cache)
        index.set_notes(notes)
        out["rss_mb_before"] = round(resident_mb(), 1)
        index.build()
        del grown  # the grown source: not what an engine holds
        index.embedder._matrix = None
        out["rss_mb_built"] = round(resident_mb(), 1)
        for q in queries:
            index.ranked(q)
        out["rss_mb_searched"] = round(resident_mb(), 1)
        index.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
