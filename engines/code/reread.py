"""Meaning re-read contextually at query time: for a question asked in words over a source tree, the first
rows of the default answer are read by MiniLM (the installed model, through llama.cpp, in this process)
and its cosine joins the score that orders them (issue 60).

The trained code table is a bag of word rows: it ranks a question's rows by the words they share with
it and leaves MiniLM's sense of a sentence out. Embedding a whole large tree with MiniLM takes an hour
(the opt-in ``embedding`` tier), but a question only needs the rows it is answered from: the first
``ROWS`` of the default answer, each read once (its vector kept in the vector cache, keyed by its text's
hash, in a file of its own beside the tree's other vectors), so a second question over the same rows
embeds nothing. What MiniLM reads of a row is its gist (``gist_text``): the file's path, the name's
words, the signature and the doc (the first lines where there is none). Against the row's source,
measured on the same pools: the gist ranked better and embeds about 5x faster (short texts).

The fusion: each evidence row among the first ``ROWS`` gets ``WEIGHT`` x its MiniLM cosine, scaled over
those rows (the least 0, the most 1), added to the score the table's fusion gave it (merge.py ``weigh``:
0.2 words + 0.8 table for such a question); a resemblance row neither moves nor is moved past. Within a
time budget: the rows embedded in time are re-ordered among themselves (a leading run of the answer),
the rest keep the table's order, and the vectors made are kept for the next question.

Measured on dev only (a /tmp replay of the engine's own default pools, then the engine: docs/code-embedder.md,
section "Meaning re-read at query time"), right@3 / MRR@10 / nDCG@10: the natural questions (66)
0.394 / 0.353 / 0.411 -> 0.470 / 0.368 / 0.445; their check set (18, written before and never tuned
on) 0.222 / 0.170 / 0.190 -> 0.222 / 0.178 / 0.235; semble dev 0.8694 -> 0.8688 (paired -0.0006
[-0.0016, +0.0004]), CoSQA unchanged (no paths). Around the setting, natural right@3 0.439-0.470 for
ROWS 15-40 and WEIGHT 0.8-3.0; the check set's right@3 there is 0.167 or 0.222 (one question of 18).
Replacing the table's share by MiniLM's, an RRF of the two orders, or MiniLM alone over the rows:
0.318-0.470 on the 66, none better on both sets; the rows' source instead of their gist: at best 0.470
on the 66 with the check set's MRR 0.170 -> 0.125.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Sequence

import numpy as np

from engines.code.merge import LEXICAL, Merged
from engines.code.symbols import Symbol
from engines.embed.base import Embedder
from engines.embed.cache import VectorCache, text_key
from engines.knobs import value_of
from engines.lexical import split_identifier

ROWS = 20  # the answer's first rows MiniLM reads (15-30 measured alike; see the module)
WEIGHT = 1.0  # MiniLM's scaled cosine beside the table's fused score (0.8-3.0 measured; see the module)
# How long a search waits on MiniLM before answering with what it has (a waiting engine, the evaluation,
# waits for every row): the one-shot's wait (olai_tui/commands.py). A question's 20 gists cold, niced on the
# 2 shared cores at load 3: median 1.01 s, p90 1.62 s (warm 0.01 s); at load 6 about 2.3 s (8.7 gists a
# second). What is not read in time keeps the table's order and is read by the next question.
BUDGET_S = 1.5
BATCH = 5  # gists per embed call: the deadline is looked at between them
GIST_CHARS = 600
GIST_LINES = 6
SAID = "meaning re-read the first {n} rows contextually (MiniLM)"


def gist_text(symbol: Symbol) -> str:
    """What MiniLM reads of a row: its file's path, its name's words and signature, then its doc, or its
    first lines where it has none; at most GIST_CHARS characters."""
    doc = symbol.docstring.strip() or "\n".join(symbol.source.splitlines()[:GIST_LINES])
    name = " ".join(split_identifier(symbol.qualname.replace(".", " ")))
    return f"{symbol.rel}\n{name} {symbol.signature}\n{doc}"[:GIST_CHARS]


def reweigh(merged: Sequence[Merged], cosines: Sequence[float], weight: float = WEIGHT) -> list[Merged]:
    """``merged`` with its first ``len(cosines)`` rows re-ordered by their fused score plus ``weight`` x
    their cosine scaled over those rows; a row without a fused score or without evidence (a resemblance
    row) keeps its place, and so does every row after them."""
    head = [i for i in range(min(len(cosines), len(merged)))
            if LEXICAL in merged[i].ranks and merged[i].fused is not None and not np.isnan(cosines[i])]
    if len(head) < 2:
        return list(merged)
    near = np.asarray([cosines[i] for i in head], np.float64)
    low, high = near.min(), near.max()
    scaled = (near - low) / (high - low) if high > low else np.zeros(len(near))
    score = [merged[i].fused + weight * s for i, s in zip(head, scaled)]
    order = sorted(range(len(head)), key=lambda j: (-score[j], j))
    out = list(merged)
    for slot, j in zip(head, order):
        m = merged[head[j]]
        out[slot] = Merged(m.position, m.tier, m.score, m.ranks, m.scores, round(score[j], 6))
    return out


class Reread:
    """The vectors of the rows' gists for one corpus (``scope``), made by ``embedder()`` when first asked."""

    def __init__(self, embedder: Callable[[], Embedder], scope: str, cache_dir: str | None = None) -> None:
        self._embedder = embedder
        self._scope = scope + "|reread"  # a file of its own: the embedding tier's saves keep only its keys
        self._cache_dir = cache_dir
        self._cache: VectorCache | None = None
        self._lock = threading.Lock()  # one re-read's embedding at a time (the model's context is one)

    def cosines(self, query: str, texts: Sequence[str], deadline: float | None) -> np.ndarray:
        """The query's cosine to each text, NaN for those not embedded by ``deadline`` (time.monotonic;
        None: all of them); texts embedded here are kept. Raises what the embedder raises."""
        embedder = self._embedder()
        with self._lock:
            cache = self._open(embedder)
            keys = [text_key(t) for t in texts]
            held = cache.held(keys)
            todo = [i for i, h in enumerate(held) if not h]
            made = 0
            for at in range(0, len(todo), BATCH):
                if deadline is not None and time.monotonic() >= deadline:
                    break
                batch = todo[at:at + BATCH]
                cache.put_many([keys[i] for i in batch], embedder.embed([texts[i] for i in batch], "document"))
                made += len(batch)
            if made:
                self._keep(cache)
            query_vector = embedder.embed([query], "query")[0]
            out = np.full(len(texts), np.nan)
            for i, held_now in enumerate(cache.held(keys)):
                if held_now:
                    out[i] = float(cache.get(keys[i]) @ query_vector)  # both unit length
        return out

    def _open(self, embedder: Embedder) -> VectorCache:
        if self._cache is None:
            info = embedder.info()
            self._cache = VectorCache(info.model_id, info.dims, scope=self._scope, directory=self._cache_dir)
        return self._cache

    @staticmethod
    def _keep(cache: VectorCache) -> None:
        """The new vectors written to the cache's file (atomically, vector_file.py), unless another
        process holds it: then they stay in memory for this session."""
        if cache.lead(journal=False):
            try:
                cache.save()
            finally:
                cache.let_go()


def reread(merged: list[Merged], symbols: Sequence[Symbol], query: str, reader: Reread,
           deadline: float | None, rows: int | None = None, weight: float | None = None) -> tuple[list[Merged], int]:
    """The answer with its first ``rows`` evidence rows re-read by MiniLM (see the module), and how many
    leading rows were: those embedded in time, up to the first that was not. ``rows`` and ``weight``:
    the knobs in force (engines/code/knobs.py reread_rows, reread_weight) when not given."""
    rows = value_of("code", "reread_rows", ROWS) if rows is None else rows
    weight = value_of("code", "reread_weight", WEIGHT) if weight is None else weight
    head = [m for m in merged[:rows] if LEXICAL in m.ranks]
    if len(head) < 2:
        return merged, 0
    cosines = reader.cosines(query, [gist_text(symbols[m.position]) for m in head], deadline)
    read = int(np.argmax(np.isnan(cosines))) if np.isnan(cosines).any() else len(head)
    if read < 2:
        return merged, 0
    # evidence rows lead the answer (a resemblance row is never above one), so ``head`` is its first rows
    return reweigh(merged, cosines[:read], weight), read


class RereadRows:
    """The code engine's side (engine.py): its ``_reread`` (a Reread, or None: switched off),
    ``_contextual`` (MiniLM's whole index asked for: no re-read) and ``wait_for_index``."""

    _reread: Reread | None = None
    reread_budget_s: float | None = BUDGET_S  # None: every row read (a snapshot shows the same rows anywhere)

    def _reread_rows(self, merged, symbols, query: str) -> tuple[list, str | None]:
        """The first rows re-read by MiniLM within the budget (all of them when this engine waits), and
        what the tier says of it; the answer as it was where the model cannot run (and why)."""
        if self._reread is None or self._contextual:  # MiniLM's own index answers soon: not raced for the model
            return merged, None
        try:
            merged, read = reread(merged, symbols, query, self._reread,
                                  None if self.wait_for_index or self.reread_budget_s is None
                                  else time.monotonic() + self.reread_budget_s)
        except Exception as exc:  # noqa: BLE001 - meaning failing never takes the answer down
            return merged, f"meaning did not re-read the rows: {getattr(exc, 'reason', None) or exc}"
        return merged, SAID.format(n=read) if read else None
