"""What every background vector index reports, and how it settles after a build (notes, code, products)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from engines.embed.base import EmbedderUnavailable
from engines.embed.cache import VectorCache
from engines.embed.retry import BatchFailed, embed_checked


@dataclass
class IndexState:
    state: str  # idle | building | ready | unavailable | failed
    done: int  # items (notes, symbols, products) whose vectors are all in
    of: int
    reason: str | None = None
    enable: str | None = None


def tell_stage(progress, name: str) -> None:
    """Tell a build's ``progress`` which stage starts (``progress.stage(name)``: the command line's bar
    says each on its own line), where it takes one."""
    stage = getattr(progress, "stage", None)
    if stage is not None:
        stage(name)


PROGRESS_EVERY_S = 0.25  # a progress line moves about as often as a person sees it move


QUEUE_WINDOW = 4096  # texts sorted by length together; see embedding_order


def embedding_order(keys: list[bytes], texts: dict[bytes, str]) -> list[bytes]:
    """The pending keys in the order they are embedded, last first (a batch is popped from the end).

    Similar lengths together, as llama.cpp packs a batch's texts into one decode, but only within
    windows of ``QUEUE_WINDOW`` keys in the items' own order: sorted over the whole index, a 100,000-
    note vault embedded every title first and no note had all its vectors for the first two thirds
    of its build, so meaning answered nothing there; by window, notes become ready as it goes.
    Sorted by numpy (stable), which lets go of the interpreter: sorted() over 300,000 keys held it
    ~50 ms, a hitch in the workbench.
    """
    lengths = np.fromiter((len(texts[k]) for k in keys), dtype=np.int64, count=len(keys))
    window = np.arange(len(keys), dtype=np.int64) // QUEUE_WINDOW
    return [keys[i] for i in np.lexsort((lengths, window))[::-1].tolist()]


class SettlesWithCooldown:
    """For an index with ``_lock``, ``_state``, ``_cooldown`` (retry.Cooldown) and ``retry`` (RetryPolicy):
    a failed or unavailable build starts the cooldown, a ready one clears it. With ``embedder``,
    ``_texts`` (key -> text still to embed), ``_version``, ``_stop`` and ``embedded_texts`` too, it
    embeds what is pending (``_embed_pending``)."""

    def _embedding_order(self, keys: list[bytes]) -> list[bytes]:
        """The pending keys as a build embeds them, last first (an index may put some first)."""
        return embedding_order(keys, self._texts)

    def _embed_pending(self, cache: VectorCache, pending: Callable[[], list[bytes]],
                       counts: Callable[[], tuple[int, int]], batch_size: int, save_every_s: float,
                       progress: Callable[[int, int], None] | None) -> IndexState | None:
        """Embed the pending texts in batches until none is left or a stop is asked.

        Returns the settled state when the embedder fails (what was embedded stays in the cache),
        None otherwise. ``pending`` and ``counts`` (done, of) are called under the lock.
        """
        last_save, save_every = time.monotonic(), save_every_s
        last_progress = 0.0
        queue: list[bytes] = []  # the pending keys in embedding_order: a batch is taken from the end
        queued_at = None  # the _version the queue was made at (None: make it)
        while not self._stop.is_set():
            with self._lock:
                if queued_at != self._version or not queue:
                    # Made again only when the items changed (an edit, a note added): asking which keys
                    # are pending and sorting them once per batch cost more than embedding the batch at
                    # 100,000 notes (300,000 keys scanned and sorted for every 64 texts).
                    queue = self._embedding_order(pending())
                    queued_at = self._version
                    if not queue:
                        return None
                batch = []
                while queue and len(batch) < batch_size:
                    key = queue.pop()
                    if key in self._texts:  # not dropped by an edit since
                        batch.append(key)
                if not batch:
                    queued_at = None  # every queued key went away: ask again
                    continue
                texts = [self._texts[k] for k in batch]
            try:
                vectors = embed_checked(self.embedder, texts, cache.dims, self.retry, self._stop)
            except EmbedderUnavailable as exc:
                return self._settle(IndexState("unavailable", *self._counted(counts), exc.reason, exc.enable))
            except BatchFailed as exc:  # every try failed: the vectors embedded so far stay in the cache
                cache.save()
                return self._settle(IndexState("failed", *self._counted(counts), exc.reason))
            except Exception as exc:  # noqa: BLE001 - a broken model must never take the cheap tier down
                return self._settle(IndexState("failed", *self._counted(counts), f"embedding failed: {exc}"))
            with self._lock:
                changed = self._version != queued_at  # items changed while the batch embedded
                cache.put_many(batch, vectors)
                for k in batch:
                    self._texts.pop(k, None)
                self._landed(batch)
                self._version += 1
                queued_at = None if changed else self._version  # our own step keeps the queue
                self.embedded_texts.record(texts)
            now = time.monotonic()
            if progress and (now - last_progress >= PROGRESS_EVERY_S or not queue):
                last_progress = now
                progress(*self._counted(counts))  # counting every item, so not after every batch
            if now - last_save > save_every:
                cache.save()
                # the whole file is written each time: at 300,000 vectors that is seconds, so a large
                # index saves less often (at most a tenth of the build spent saving)
                last_save = time.monotonic()
                save_every = max(save_every_s, 10 * (last_save - now))
        return None

    def _landed(self, keys: list[bytes]) -> None:
        """These keys' vectors are in the cache now (under the lock): an index that keeps its done count
        as it goes updates it here instead of counting every item again."""

    def _counted(self, counts: Callable[[], tuple[int, int]]) -> tuple[int, int]:
        with self._lock:
            return counts()

    def _settle(self, state: IndexState) -> IndexState:
        with self._lock:
            self._state = state
            if state.state in ("unavailable", "failed"):
                self._cooldown.failed()
            elif state.state == "ready":
                self._cooldown.cleared()
        return state

    def _cooling_down(self) -> bool:
        """Unavailable or failed, and the last attempt is younger than the cooldown."""
        return self._state.state in ("unavailable", "failed") and not self._cooldown.may_retry(self.retry.cooldown_s)
