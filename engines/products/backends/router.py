"""The recall router: which backend answers, within what deadline, and when to stop asking Milvus.

``backend`` (config ``[products.recall] backend``):
  memory       (default) memory answers; Milvus only when memory cannot (vectors not loaded yet, failed)
  milvus       Milvus first, memory the fallback (deadline, breaker, any failure)
  milvus-only  Milvus alone: when it fails, its two sources say so and the other sources answer
  memory-only  never Milvus

Milvus has a deadline (400 ms by default) and a breaker: 3 failures in a row open it for 30 s, in
which memory answers at once with the reason; then one try closes it again or re-opens it. Every
answer says which backend answered (``recall_backend``) and why it fell back (``recall_fallback``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from engines.breaker import Breaker
from engines.milvus.asking import DEADLINE_S, Asks, DeadlineAsk
from engines.products.recall import Recall

BACKENDS = ("memory", "milvus", "milvus-only", "memory-only")
NOT_READY = ("indexing", "unavailable", "failed")


@dataclass
class RecallSettings:
    backend: str = "memory"
    uri: str | None = None
    collection: str | None = None  # the alias; default: olai_ + the catalogue folder's name
    deadline_ms: float = DEADLINE_S * 1000
    token_env: str | None = None


class RecallRouter(Asks):
    def __init__(self, backend: str = "memory", milvus=None, deadline_s: float = DEADLINE_S,
                 breaker: Breaker | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"recall backend {backend!r}: choose from {', '.join(BACKENDS)}")
        if backend in ("milvus", "milvus-only") and milvus is None:
            raise ValueError(f"recall backend {backend}: no Milvus configured (uri)")
        self.backend, self.milvus, self.deadline_s = backend, milvus, deadline_s
        self.asking = DeadlineAsk(deadline_s, breaker, name="olai-recall-router")

    def close(self) -> None:
        if self.milvus is not None:
            self.milvus.close()
        self.asking.close()

    def recall(self, engine, request, sources: tuple[str, ...], allowed) -> tuple[Recall, str, str | None]:
        """(the fused recall, the backend that answered, why it fell back or None)."""
        vectors_on = engine._vectors_on(sources)
        asks_milvus = ("words" in sources or vectors_on) and not request.code and request.text.strip()
        if self.milvus is None or self.backend == "memory-only" or not asks_milvus:
            return self._memory(engine, request, sources, allowed, vectors_on), "memory", None
        if self.backend == "memory":
            found = self._memory(engine, request, sources, allowed, vectors_on)
            state = found.status.get("vectors")
            if state not in NOT_READY:
                return found, "memory", None
            why = f"memory vectors {state}" + (f" ({found.reasons['vectors']})" if found.reasons.get("vectors") else "")
            remote, problem = self._ask_milvus(engine, request, sources, allowed, vectors_on)
            if remote is None:
                return found, "memory", f"{why}; milvus: {problem}"
            return remote, "milvus", None
        remote, problem = self._ask_milvus(engine, request, sources, allowed, vectors_on)
        if remote is not None:
            return remote, "milvus", None
        if self.backend == "milvus-only":
            failed = engine.index.recall(request, (lambda r, a: ([], "failed", problem)) if vectors_on else None,
                                         sources, allowed=allowed, words=lambda r, a: [])
            if "words" in failed.status:
                failed.status["words"], failed.reasons["words"] = "failed", problem
            return failed, "milvus", None
        return self._memory(engine, request, sources, allowed, vectors_on), "memory", f"milvus: {problem}"

    @staticmethod
    def _memory(engine, request, sources, allowed, vectors_on) -> Recall:
        return engine.index.recall(request, engine.vectors if vectors_on else None, sources, allowed=allowed)

    def _ask_milvus(self, engine, request, sources, allowed, vectors_on) -> tuple[Recall | None, str | None]:
        refused = self.asking.refusal()
        if refused:
            return None, refused
        started = time.monotonic()
        query_vector, floor = None, 0.0
        if vectors_on:
            try:  # the query is embedded here, by the same local model as the published vectors
                embedder = engine.vectors.embedder
                floor = embedder.info().floor
                query_vector = embedder.embed([request.text[:300]], "query")[0]
            except Exception as exc:  # noqa: BLE001 - no model: memory reports the vectors source itself
                return None, f"no query vector ({exc})"
        lists, problem = self.asking.ask(
            lambda left: self.milvus.lists(request, allowed, engine.catalogue.by_id, query_vector, floor,
                                           "words" in sources, left), started, on_failure=self.milvus.forget)
        if lists is None:
            return None, problem
        vectors = (lambda r, a: (lists["vectors"], "answered" if lists["vectors"] else "empty", None)) \
            if vectors_on else None
        found = engine.index.recall(request, vectors, sources, allowed=allowed, words=lambda r, a: lists["words"])
        return found, None


def memory_router() -> RecallRouter:
    return RecallRouter("memory")


def settings_from_config(path: Path | None = None) -> tuple[RecallSettings, str | None]:
    """``[products.recall]`` of config.toml: (the settings, a one-line problem or None)."""
    from engines.settings import read_config

    config = read_config(path)
    if config.problem:
        return RecallSettings(), f"{config.path}: {config.problem}; memory recall answers"
    path, section = config.path, config.section("products", "recall")
    if not section:
        return RecallSettings(), None
    settings = RecallSettings(**{k: section[k] for k in RecallSettings.__dataclass_fields__ if k in section})
    if settings.backend not in BACKENDS:
        return RecallSettings(), f"{path}: [products.recall] backend {settings.backend!r} is not one of " \
                                 f"{', '.join(BACKENDS)}; memory recall answers"
    if settings.backend in ("milvus", "milvus-only") and not settings.uri:
        return RecallSettings(), f"{path}: [products.recall] backend {settings.backend} needs uri; memory recall answers"
    return settings, None


def router_for(engine, settings: RecallSettings) -> RecallRouter:
    """A router over ``engine``'s catalogue (needs pymilvus when a uri is set)."""
    if not settings.uri or settings.backend == "memory-only":
        return RecallRouter("memory-only" if settings.backend == "memory-only" else "memory")
    from engines.products.backends.collection import fingerprint
    from engines.products.backends.milvus import MilvusRecall
    from engines.products.backends.publish import alias_for

    alias = settings.collection or alias_for(catalogue_name(engine.catalogue))
    token = os.environ.get(settings.token_env) if settings.token_env else None
    milvus = MilvusRecall(settings.uri, alias, fingerprint(engine.catalogue, engine.knowledge), token=token)
    return RecallRouter(settings.backend, milvus, deadline_s=float(settings.deadline_ms) / 1000)


def catalogue_name(catalogue) -> str:
    """The name a catalogue is published under: its file's or folder's name ("products", "icecat"), or a
    database catalogue's table ("tuotteet" for postgresql://.../db and table tuotteet)."""
    from engines.products.database import is_database_url

    if is_database_url(catalogue.origin) and getattr(catalogue, "readings", None):
        return catalogue.readings[0].where.rsplit("#", 1)[-1] or "products"
    name = Path(catalogue.origin).name if catalogue.origin else ""
    return name.split(".")[0] or "products"


def router_from_config(engine, path: Path | None = None) -> tuple[RecallRouter, str | None]:
    settings, problem = settings_from_config(path)
    try:
        return router_for(engine, settings), problem
    except ImportError:
        return RecallRouter("memory"), "pymilvus is not installed (pip install -e '.[milvus]'); memory recall answers"
