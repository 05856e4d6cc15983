"""The vectors recall source: the local embedder over one text per product, searched by cosine.

Vectors come from the vector cache when a product's text was embedded before (keyed by model id
and text sha256), so a catalogue is embedded once across runs (Icecat's 19,406 products: 330 s on
2 shared cores, then 0.3 s to load). Until the build is done, searches see the products embedded
so far and the source says ``indexing`` with how far it got.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from engines.embed.background_index import ANOTHER_PROCESS, FOLLOW_EVERY_S, SAVE_EVERY_S, BackgroundIndex
from engines.embed.base import Embedder, EmbedderUnavailable
from engines.embed.cache import VectorCache, text_key
from engines.embed.index_state import IndexState
from engines.embed.retry import BatchFailed, check_shape, embed_checked
from engines.products.request import Request

VECTOR_TOP = 40  # as many as the fusion takes from this source (recall.QUOTAS["vectors"])
EMBED_BATCH = 32  # products per embed call: ~0.3 s on 2 cores, so progress moves and a stop is quick
PUBLISH_EVERY_S = 2.0  # searches during a build see new vectors at most this late


class ProductVectors(BackgroundIndex):
    """The lifecycle (start, stop, cache, cooldown) of engines/embed/background_index.py; its own build
    over a fixed list of texts, publishing the matrix every PUBLISH_EVERY_S while it runs."""

    thread_name = "olai-products-vectors"

    def __init__(self, embedder: Embedder, texts: list[str], scope: str, cache_dir: str | None = None,
                 wait: bool = False, wait_progress: Callable[[int, int], None] | None = None) -> None:
        """``wait``: a search waits for the vectors (the command line), told to ``wait_progress(done, of)``."""
        super().__init__(embedder, scope, cache_dir, of=len(texts))
        self.texts = texts
        self.keys = [text_key(t) for t in texts]
        self.wait = wait
        self.wait_progress = wait_progress
        self._rows = np.zeros(0, np.int64)  # the product of each row of _matrix

    def _pending(self) -> list[bytes]:
        return [k for k in self.keys if self._cache is None or k not in self._cache]

    def _up_to_date(self) -> bool:
        return self._state.state in ("building", "ready")

    # -- building --------------------------------------------------------------------------------
    def state(self) -> IndexState:
        with self._lock:
            return self._state

    def build(self, progress=None) -> IndexState:
        """Embed every product text not in the cache; blocking; idempotent."""
        with self._lock:
            if self._state.state == "ready" or self._cooling_down():
                return self._state
            self._state = IndexState("building", len(self._rows), len(self.keys))
        cache = None
        try:
            cache = self._open_cache()
            self._follow_another(cache)
            missing = list(dict.fromkeys(k for k in self.keys if k not in cache))
            text_of = dict(zip(self.keys, self.texts))
            self._publish(cache)
            last_save = last_publish = time.monotonic()
            for start in range(0, len(missing), EMBED_BATCH):
                if self._stop.is_set():
                    break
                batch = missing[start:start + EMBED_BATCH]
                texts = [text_of[k] for k in batch]
                cache.put_many(batch, embed_checked(self.embedder, texts, cache.dims, self.retry, self._stop))
                self.embedded_texts.record(texts)
                if time.monotonic() - last_publish > PUBLISH_EVERY_S:  # restacking is O(n): not every batch
                    self._publish(cache)
                    last_publish = time.monotonic()
                if progress:
                    progress(min(start + EMBED_BATCH, len(missing)), len(missing))
                if time.monotonic() - last_save > SAVE_EVERY_S:
                    cache.save()
                    last_save = time.monotonic()
            self._publish(cache)
            if cache.leading:  # a follower that found every vector saved leaves the file to its builder
                cache.save(keep=set(self.keys))
        except EmbedderUnavailable as exc:
            return self._settle(IndexState("unavailable", 0, len(self.keys), exc.reason, exc.enable))
        except BatchFailed as exc:  # every try failed: keep what was embedded, say why
            self._publish(self._cache)
            self._cache.save()
            return self._settle(IndexState("failed", len(self._rows), len(self.keys), exc.reason))
        except Exception as exc:  # noqa: BLE001 - a broken model never takes the cheap sources down
            return self._settle(IndexState("failed", len(self._rows), len(self.keys), f"embedding failed: {exc}"))
        finally:
            if cache is not None:
                cache.let_go()
        done = len(self._rows)
        return self._settle(IndexState("ready" if done == len(self.keys) else "idle", done, len(self.keys)))

    def _follow_another(self, cache: VectorCache) -> None:
        """While another process embeds this catalogue (it holds the builder's lock), take its vectors as it
        saves and journals them; return when this process leads (it died or finished) or none is missing."""
        while not cache.lead() and not self._stop.is_set():
            cache.refresh()
            self._publish(cache)
            with self._lock:
                self._state = IndexState("building", len(self._rows), len(self.keys), ANOTHER_PROCESS)
            if len(self._rows) == len(self.keys):
                return
            self._stop.wait(FOLLOW_EVERY_S)
        cache.refresh()  # what the builder journalled in its last moments, before this process took over

    def _publish(self, cache: VectorCache) -> None:
        rows = [i for i, k in enumerate(self.keys) if k in cache]
        matrix = cache.get_many([self.keys[i] for i in rows]) if rows else np.zeros((0, 1), np.float32)
        with self._lock:
            self._rows, self._matrix = np.asarray(rows, np.int64), matrix
            if self._state.state == "building":
                self._state = IndexState("building", len(rows), len(self.keys))

    # -- searching -------------------------------------------------------------------------------
    def cosines(self, query_vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions embedded so far, their cosine to the query): for baselines that rank by vectors alone."""
        with self._lock:
            rows, matrix = self._rows, self._matrix
        return rows, (matrix @ query_vector if len(rows) else np.zeros(0, np.float32))

    def __call__(self, request: Request, allowed: np.ndarray) -> tuple[list[int], str, str | None]:
        """(ranked positions, status, reason): status answered | empty | indexing | unavailable | failed."""
        if self.wait:
            self.build(progress=self.wait_progress)
        else:
            self.start()
        state = self.state()
        if state.state in ("unavailable", "failed"):
            return [], state.state, state.reason
        try:
            info = self.embedder.info()
            floor = info.floor
            queries = self.embedder.embed([request.text[:300]], "query")
            check_shape(queries, 1, info.dims)  # a query vector of another width than the index's
            query = queries[0]
        except EmbedderUnavailable as exc:
            return [], "unavailable", exc.reason
        except Exception as exc:  # noqa: BLE001
            return [], "failed", f"embedding the query failed: {exc}"
        with self._lock:
            rows, matrix = self._rows, self._matrix
        if not len(rows):
            return [], "indexing", f"0/{len(self.keys)} products embedded"
        cosine = matrix @ query
        keep = (cosine >= floor) & allowed[rows]
        rows, cosine = rows[keep], cosine[keep]
        top = np.argpartition(-cosine, VECTOR_TOP - 1)[:VECTOR_TOP] if len(cosine) > VECTOR_TOP else np.arange(len(cosine))
        ranked = [int(rows[i]) for i in sorted(top.tolist(), key=lambda i: (-float(cosine[i]), int(rows[i])))]
        state = self.state()
        if state.state != "ready":
            return ranked, "indexing", f"{state.done}/{state.of} products embedded"
        return ranked, "answered" if ranked else "empty", None
