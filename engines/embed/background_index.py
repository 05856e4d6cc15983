"""The one lifecycle of a background vector index (notes' passages, code's symbols, products' texts).

Vectors come from the vector cache when a text was embedded before (keyed by model id and text
sha256), so an edit re-embeds only what changed. A build runs in a background thread (``start``) or
inline (``build``, a search or ``olai-tui index`` waiting on it); until it is done a search sees what
is embedded so far. A failed or unavailable build waits a cooldown before it is tried again.

A subclass says what its items are: ``_pending()`` (keys still to embed), ``_counts()`` (items
done, of), ``_all_keys()`` (the keys a complete index keeps in the cache), ``_up_to_date()`` (no
build is needed) and what a complete build measures on top (``_completed``).
"""

from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from engines.embed.base import Embedder, EmbedderUnavailable
from engines.embed.cache import VectorCache
from engines.embed.index_state import IndexState, SettlesWithCooldown
from engines.embed.retry import Cooldown, RetryPolicy
from engines.memory import give_back_free_memory

SAVE_EVERY_S = 20.0  # a long first build keeps its progress if it is stopped
FOLLOW_EVERY_S = 0.5  # how often a process following another's build looks for its new rows
ANOTHER_PROCESS = "another process"  # the reason an index building elsewhere gives


# The texts themselves are kept up to here (tests and benches read them); past it only counted. Kept
# whole, a cold build of the 100,000-note vault held its 324,897 texts (144 MB as strings) for the life
# of the process.
KEPT_TEXTS = 50_000


class EmbeddedTexts(list):
    """What this process embedded, in order: the first KEPT_TEXTS texts, and ``count`` of them all."""

    count = 0

    def record(self, texts: list[str]) -> None:
        self.count += len(texts)
        room = KEPT_TEXTS - len(self)
        if room > 0:
            self.extend(texts[:room])

    def clear(self) -> None:
        super().clear()
        self.count = 0


class BackgroundIndex(SettlesWithCooldown):
    embed_batch = 32  # texts per embed call: a subclass sets its own (about 0.5 s on 2 cores)
    thread_name = "olai-index"
    saves_in_order = False  # True: the cache file keeps _all_keys()'s order (a list, the order reads ask)
    save_every_s = SAVE_EVERY_S  # how often a long build saves what it has (a cheap one: only at its end)
    journalled = True  # each batch journalled as it lands, for a process that follows or takes over

    def __init__(self, embedder: Embedder, scope: str, cache_dir: str | None = None, of: int = 0) -> None:
        self.embedder = embedder
        self.scope = scope
        self.cache_dir = cache_dir
        self._cache: VectorCache | None = None
        self._lock = threading.RLock()
        self._texts: dict[bytes, str] = {}  # texts not yet known to be in the cache
        self._version = 0  # moves on every change of the items or the cache
        # the vectors a search reads, stacked: restacked when _version has moved past _matrix_version
        self._matrix = np.zeros((0, 1), np.float32)
        self._matrix_version = -1
        self._state = IndexState("idle", 0, of)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.embedded_texts = EmbeddedTexts()  # texts this process embedded (the rest came from the cache)
        # a failed batch is retried with backoff; a failed index tries again once per cooldown (retry.py)
        self.retry = RetryPolicy()
        self._cooldown = Cooldown()

    # -- what a subclass says ----------------------------------------------------------------------
    def _pending(self) -> list[bytes]:
        """The keys still to embed (called under the lock)."""
        return list(self._texts)

    def _counts(self) -> tuple[int, int]:
        """(items whose vectors are all in, items): called under the lock."""
        raise NotImplementedError

    def _all_keys(self) -> set[bytes]:
        """Every key of the index as it is now: a complete build drops every other vector from the cache."""
        raise NotImplementedError

    def _up_to_date(self) -> bool:
        """Nothing to build (called under the lock): ``start`` does not start a thread."""
        return self._cache is not None and not self._pending()

    def _current(self) -> bool:
        """``build`` returns at once, without a scan or a save (called under the lock)."""
        return False

    def _whole(self) -> None:
        """Called under the lock when a build leaves nothing pending, before the state says ready."""

    def _completed(self) -> None:
        """What a complete build measures on top, once it is ready (notes' floor, code's density)."""

    # -- the lifecycle -----------------------------------------------------------------------------
    def notices(self) -> list[str]:
        return list(self._cache.notices) if self._cache is not None else []

    def build(self, progress: Callable[[int, int], None] | None = None) -> IndexState:
        """Embed every text not in the cache; blocking. Safe to call again after edits."""
        with self._lock:
            if self._current() or self._cooling_down():
                return self._state  # nothing changed, or failed a moment ago: not again on every keystroke
        try:
            cache = self._open_cache()
        except EmbedderUnavailable as exc:
            return self._settle(IndexState("unavailable", 0, self._counted(self._counts)[1], exc.reason, exc.enable))
        except Exception as exc:  # noqa: BLE001 - a broken model must never take the cheap tiers down
            return self._settle(IndexState("failed", 0, self._counted(self._counts)[1], f"embedder failed: {exc}"))
        with self._lock:
            for key in [k for k in self._texts if k in cache]:  # their vectors are in the cache already
                del self._texts[key]
            self._state = IndexState("building", *self._counts())
        try:
            if cache.lead(journal=self.journalled):
                self._take_in(cache.refresh())  # what another process saved or journalled before it stopped
            else:
                followed = self._follow(cache, progress)
                if followed is not None:
                    return followed
            failed = self._embed_pending(cache, self._pending, self._counts, self.embed_batch, self.save_every_s,
                                         progress)
            if failed is not None:
                return failed
            with self._lock:
                finished = not self._pending()
                keep = self._all_keys() if finished else None
            if cache.leading:  # a follower that found everything embedded leaves the file to its builder
                cache.save(keep=keep, ordered=self.saves_in_order)  # a no-op when nothing changed
        finally:
            cache.let_go()
        give_back_free_memory()  # the batches' and the save's buffers
        if not finished:  # stopped early
            return self._settle(IndexState("idle", *self._counted(self._counts)))
        with self._lock:
            self._whole()
        state = self._settle(IndexState("ready", *self._counted(self._counts)))
        self._completed()
        give_back_free_memory()  # the count after the save, and the floor: 37-75 MB at the vault (two runs)
        return state

    def _follow(self, cache: VectorCache, progress) -> IndexState | None:
        """Another process is building these vectors: take its rows as it saves and journals them, until
        none is pending (None: finish as ready) or it is gone (None: this process builds the rest).
        The state says ``building`` for ``another process`` meanwhile."""
        while not self._stop.is_set():
            # the lock first: what a builder left is read after it is gone, not before
            leading = cache.lead(journal=self.journalled)
            self._take_in(cache.refresh())
            with self._lock:
                done, of = self._counts()
                self._state = IndexState("building", done, of, None if leading else ANOTHER_PROCESS)
                if leading or not self._pending():
                    return None
            if progress:
                progress(done, of)
            self._stop.wait(FOLLOW_EVERY_S)
        return self._settle(IndexState("idle", *self._counted(self._counts)))

    def _take_in(self, keys: list[bytes]) -> None:
        """Keys whose vectors another process put in the cache: no longer to embed here."""
        with self._lock:
            arrived = [k for k in keys if k in self._texts]
            for k in arrived:
                del self._texts[k]
            if arrived:
                self._landed(arrived)
                self._version += 1

    def start(self) -> None:
        """Build in a background thread (again, if edits arrived since the last build)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self._cooling_down() or self._up_to_date():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            state = self.build()
            with self._lock:
                if state.state != "ready" or not self._pending():
                    return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the background build (if one runs) to end."""
        with self._lock:  # start() makes and starts the thread under it: never one not started yet
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def open_cache(self) -> None:
        """Open the vector cache now, if the model can say which file is its (a build says why not)."""
        try:
            self._open_cache()
        except Exception:  # noqa: BLE001 - the build opens it again and reports what failed
            pass

    def _open_cache(self) -> VectorCache:
        if self._cache is None:
            info = self.embedder.info()
            self._cache = VectorCache(info.model_id, info.dims, scope=self.scope, directory=self.cache_dir)
        return self._cache


class LazyVectors:
    """An engine's embedder and background index, each made on first use: a search that never asks
    for meaning never loads the model. The engine makes its index in ``_new_index()`` (with
    ``self.embedder``) and keeps ``name``, ``item_noun`` and a ``_lock`` (engines/contract.py)."""

    _embedder: Embedder | None = None
    _vectors: BackgroundIndex | None = None
    embedded_noun = "embedded"  # what index_summary counts: notes say "passages embedded"

    def _new_index(self) -> BackgroundIndex:
        raise NotImplementedError

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from engines.embed.choose import embedder_for  # lazily: the cheap tiers never load it

            self._embedder = embedder_for(self.name)  # config.toml [<engine>] model / OLAI_EMBED_MODEL
        return self._embedder

    @property
    def vectors(self):
        with self._lock:  # two first searches at once make one index, not two
            if self._vectors is None:
                self._vectors = self._new_index()
            return self._vectors

    semantic = vectors  # the notes engine's name for it (``state()`` with done/of)

    def build_index(self, progress=None):
        return self.vectors.build(progress=progress)

    def start_indexing(self) -> None:
        self.vectors.start()

    def stop_indexing(self) -> None:
        if self._vectors is not None:
            self._vectors.stop()

    def start(self) -> None:
        from engines.tiers import recall_switched_off

        if not recall_switched_off():
            self.start_indexing()

    def close(self) -> None:
        self.stop_indexing()

    def index_summary(self, state) -> str:
        return f"{state.of:,} {self.item_noun}, {self.vectors.embedded_texts.count:,} {self.embedded_noun} now"

    def vector_notices(self) -> list[str]:
        """The vector cache's notices, then the model's: which answers, and any fallback."""
        from engines.embed.choose import model_notices

        return (self._vectors.notices() if self._vectors is not None else []) + model_notices(self._embedder)
