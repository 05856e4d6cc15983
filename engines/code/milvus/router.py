"""Which backend answers the code tiers, within what deadline, and when to stop asking Milvus.

``backend`` (config ``[code.search] backend``, or ``--backend`` on a search):
  local        (default) the local index answers; Milvus is not asked
  milvus       Milvus first; the local index answers when it is late, down, refuses, or holds
               another version of the tree (deadline, breaker: engines/milvus/asking.py, as products')
  milvus-only  Milvus alone: when it fails, the tier says ``failed`` with the reason

Every answer says which backend answered (``backend``) and, when the local index stood in, why
(``backend_fallback``); the reason is also a notice, said once until Milvus answers again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engines.code.milvus import collection as coll
from engines.milvus.asking import DEADLINE_S, Asks, DeadlineAsk

BACKENDS = ("local", "milvus", "milvus-only")


@dataclass
class SearchSettings:
    backend: str = "local"
    uri: str | None = None
    collection: str = coll.COLLECTION
    tree: str | None = None  # the name the tree is published under (default: its folder's name)
    deadline_ms: float = DEADLINE_S * 1000
    token_env: str | None = None


class RemoteFailed(Exception):
    """milvus-only and Milvus did not answer: the reason, for the tier's report."""


class CodeRouter(Asks):
    def __init__(self, backend: str = "local", milvus=None, deadline_s: float = DEADLINE_S, breaker=None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"code search backend {backend!r}: choose from {', '.join(BACKENDS)}")
        if backend != "local" and milvus is None:
            raise ValueError(f"code search backend {backend}: no Milvus configured (uri)")
        self.backend, self.milvus = backend, milvus
        self.asking = DeadlineAsk(deadline_s, breaker, name="olai-code-router")

    @property
    def remote(self) -> bool:
        return self.backend != "local"

    def ask(self, call, started: float | None = None):
        """(Milvus's answer or None, why not); milvus-only raises RemoteFailed instead of falling back."""
        refused = self.asking.refusal()
        if refused:
            found, why = None, refused
        else:
            found, why = self.asking.ask(call, started, on_failure=self.milvus.forget)
        if found is None and self.backend == "milvus-only":
            raise RemoteFailed(f"milvus: {why}")
        return found, (None if found is not None else f"milvus: {why}")

    def close(self) -> None:
        if self.milvus is not None:
            self.milvus.close()
        self.asking.close()


def settings_from_config(path: Path | None = None) -> tuple[SearchSettings, str | None]:
    """``[code.search]`` of config.toml: (the settings, a one-line problem or None)."""
    from engines.settings import read_config

    config = read_config(path)
    if config.problem:
        return SearchSettings(), None  # the config's own problem is said where it is read for every pane
    section = config.section("code", "search")
    if not section:
        return SearchSettings(), None
    settings = SearchSettings(**{k: section[k] for k in SearchSettings.__dataclass_fields__ if k in section})
    return checked(settings, f"{config.path}: [code.search]")


def checked(settings: SearchSettings, where: str) -> tuple[SearchSettings, str | None]:
    if settings.backend not in BACKENDS:
        return SearchSettings(), f"{where} backend {settings.backend!r} is not one of {', '.join(BACKENDS)}; " \
                                 "the local index answers"
    if settings.backend != "local" and not settings.uri:
        return SearchSettings(), f"{where} backend {settings.backend} needs uri; the local index answers"
    return settings, None


def router_for(engine, settings: SearchSettings) -> CodeRouter:
    """A router over ``engine``'s tree (needs pymilvus when a Milvus backend is asked for)."""
    if settings.backend == "local" or not settings.uri:
        return CodeRouter("local")
    from engines.code.milvus.search import MilvusCode

    tree = settings.tree or coll.tree_name(engine.corpus_label)
    token = os.environ.get(settings.token_env) if settings.token_env else None
    milvus = MilvusCode(settings.uri, [tree], engine.fingerprint, settings.collection, token=token)
    return CodeRouter(settings.backend, milvus, deadline_s=float(settings.deadline_ms) / 1000)
