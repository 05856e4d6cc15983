"""What every background vector index reports, and how it settles after a build (notes, code, products)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

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


class SettlesWithCooldown:
    """For an index with ``_lock``, ``_state``, ``_cooldown`` (retry.Cooldown) and ``retry`` (RetryPolicy):
    a failed or unavailable build starts the cooldown, a ready one clears it. With ``embedder``,
    ``_texts`` (key -> text still to embed), ``_version``, ``_stop`` and ``embedded_texts`` too, it
    embeds what is pending (``_embed_pending``)."""

    def _embed_pending(self, cache: VectorCache, pending: Callable[[], list[bytes]],
                       counts: Callable[[], tuple[int, int]], batch_size: int, save_every_s: float,
                       progress: Callable[[int, int], None] | None) -> IndexState | None:
        """Embed the pending texts in batches until none is left or a stop is asked.

        Returns the settled state when the embedder fails (what was embedded stays in the cache),
        None otherwise. ``pending`` and ``counts`` (done, of) are called under the lock.
        """
        last_save = time.monotonic()
        while not self._stop.is_set():
            with self._lock:
                missing = pending()
                if not missing:
                    return None
                # Similar lengths together: llama.cpp packs a batch's texts into one decode.
                batch = sorted(missing, key=lambda k: len(self._texts[k]))[:batch_size]
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
                cache.put_many(batch, vectors)
                for k in batch:
                    self._texts.pop(k, None)
                self._version += 1
                self.embedded_texts.extend(texts)
                done, of = counts()
            if progress:
                progress(done, of)
            if time.monotonic() - last_save > save_every_s:
                cache.save()
                last_save = time.monotonic()
        return None

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
