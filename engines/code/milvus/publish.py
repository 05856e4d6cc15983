"""Publishing a code tree to Milvus: its symbols as a new version's rows, then its pointer moves.

Every tree of an organisation goes into one collection (``olai_code`` unless configured), its rows
tagged with the tree and a version. A tree's pointer (``olai_code/<tree>`` in the shared pointer
collection, engines/milvus/versions.py) names its current version; each version's facts (fingerprint
of its symbols, model, count, when) are a row of ``olai_code_trees``. A publish fills the new
version's rows, checks their count, records them, then moves the pointer: a search sees the old
version or the new one, never a half-filled one. A version is published only when the tree's
symbols changed (or ``force``); rollback moves the pointer back; versions past the last three are
deleted, never the current one nor the one rollback returns to.
"""

from __future__ import annotations

import json
import time

import numpy as np

from engines.code.milvus import collection as coll
from engines.milvus import versions
from engines.milvus.versions import PublishError, describe, one_line, read_pointer  # noqa: F401

DEFAULT_DIMS = 384  # the code model's (MiniLM's) dimensions: the collection's vector field when none is published


def pointer_key(collection: str, tree: str) -> str:
    return f"{collection}/{tree}"


def version_number(label: str | None) -> int | None:
    return int(label[1:]) if label and label.startswith("v") and label[1:].isdigit() else None


# -- the registry of versions ----------------------------------------------------------------------
def _registry_key(collection: str, tree: str, label: str) -> str:
    return f"{collection}/{tree}/{label}"


def _ensure_registry(client) -> None:
    if client.has_collection(coll.REGISTRY):
        return
    from pymilvus import DataType

    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("key", DataType.VARCHAR, is_primary=True, max_length=1024)
    s.add_field("meta", DataType.VARCHAR, max_length=8192)
    s.add_field("unused", DataType.FLOAT_VECTOR, dim=2)  # Milvus wants one vector field in every collection
    params = client.prepare_index_params()
    params.add_index("unused", index_type="FLAT", metric_type="L2")
    client.create_collection(coll.REGISTRY, schema=s, index_params=params)


def version_meta(client, collection: str, tree: str, label: str, timeout: float | None = None) -> dict | None:
    """What publish recorded of a tree's version, or None when it is not (or no longer) there."""
    if not client.has_collection(coll.REGISTRY, timeout=timeout):
        return None
    got = client.query(coll.REGISTRY, ids=[_registry_key(collection, tree, label)], output_fields=["meta"],
                       timeout=timeout)
    return json.loads(got[0]["meta"]) if got else None


def _record(client, collection: str, tree: str, label: str, meta: dict) -> None:
    _ensure_registry(client)
    client.upsert(coll.REGISTRY, [{"key": _registry_key(collection, tree, label), "meta": json.dumps(meta),
                                   "unused": [0.0, 0.0]}])


def _drop_version(client, collection: str, tree: str, label: str) -> None:
    number = version_number(label)
    if number is not None and client.has_collection(collection):
        client.delete(collection, filter=coll.versions_filter([coll.TreeVersion(tree, number)]))
    if client.has_collection(coll.REGISTRY):
        client.delete(coll.REGISTRY, ids=[_registry_key(collection, tree, label)])


# -- what a tree holds -----------------------------------------------------------------------------
def tree_vectors(engine, progress=None) -> tuple[np.ndarray, np.ndarray, str]:
    """Every symbol's vector and neighbourhood density in symbol order, and the model's id (embedded
    once through the vector cache): the contextual model's, whichever vectors the engine answers with."""
    state = engine.vectors.build(progress=progress)
    if state.state != "ready":
        raise PublishError(f"symbol vectors {state.state}: {state.reason}"
                           + (f" (to enable: {state.enable})" if state.enable else ""))
    matrix, density = engine.vectors.whole()
    return matrix, density, engine.vectors.embedder.info().model_id


def published_unchanged(client, collection: str, tree: str, symbols, model_id: str | None) -> str | None:
    """The version already holding exactly these symbols (their words stemmed as now, vectors of this
    model), or None."""
    current = read_pointer(client, pointer_key(collection, tree)).current
    meta = version_meta(client, collection, tree, current) if current else None
    if meta and meta.get("fingerprint") == coll.fingerprint(symbols) and meta.get("model_id") == model_id \
            and meta.get("words") == coll.WORDS:
        return current
    return None


def publish_tree(client, engine, tree: str, collection: str = coll.COLLECTION, vectors=None,
                 index_type: str = coll.DEFAULT_INDEX, progress=None) -> dict:
    """Fill a new version of ``tree`` from ``engine``'s symbols; ``vectors``: (matrix, density, model id)
    from :func:`tree_vectors`, or None to publish the words alone. Returns what happened, with timings."""
    symbols = list(engine.symbols)
    penalties = engine.lexical_tier.shape.penalty
    started = time.perf_counter()
    if vectors is not None:
        matrix, density, model_id = vectors
        if len(matrix) != len(symbols):
            raise PublishError(f"{len(matrix)} vectors for {len(symbols)} symbols: embed the tree first")
        dims = matrix.shape[1]
    else:
        model_id, dims = None, _collection_dims(client, collection) or DEFAULT_DIMS
        matrix, density = np.zeros((len(symbols), dims), np.float32), np.zeros(len(symbols), np.float32)
    key = pointer_key(collection, tree)
    try:
        _ensure_collection(client, collection, dims, index_type)
        state = read_pointer(client, key)
        number = 1 + max((version_number(v) or 0 for v in state.versions), default=0)
        label, at = f"v{number}", coll.TreeVersion(tree, number)
        _drop_version(client, collection, tree, label)  # leftovers of a publish that died before its pointer moved
        for start in range(0, len(symbols), versions.INSERT_BATCH):
            stop = min(start + versions.INSERT_BATCH, len(symbols))
            client.insert(collection, coll.rows(symbols, penalties, matrix, density, at, start, stop))
            if progress:
                progress(stop, len(symbols))
        client.flush(collection)
        have = versions.count(client, collection, coll.versions_filter([at]))
    except PublishError:
        raise
    except Exception as exc:  # noqa: BLE001 - the server's own words, on one line
        raise PublishError(f"publishing {tree} to {collection}: {one_line(exc)}; the pointer is unchanged") from None
    if have != len(symbols):
        _drop_version(client, collection, tree, label)
        raise PublishError(f"{collection} holds {have} of {len(symbols)} symbols of {tree} {label}; "
                           "the pointer is unchanged")
    meta = {"tree": tree, "version": number, "fingerprint": coll.fingerprint(symbols), "model_id": model_id,
            "words": coll.WORDS, "count": have, "files": len({s.path for s in symbols}),
            "root": str(getattr(engine, "root", "")),
            "published": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _record(client, collection, tree, label, meta)
    fill_s = time.perf_counter() - started
    state, previous = versions.moved_to(client, key, label, native_alias=False)
    dropped = versions.prune(client, state, lambda v: version_meta(client, collection, tree, v) is not None,
                             lambda v: _drop_version(client, collection, tree, v), native_alias=False)
    return {"tree": tree, "collection": collection, "version": label, "previous": previous, "count": have,
            "vectors": model_id is not None, "publish_s": round(time.perf_counter() - started, 2),
            "fill_s": round(fill_s, 2), "dropped": dropped}


def _collection_dims(client, collection: str) -> int | None:
    if not client.has_collection(collection):
        return None
    return describe(client, collection).get("dims")


def _ensure_collection(client, collection: str, dims: int, index_type: str) -> None:
    have = _collection_dims(client, collection)
    if have is None:
        client.create_collection(collection, schema=coll.schema(client, dims),
                                 index_params=coll.index_params(client, index_type))
    elif have != dims:
        raise PublishError(f"{collection} holds {have}-dimension vectors, this model gives {dims}: "
                           "publish to another collection ([code.search] collection)")
    client.load_collection(collection, timeout=versions.LOAD_WAIT_S)


def rollback(client, collection: str, tree: str) -> dict:
    moved = versions.rollback(client, pointer_key(collection, tree),
                              lambda v: version_meta(client, collection, tree, v) is not None, native_alias=False)
    return {"tree": tree, "version": moved["collection"], "previous": moved["previous"]}


def status(client, collection: str, tree: str) -> dict:
    state = read_pointer(client, pointer_key(collection, tree))
    listed = []
    for label in state.versions:
        meta = version_meta(client, collection, tree, label)
        if meta is None:
            continue
        listed.append({"version": label, "current": label == state.current, "count": meta.get("count"),
                       "published": meta.get("published"), "model_id": meta.get("model_id")})
    return {"tree": tree, "collection": collection, "current": state.current, "versions": listed}
