"""The teacher's vectors: MiniLM (the shipped GGUF, through llama.cpp, as the code pane embeds) over the
training texts, computed once and kept in the project's vector cache under the user cache dir.

This is the slow part of a reproduction: on 2 cores MiniLM embeds ~40 chunks a second (CoSQA's 6,267
functions in ~160 s), so the texts are capped (``TEACHER_CODES`` and ``TEACHER_QUERIES`` in __main__.py) and the cache keeps
what was embedded every SAVE_EVERY texts: an interrupted run goes on where it stopped.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

SCOPE = "code-table-teacher"  # one cache file for the teacher's vectors of the training texts
BATCH = 32
SAVE_EVERY = 1024
SAVE_SECONDS = 60  # and at most once a minute: a save writes the whole file (100+ MB), short texts come fast


def teacher_vectors(texts: Sequence[str], say: Callable[[str], None] = print,
                    cached_only: bool = False, scope: str = SCOPE) -> tuple[list[int], np.ndarray]:
    """(which texts, MiniLM's unit vectors of them [n, 384] float32): every text, from the cache where it
    has them; ``cached_only``: only those the cache holds (a quick experiment while it fills); ``scope``:
    the cache file (the prose table keeps its own: a save writes the whole file)."""
    from engines.embed.cache import VectorCache, text_key
    from engines.embed.llama import LlamaEmbedder

    embedder = LlamaEmbedder()
    info = embedder.info()
    cache = VectorCache(info.model_id, info.dims, scope=scope)
    keys = [text_key(t) for t in texts]
    held = cache.held(keys)
    todo = [i for i, h in enumerate(held) if not h]
    say(f"teacher: {len(texts) - len(todo):,} of {len(texts):,} texts cached, {len(todo):,} to embed")
    if cached_only:
        kept = [i for i, h in enumerate(held) if h]
        return kept, cache.get_many([keys[i] for i in kept])
    started, since_save, saved_at = time.monotonic(), 0, time.monotonic()
    for at in range(0, len(todo), BATCH):
        part = todo[at:at + BATCH]
        cache.put_many([keys[i] for i in part], embedder.embed([texts[i] for i in part], "document"))
        since_save += len(part)
        if (since_save >= SAVE_EVERY and time.monotonic() - saved_at >= SAVE_SECONDS) or at + BATCH >= len(todo):
            cache.save()
            since_save, saved_at = 0, time.monotonic()
            done = at + len(part)
            rate = done / max(time.monotonic() - started, 1e-9)
            say(f"teacher: {done:,}/{len(todo):,} embedded, {rate:.1f} texts/s, "
                f"~{(len(todo) - done) / max(rate, 1e-9) / 60:.0f} min left")
    vectors = cache.get_many(keys)
    if vectors is None:
        raise RuntimeError(f"the teacher's cache {cache.path} lost vectors while this run read it")
    return list(range(len(texts))), vectors
