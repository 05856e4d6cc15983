"""Publishing a catalogue to Milvus: a new versioned collection, then the pointer moves once the count matches.

``olai_products`` (the alias) names ``olai_products_v1``, ``_v2``, ...: one collection a version. The
pointer, rollback, status and pruning are engines/milvus/versions.py's, shared with code trees.
"""

from __future__ import annotations

import re
import time

import numpy as np

from engines.milvus.versions import (KEEP_VERSIONS, PublishError, connect, count,  # noqa: F401 - pub.* names
                                     describe, drop_quietly, moved_to, one_line, prune, read_pointer)
from engines.milvus import versions
from engines.products.backends import collection as coll


def alias_for(name: str) -> str:
    return "olai_" + coll.safe_name(name)


def catalogue_vectors(engine, progress=None) -> np.ndarray:
    """Every product's vector in catalogue order, embedded once through the vector cache."""
    state = engine.build_index(progress=progress)
    if state.state != "ready":
        raise PublishError(f"product vectors {state.state}: {state.reason}"
                           + (f" (to enable: {state.enable})" if state.enable else ""))
    vectors = engine.vectors
    cache = vectors._cache
    return cache.get_many(vectors.keys)


def next_version(client, alias: str) -> str:
    pattern = re.compile(re.escape(alias) + r"_v(\d+)$")
    taken = [int(m.group(1)) for name in client.list_collections() if (m := pattern.match(name))]
    return f"{alias}_v{max(taken, default=0) + 1}"


def publish(client, alias: str, catalogue, knowledge, masks, vectors: np.ndarray, model_id: str,
            index_type: str = coll.DEFAULT_INDEX, progress=None) -> dict:
    """Fill a new version, check its count, move the alias to it. Returns what happened, with timings."""
    if len(vectors) != len(catalogue):
        raise PublishError(f"{len(vectors)} vectors for {len(catalogue)} products: embed the catalogue first")
    started = time.perf_counter()
    name = next_version(client, alias)
    meta = {"model_id": model_id, "fingerprint": coll.fingerprint(catalogue, knowledge), "count": len(catalogue),
            "index_type": index_type, "published": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        client.create_collection(name, schema=coll.schema(client, vectors.shape[1], meta),
                                 index_params=coll.index_params(client, index_type))
    except Exception as exc:  # noqa: BLE001 - the server's own words, on one line
        drop_quietly(client, name)
        raise PublishError(f"creating {name}: {one_line(exc)}") from None
    try:
        columns = coll.rule_columns(masks)
        have = versions.fill(client, name, lambda start, stop: coll.rows(catalogue, knowledge, columns, vectors,
                                                                         start, stop),
                             len(catalogue), progress)
    except Exception as exc:  # noqa: BLE001
        drop_quietly(client, name)
        raise PublishError(f"filling {name}: {one_line(exc)}; the alias is unchanged") from None
    if have != len(catalogue):
        drop_quietly(client, name)
        raise PublishError(f"{name} holds {have} of {len(catalogue)} products; the alias is unchanged")
    fill_s = time.perf_counter() - started
    state, previous = moved_to(client, alias, name)
    dropped = prune(client, state, lambda v: client.has_collection(v), client.drop_collection)
    return {"alias": alias, "collection": name, "previous": previous, "count": have,
            "publish_s": round(time.perf_counter() - started, 2), "fill_s": round(fill_s, 2), "dropped": dropped}


def published_unchanged(client, alias: str, engine, index_type: str) -> str | None:
    """The version behind ``alias`` when it already holds this catalogue's rows (same fingerprint:
    product ids, embedded texts and words), the same model and index type; None when a publish is due."""
    current = read_pointer(client, alias).current
    if not current:
        return None
    meta = describe(client, current)
    if (meta.get("fingerprint") == coll.fingerprint(engine.catalogue, engine.knowledge)
            and meta.get("model_id") == engine.vectors.embedder.info().model_id
            and meta.get("index_type") == index_type):
        return current
    return None


def rollback(client, alias: str) -> dict:
    existing = set(client.list_collections())
    return versions.rollback(client, alias, existing.__contains__)


def status(client, alias: str) -> dict:
    state = read_pointer(client, alias)
    existing = set(client.list_collections())
    listed = []
    for name in state.versions:
        if name not in existing:
            continue
        meta = describe(client, name)
        listed.append({"collection": name, "current": name == state.current, "count": meta.get("count"),
                       "published": meta.get("published"), "model_id": meta.get("model_id"),
                       "index_type": meta.get("index_type")})
    return {"alias": alias, "current": state.current, "versions": listed}
