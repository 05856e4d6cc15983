"""The Milvus recall backend: the `words` (BM25) and `vectors` lists from one round trip to Milvus.

Two searches go out together (Milvus's hybrid_search returns only the fused list, and the fusion
here needs each list on its own, as in memory): BM25 over the same folded tokens the in-memory index
holds, and the query vector from the same local embedder against the product vectors (cosine floor
as a range search radius). Both carry the hard rules as a filter expression (``meets_vegan == true
and safe_soy == true``); the rules then run again in code on what comes back (``allowed``). The other
sources (code, lexical, typo, kinds) stay where the knowledge map is.

Before the first search the backend reads which collection the alias names and checks it holds this
catalogue (fingerprint) embedded by this model; otherwise it refuses, with the reason, and memory
answers.
"""

from __future__ import annotations

import time

import numpy as np

from engines.products.backends import collection as coll
from engines.milvus.connection import MilvusConnection
from engines.milvus.versions import describe, read_pointer
from engines.products.recall import QUOTAS
from engines.products.request import Request


class MilvusUnready(Exception):
    """Milvus cannot answer for this catalogue (nothing published, another catalogue or model)."""


class MilvusRecall(MilvusConnection):
    name = "milvus"

    def __init__(self, uri: str, alias: str, fingerprint: str, model_id: str | None = None,
                 token: str | None = None) -> None:
        super().__init__(uri, token)
        self.alias = alias
        self.fingerprint = fingerprint
        self.model_id = model_id

    @property
    def collection(self) -> str | None:
        """The collection the alias named when last resolved (None: not yet, or since a failure)."""
        return self._resolved

    def _resolve(self, client, timeout: float) -> str:
        """The collection the alias names, checked to hold this catalogue embedded by this model."""
        state = read_pointer(client, self.alias, timeout=timeout)
        if not state.current:
            raise MilvusUnready(f"nothing published as {self.alias} at {self.uri}")
        meta = describe(client, state.current, timeout=timeout)
        if meta.get("fingerprint") != self.fingerprint:
            raise MilvusUnready(f"{state.current} holds another catalogue than the one loaded (publish it again)")
        if self.model_id and meta.get("model_id") != self.model_id:
            raise MilvusUnready(f"{state.current} was embedded by {meta.get('model_id')}, not {self.model_id}")
        return state.current

    def lists(self, request: Request, allowed: np.ndarray, positions: dict[str, int], query_vector,
              floor: float, want_words: bool, timeout: float) -> dict[str, list[int]]:
        """{"words": [...], "vectors": [...]} as catalogue positions, best first; raises on any failure."""
        started = time.monotonic()
        client, name = self._connect(timeout)
        expr = coll.rule_filter(request)
        jobs = {}
        text = coll.query_words(request)
        left = max(0.05, timeout - (time.monotonic() - started))
        if want_words and text:
            jobs["words"] = self._pool.submit(
                client.search, name, data=[text], anns_field="sparse", limit=QUOTAS["words"], filter=expr,
                search_params={"metric_type": "BM25"}, output_fields=[], timeout=left)
        if query_vector is not None:
            jobs["vectors"] = self._pool.submit(
                client.search, name, data=[np.asarray(query_vector, np.float32).tolist()], anns_field="vector",
                limit=QUOTAS["vectors"], filter=expr, output_fields=[], timeout=left,
                search_params={"metric_type": "IP", "params": {"radius": float(floor) - 1e-6}})
        out: dict[str, list[int]] = {"words": [], "vectors": []}
        for source, job in jobs.items():
            hits = job.result(timeout=left + 0.05)[0]
            ranked = sorted(((float(h["distance"]), positions.get(str(h["id"]), -1)) for h in hits),
                            key=lambda pair: (-pair[0], pair[1]))  # ties by catalogue order, as in memory
            out[source] = [pos for score, pos in ranked if pos >= 0 and allowed[pos]
                           and (source != "words" or score > 0)]
        return out

