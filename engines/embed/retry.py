"""When an embed batch fails: a bounded retry with backoff, then a cooldown before the next attempt.

Every index that embeds in the background (notes passages, code symbols, products) goes through
``embed_checked``: a batch that raises is tried again after 0.25 s, then 0.5 s; the third failure is
reported (``BatchFailed``, with the cause) and the index settles ``failed``. A model that cannot run
(``EmbedderUnavailable``) is not retried: nothing changes by waiting a quarter of a second.

After a failure the index does not try again on the next keystroke: a ``Cooldown`` lets one new
attempt through every ``COOLDOWN_S``. So a fault that clears (the model file put right, memory
freed) brings meaning back without a restart, and a crash loop costs one attempt per cooldown.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engines.embed.base import Embedder, EmbedderUnavailable

# A batch is ~0.5 s of work on 2 cores (EMBED_BATCH in each index); three tries with 0.25 s and 0.5 s
# between them give a transient fault 0.75 s to clear and report a persistent one within ~2.5 s.
TRIES = 3
BACKOFF_S = 0.25  # doubled after each failed try
# Loading the model (the step a broken file fails in) took 100-200 ms here, its sha256 included; one attempt per 30 s is
# invisible, while retrying per keystroke (~5 a second while typing) would load it over and over.
COOLDOWN_S = 30.0


@dataclass(frozen=True)
class RetryPolicy:
    tries: int = TRIES
    backoff_s: float = BACKOFF_S
    cooldown_s: float = COOLDOWN_S


class BatchFailed(RuntimeError):
    """An embed batch failed every try (or answered vectors of the wrong shape); ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def embed_checked(embedder: Embedder, texts: Sequence[str], dims: int, policy: RetryPolicy,
                  stop: threading.Event | None = None) -> np.ndarray:
    """The batch's vectors, float32 [len(texts), dims]. Raises EmbedderUnavailable or BatchFailed."""
    last: Exception | None = None
    tried = 0
    for attempt in range(max(1, policy.tries)):
        if attempt:
            delay = policy.backoff_s * 2 ** (attempt - 1)
            if stop is not None and stop.wait(delay):
                break  # stopping: do not sit out the backoff
            if stop is None:
                time.sleep(delay)
        tried += 1
        try:
            vectors = np.asarray(embedder.embed(list(texts), "document"), dtype=np.float32)
        except EmbedderUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the model is retried, then reported
            last = exc
            continue
        check_shape(vectors, len(texts), dims)
        return vectors
    raise BatchFailed(f"embedding failed after {tried} {'try' if tried == 1 else 'tries'}: "
                      f"{last.__class__.__name__}: {last}")


def check_shape(vectors: np.ndarray, rows: int, dims: int) -> None:
    """A vector of another width than the model declared would be stored and then break every
    product with the index: refused here, with both widths named. Not retried (it will not change)."""
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape != (rows, dims):
        raise BatchFailed(f"the embedder answered vectors of shape {tuple(vectors.shape)}, "
                          f"expected ({rows}, {dims}): a model of another width?")


class Cooldown:
    """Whether a failed index may try again now: at most once per ``cooldown_s``."""

    def __init__(self) -> None:
        self._failed_at: float | None = None

    def failed(self) -> None:
        self._failed_at = time.monotonic()

    def cleared(self) -> None:
        self._failed_at = None

    def may_retry(self, cooldown_s: float) -> bool:
        return self._failed_at is None or time.monotonic() - self._failed_at >= cooldown_s
