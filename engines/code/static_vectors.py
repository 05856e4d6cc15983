"""The code pane's meaning in seconds: every symbol's vector from the trained code table.

The table (engines/embed/trained_code_table.py, trained here on code: docs/code-embedder.md) embeds
a symbol with a gather and a sum, no transformer: click's 617 symbols in 0.5 s where MiniLM took 33 s,
so its index is built when a search first needs meaning, cached by content like MiniLM's, and the code
pane's default answer has meaning from the first search. MiniLM's contextual vectors, opt-in, take
over once their own index is complete (engine.py).
"""

from __future__ import annotations

from engines.code.vectors import VectorIndex

# The neighbourhood density only up to this many symbols: its symbol-by-symbol product is ~1 s there on 2
# cores, and it is measured again at every open. The 63-repository tree (180,036 symbols) has none: its
# warm open to meaning took 4.1 s without it, 10.8 s with neighbours sampled among 8,192, 17.7 s among
# 16,384 (`engines/eval/bench/code/monorepo.sh --json --quick`, one session).
DENSITY_MOST = 16_384
STATIC_BATCH = 2048  # symbols per embed call: a gather and a sum, ~0.2 s on 2 cores (MiniLM: 32 in ~0.5 s)


class StaticVectorIndex(VectorIndex):
    embed_batch = STATIC_BATCH
    thread_name = "olai-code-static-index"
    # built again in seconds: saved once at the end, no journal of its batches
    save_every_s = float("inf")
    journalled = False
    # The neighbourhood density (vectors.py) at MiniLM's weight, 0.3, up to DENSITY_MOST symbols. The table
    # alone as the engine ranks it (`.venv/bin/python -m engines.eval.tuning.code_table --table
    # engines/embed/model/olai-code-table.f16.npy --as-engine --density W`), weight 0 / 0.15 / 0.3:
    # CoSQA dev MRR@10 0.373 / 0.379 / 0.384, semble dev NDCG@10 0.685 / 0.691 / 0.703; the fused answers
    # do not move (they weigh raw cosines: merge.py ``weigh``).
    density_most = DENSITY_MOST

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._density_checked: object = None  # the index version whose densities were last found complete

    def scores(self, query_vector):
        """As VectorIndex's, a whole index's densities measured first where its build has not yet: the
        build measures them after it says ready, and an answer in between would rank without them (so a
        search's order would depend on the moment it came)."""
        if self._newly_whole():
            self._measure_density()  # nothing to do where the build measured them, or past DENSITY_MOST
        return super().scores(query_vector)

    def _newly_whole(self) -> bool:
        """Whether every item has its vector, asked once per version of the index."""
        with self._lock:
            if self._density_checked == self._version:
                return False
            self._density_checked = self._version
            return self._done() == len(self._keys)

