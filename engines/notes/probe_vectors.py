"""The off-topic probes' vectors by the shipped model, shipped beside the probes (probe_vectors.npz).

A notebook's floor (floor.py) scores 217 probe queries against its passages. Embedding them took 2.0-2.6
s of a cold first answer on 2 loaded cores, more than a one-shot's whole budget for meaning (1.5 s),
and the same 217 vectors come out of every install of the same model file. So they ship, keyed by the
model's id (its name and the GGUF's sha256) and the probes' own digest: another model, or an edit of
probes.txt, is embedded as before. Made by

    .venv/bin/python -m engines.notes.probe_vectors

(MiniLM through llama.cpp, as the notes pane embeds a query; float32, 333 KB).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np

from engines.notes.floor import SHIPPED_PROBE_VECTORS as SHIPPED, load_probes, probes_digest


def write(path: Path = SHIPPED) -> str:
    from engines.atomic import atomic_file
    from engines.embed.llama import LlamaEmbedder

    embedder, probes = LlamaEmbedder(), load_probes()
    info = embedder.info()
    vectors = embedder.embed(probes, "query").astype(np.float32)
    buffer = io.BytesIO()
    np.savez(buffer, model_id=np.array(info.model_id), probes=np.array(probes_digest(probes)), vectors=vectors)
    with atomic_file(path, "wb") as fh:
        fh.write(buffer.getvalue())
    return f"wrote {path} ({len(probes)} probes, {info.model_id})"


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else SHIPPED))
