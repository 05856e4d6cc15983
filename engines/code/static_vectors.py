"""The code pane's meaning in seconds: every symbol's vector from the trained code table.

The table (engines/embed/trained_code_table.py, trained here on code: docs/code-embedder.md) embeds
a symbol with a gather and a sum, no transformer: click's 617 symbols in 0.5 s where MiniLM took 33 s,
so its index is built when a search first needs meaning, cached by content like MiniLM's, and the code
pane's default answer has meaning from the first search. MiniLM's contextual vectors, opt-in, take
over once their own index is complete (engine.py).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from engines.code.meaning_state import MeaningState, fingerprint, read_state, write_state
from engines.code.vectors import DENSITY_NEIGHBOURS, DENSITY_WEIGHT, VectorIndex
from engines.embed.index_state import IndexState

# The neighbourhood density only up to this many symbols: its symbol-by-symbol product is ~1 s there on 2
# cores (measured once: kept with the vectors, meaning_state.py). The 63-repository tree (180,036 symbols) has none: its
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
        self._kept: MeaningState | None = None  # the state read back from the cache, until the symbols change
        self._keep_at: tuple[Path, str] | None = None  # where, and for which index, to keep the state once whole
        self._writer: threading.Thread | None = None

    # -- the state kept between opens (meaning_state.py) ----------------------------------------
    def set_index(self, index, state_path: Path | None = None) -> None:
        """The code index's symbols: ready at once from the state kept at ``state_path`` when it was made
        for this index, else from their texts (and the state kept there once the build is whole)."""
        info = self.embedder.info()
        settings = f"neighbours {DENSITY_NEIGHBOURS}, most {self.density_most}"
        print_ = fingerprint(index, info.model_id, settings) if state_path is not None else None
        if print_ is not None:
            kept = read_state(state_path, print_, index, info.dims)
            if kept is not None:
                with self._lock:
                    self._kept, self._keep_at = kept, None
                    self._version += 1
                return
        self.set_texts(index.static_texts())
        with self._lock:
            self._keep_at = (state_path, print_) if print_ is not None else None

    def set_texts(self, texts) -> None:
        with self._lock:
            kept, self._kept, self._keep_at = self._kept, None, None
            if kept is not None:  # symbols changed: the kept keys and densities carry over, as a build's do
                self._keys = [bytes(k) for k in kept.keys]
                if kept.measured:
                    self._density = dict(zip(self._keys, kept.density.tolist()))
            super().set_texts(texts)

    def state(self) -> IndexState:
        kept = self._kept
        if kept is not None:
            return IndexState("ready", len(kept.keys), len(kept.keys))
        return super().state()

    def build(self, progress=None) -> IndexState:
        return self.state() if self._kept is not None else super().build(progress)

    def start(self) -> None:
        if self._kept is None:
            super().start()

    def stop(self) -> None:
        super().stop()
        writer = self._writer
        if writer is not None:
            writer.join()

    def whole(self):
        kept = self._kept
        if kept is None:
            return super().whole()
        return np.array(kept.vectors), np.asarray(kept.density if kept.measured else np.zeros(len(kept.keys)), np.float32)

    def _completed(self) -> None:
        super()._completed()  # the density, where the index is small enough
        with self._lock:
            where, keys = self._keep_at, self._keys
            if where is None or self._kept is not None:
                return
            self._refresh_matrix()
            matrix, rows = self._matrix, self._ready_rows
            if len(rows) != len(keys) or (len(rows) and rows[-1] != len(rows) - 1):
                return
            measured = bool(keys) and all(k in self._density for k in keys)
            density = np.asarray([self._density[k] for k in keys] if measured else np.zeros(len(keys)), np.float32)
            self._keep_at = None
        # its own thread, not a daemon: an answer does not wait for the write, and a command that ends
        # at once still leaves it written (``stop`` waits)
        self._writer = threading.Thread(target=write_state, args=(where[0], where[1], keys, matrix, density, measured),
                                        name="olai-code-meaning-state")
        self._writer.start()

    def scores(self, query_vector):
        """As VectorIndex's, a whole index's densities measured first where its build has not yet: the
        build measures them after it says ready, and an answer in between would rank without them (so a
        search's order would depend on the moment it came)."""
        kept = self._kept
        if kept is not None:  # the kept state: the vectors read from the map by this product, nothing copied
            cosines = kept.vectors @ np.asarray(query_vector, dtype=np.float32)
            weight = DENSITY_WEIGHT if self.density_weight is None else self.density_weight
            rows = np.arange(len(cosines), dtype=np.int64)
            return rows, cosines, cosines - weight * kept.density if weight and kept.measured else cosines
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

