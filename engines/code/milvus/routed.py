"""The code engine's side of the router: its tiers' rankings from Milvus or from the local index.

The engine asks for its lexical ranking and, when Milvus answered that, for Milvus's nearest symbols;
it gets positions in its own index either way, so rows, merges and the envelope are the local ones.
Answers from a routed engine carry ``backend`` (who answered) and ``backend_fallback`` (why the local
index stood in, or None); an engine on the local backend adds neither, so its answers stay as they were.
"""

from __future__ import annotations

import threading

import numpy as np

from engines.code.meaning import Meaning
from engines.code.merge import EMBEDDING
from engines.code.milvus import collection as coll
from engines.code.milvus.router import CodeRouter, RemoteFailed, SearchSettings, router_for, settings_from_config
from engines.embed.query import query_vector
from engines.tiers import recall_switched_off

CANDIDATES = 100  # as the engine's: each tier's head that the merge sees


class Routed:
    def __init__(self, engine, settings: SearchSettings | None) -> None:
        self.engine = engine
        self._settings = settings
        self._router: CodeRouter | None = None
        self._problem: str | None = None
        self._said: str | None = None  # the fallback reason told as a notice, until Milvus answers again
        self._lock = threading.Lock()
        self._fingerprint: tuple[object, str] | None = None

    @property
    def router(self) -> CodeRouter:
        with self._lock:
            if self._router is None:
                settings, self._problem = (self._settings, None) if self._settings else settings_from_config()
                try:
                    self._router = router_for(self.engine, settings)
                except ImportError:
                    self._problem = "pymilvus is not installed (pip install -e '.[milvus]'); the local index answers"
                    self._router = CodeRouter("local")
            return self._router

    def fingerprint(self, index, symbols) -> str:
        memo = self._fingerprint
        if memo is None or memo[0] is not index:
            memo = self._fingerprint = (index, coll.fingerprint(symbols))
        return memo[1]

    def notices(self) -> list[str]:
        self.router  # noqa: B018 - reads the settings, so a problem with them is said
        return [n for n in (self._problem, self._said) if n]

    def lexical(self, lexical, query: str, k: int) -> tuple[list[tuple[int, float]], int, dict, str | None]:
        """(ranked positions, total, the envelope's extras, why the tier failed or None)."""
        router = self.router
        if not router.remote:
            ranked = lexical.search(query, k)
            return ranked, (lexical.matches(query) if ranked else 0), {}, None
        try:
            found, why = router.ask(lambda left: router.milvus.lexical(query, k, left))
        except RemoteFailed as exc:
            return [], 0, {"backend": "milvus", "backend_fallback": None}, str(exc)
        if found is not None:
            self._said = None
            ranked = self._positions(found)
            # the uncapped total from the local index: milvus-lite 2.5 has no TEXT_MATCH to count it with
            # ("Invalid expr: TEXT_MATCH(words, 'rate'): invalid parameter")
            return ranked, (lexical.matches(query) if ranked else 0), {"backend": "milvus", "backend_fallback": None}, None
        self._said = f"code search: {why}; the local index answers"
        ranked = lexical.search(query, k)
        return ranked, (lexical.matches(query) if ranked else 0), {"backend": "local", "backend_fallback": why}, None

    def meaning(self, query: str, extras: dict) -> Meaning | None:
        """Milvus's nearest symbols when it answered the lexical tier and holds vectors of the engine's
        model; None: the local embedding tier answers (it may be indexing)."""
        router = self.router
        if extras.get("backend") != "milvus" or recall_switched_off() or router.milvus.model_id is None:
            return None
        embedder = self.engine.embedder
        try:
            info = embedder.info()
        except Exception:  # noqa: BLE001 - no model here: the local tier reports it
            return None
        if info.model_id != router.milvus.model_id:
            return None
        vector = query_vector(embedder, query, EMBEDDING)
        if not isinstance(vector, np.ndarray):
            return None
        try:
            found, why = router.ask(lambda left: router.milvus.nearest(vector, info.floor, CANDIDATES, left))
        except RemoteFailed:
            return None
        if found is None:
            extras.update(backend_fallback=why)
            self._said = f"code search: {why}; the local index answers"
            return None
        ranked = self._positions(found)
        return Meaning(ranked, np.asarray([p for p, _ in ranked], np.int64))

    def _positions(self, found) -> list[tuple[int, float]]:
        """Milvus's rows as positions of the engine's index (a row it does not hold is left out)."""
        index = self.engine._index  # swapped whole by an install: read once
        out = []
        for row, score in found.ranked:
            position = index.position_of(found.rows[row]["symbol_id"])
            if position is not None:
                out.append((position, score))
        return out

    def close(self) -> None:
        if self._router is not None:
            self._router.close()
