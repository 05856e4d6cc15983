"""The code pane's meaning in seconds: every symbol's vector from the trained code table.

The table (engines/embed/trained_code_table.py, trained here on code: docs/code-embedder.md) embeds
a symbol with a gather and a sum, no transformer: click's 617 symbols in 0.5 s where MiniLM took 33 s,
so its index is built when a search first needs meaning, cached by content like MiniLM's, and the code
pane's default answer has meaning from the first search. MiniLM's contextual vectors, opt-in, take
over once their own index is complete (engine.py).
"""

from __future__ import annotations

from engines.code.vectors import VectorIndex

STATIC_BATCH = 2048  # symbols per embed call: a gather and a sum, ~0.2 s on 2 cores (MiniLM: 32 in ~0.5 s)


class StaticVectorIndex(VectorIndex):
    embed_batch = STATIC_BATCH
    thread_name = "olai-code-static-index"
    # built again in seconds: saved once at the end, no journal of its batches
    save_every_s = float("inf")
    journalled = False
    # No neighbourhood density: for the trained table it moved CoSQA dev within noise (weight 0 / 0.15 /
    # 0.3 / 0.5: 0.3045 / 0.3006 / 0.3003 / 0.2893 MRR@10, docs/code-embedder.md), and it costs a
    # symbol-by-symbol product that a 300,000-symbol tree cannot pay within a minute.
    density_weight = 0.0

    def _completed(self) -> None:
        """Nothing to measure once whole (no density)."""
