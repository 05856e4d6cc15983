"""The code tiers' lists from Milvus: BM25's head re-ranked by what a code reader means, and the nearest
symbols by meaning, for the trees an engine searches.

Lexical: Milvus's BM25 over the lexical tier's own tokens (collection.py) gives the head (as many
rows as the local tier re-ranks); the symbols defining a name the query asks for are looked up by a
scalar query on their own name (the local ranking brings in a definer BM25 left out); the code-aware
ranking (ranking.py) then re-orders those rows here, with each row's path penalty as its whole tree
set it at publish time. Meaning: Milvus's nearest vectors above the model's floor, re-ordered by the
density-corrected score the local tier ranks by. Before the first search the pointer of each tree is
read and its version checked to hold the symbols the local index holds (else: MilvusUnready, and
the local index answers).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from engines.code.lexical_tier import COMPOUNDS, RERANK_POOL, STEM, compounds
from engines.code.milvus import collection as coll
from engines.code.milvus.publish import pointer_key, version_meta, version_number
from engines.code.ranking import CodeShape, embedded_symbols, rerank, symbol_query
from engines.code.vectors import DENSITY_WEIGHT
from engines.lexical import tokenize
from engines.milvus.connection import MilvusConnection
from engines.milvus.versions import read_pointer

DEFINERS_CAP = 200  # rows a definer lookup brings back: a name defined more often than this is not one answer
NEAREST_WIDTH = 4  # x the candidates asked of Milvus by raw cosine, re-ordered here by the corrected score


class MilvusUnready(Exception):
    """Milvus cannot answer for these trees (nothing published, another version of the tree)."""


@dataclass
class Found:
    rows: list[dict]  # what Milvus holds of each symbol (collection.ROW_FIELDS)
    ranked: list[tuple[int, float]]  # (row, score) best first


def query_words(query: str) -> list[str]:
    """The lexical tier's query words (LexicalIndex.query_words), without an index at hand."""
    return tokenize(query, STEM) + (compounds(query) if COMPOUNDS else [])


class MilvusCode(MilvusConnection):
    name = "milvus"

    def __init__(self, uri: str, trees: list[str], fingerprint, collection: str = coll.COLLECTION,
                 token: str | None = None) -> None:
        """``fingerprint()``: the local symbols' fingerprint, asked once when the trees are resolved."""
        super().__init__(uri, token, workers=3, name="olai-code-milvus")
        self.trees, self.collection = list(trees), collection
        self.fingerprint = fingerprint
        self.model_id: str | None = None  # the model of the published vectors (None: words only, or mixed)

    def _resolve(self, client, timeout: float) -> str:
        """The filter naming each tree's current version, checked to hold the symbols open here."""
        published, models = [], set()
        for tree in self.trees:
            current = read_pointer(client, pointer_key(self.collection, tree), timeout=timeout).current
            meta = version_meta(client, self.collection, tree, current, timeout=timeout) if current else None
            if not meta:
                raise MilvusUnready(f"{tree} is not published to {self.collection} at {self.uri}")
            if meta.get("fingerprint") != self.fingerprint():
                raise MilvusUnready(f"{tree} {current} in {self.collection} holds another version of the tree "
                                    "than the one open here (publish it again)")
            if meta.get("words") != coll.WORDS:
                raise MilvusUnready(f"{tree} {current} in {self.collection} holds words stemmed by an earlier "
                                    "reading of code (publish it again)")
            published.append(coll.TreeVersion(tree, version_number(current)))
            models.add(meta.get("model_id"))
        self.model_id = models.pop() if len(models) == 1 else None
        return coll.versions_filter(published)

    # -- the lists ------------------------------------------------------------------------------
    def lexical(self, query: str, k: int, timeout: float) -> Found:
        """BM25's head and the asked-for definers, re-ranked as the local lexical tier ranks; raises on failure."""
        started = time.monotonic()
        client, where = self._connect(timeout)
        words = " ".join(query_words(query))
        left = max(0.05, timeout - (time.monotonic() - started))
        jobs = {}
        if words:
            jobs["head"] = self._pool.submit(
                client.search, self.collection, data=[words], anns_field="sparse", limit=max(k, RERANK_POOL),
                filter=where, search_params={"metric_type": "BM25"}, output_fields=coll.ROW_FIELDS, timeout=left)
        asked = symbol_query(query)
        names = asked.names if asked is not None else frozenset(embedded_symbols(query))
        if names:
            lowered = sorted({n.lower() for n in names})
            jobs["definers"] = self._pool.submit(
                client.query, self.collection, filter=f"({where}) and name_lower in {_list(lowered)}",
                output_fields=coll.ROW_FIELDS, limit=DEFINERS_CAP, timeout=left)
        head = [(dict(h["entity"]), float(h["distance"])) for h in jobs["head"].result(left + 0.05)[0]] \
            if "head" in jobs else []
        rows = [row for row, _ in head]
        seen = {_key(r) for r in rows}
        if "definers" in jobs:
            for row in jobs["definers"].result(left + 0.05):
                if _key(row) not in seen:
                    seen.add(_key(row))
                    rows.append(dict(row))
        candidates = [(i, score) for i, (_, score) in enumerate(head) if score > 0]
        return Found(rows, rerank(query, candidates, shape_of(rows), k))

    def nearest(self, vector: np.ndarray, floor: float, candidates: int, timeout: float) -> Found:
        """The symbols nearest ``vector`` above ``floor`` by the density-corrected score; raises on failure."""
        client, where = self._connect(timeout)
        hits = client.search(self.collection, data=[np.asarray(vector, np.float32).tolist()], anns_field="vector",
                             limit=candidates * NEAREST_WIDTH, filter=where, output_fields=coll.ROW_FIELDS,
                             search_params={"metric_type": "IP", "params": {"radius": float(floor) - 1e-6}},
                             timeout=timeout)[0]
        rows = [dict(h["entity"]) for h in hits]
        cosines = [float(h["distance"]) for h in hits]
        order = sorted(range(len(rows)), key=lambda i: (-(cosines[i] - DENSITY_WEIGHT * rows[i]["density"]), i))
        return Found(rows, [(i, cosines[i]) for i in order[:candidates]])


def shape_of(rows: list[dict]) -> CodeShape:
    """What the code-aware ranking knows of these rows, their files keyed by tree and path; the path
    penalties as published (a header beside its .c file is known to the whole tree only)."""
    keys = [f"{r['tree']}\0{r['path']}" for r in rows]
    shape = CodeShape.of_columns(keys, lambda i: rows[i]["symbol_id"], [int(r["length"]) for r in rows],
                                 [r["qualname"] for r in rows], [r["kind"] for r in rows],
                                 lambda key: key.split("\0", 1)[-1])
    shape.penalty = [float(r["penalty"]) for r in rows]
    return shape


def _key(row: dict) -> tuple[str, str]:
    return row["tree"], row["symbol_id"]


def _list(values: list[str]) -> str:
    return "[" + ", ".join(coll.quoted(v) for v in values) + "]"

