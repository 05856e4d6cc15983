"""Publishing a catalogue to Milvus: a new versioned collection, then the pointer moves once the count matches.

``olai_products`` (the alias) names ``olai_products_v1``, ``_v2``, ...; searches resolve the alias
through a small pointer collection (``olai_published``: alias -> current version and the versions
published before it), because milvus-lite answers Milvus's own alias calls (create_alias,
alter_alias) with UNIMPLEMENTED. Where the server has aliases (a Milvus cluster or standalone), the
native alias is moved too, so other clients can search ``olai_products`` directly.

A collection behind the alias is never dropped: a publish that fails or whose count does not match
drops only its own new collection; after a good publish, versions older than the last
``KEEP_VERSIONS`` are dropped, never the current one nor the one rollback would return to.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass

import numpy as np

from engines.products.backends import collection as coll

POINTER = "olai_published"
KEEP_VERSIONS = 3  # the current version, the one rollback returns to, and one before it
INSERT_BATCH = 1000  # rows per insert: ~2 MB of vectors for 384 dims, well under gRPC's 64 MB message cap
LOAD_WAIT_S = 120.0
CONNECT_TIMEOUT_S = 5.0  # milvus-lite on loopback connects in ~10 ms; 5 s without an answer is a dead address


class PublishError(Exception):
    """Publishing could not finish; the alias still names what it named before (one line for the user)."""


@dataclass
class Published:
    alias: str
    current: str | None
    versions: list[str]  # published order, oldest first


def alias_for(name: str) -> str:
    return "olai_" + coll.safe_name(name)


def read_pointer(client, alias: str, timeout: float | None = None) -> Published:
    if not client.has_collection(POINTER, timeout=timeout):
        return Published(alias, None, [])
    got = client.query(POINTER, ids=[alias], output_fields=["current", "versions"], timeout=timeout)
    if not got:
        return Published(alias, None, [])
    return Published(alias, got[0]["current"] or None, json.loads(got[0]["versions"] or "[]"))


def _write_pointer(client, state: Published) -> None:
    if not client.has_collection(POINTER):
        from pymilvus import DataType

        s = client.create_schema(auto_id=False, enable_dynamic_field=False)
        s.add_field("alias", DataType.VARCHAR, is_primary=True, max_length=256)
        s.add_field("current", DataType.VARCHAR, max_length=256)
        s.add_field("versions", DataType.VARCHAR, max_length=8192)
        s.add_field("unused", DataType.FLOAT_VECTOR, dim=2)  # Milvus wants one vector field in every collection
        params = client.prepare_index_params()
        params.add_index("unused", index_type="FLAT", metric_type="L2")
        client.create_collection(POINTER, schema=s, index_params=params)
    client.upsert(POINTER, [{"alias": state.alias, "current": state.current or "",
                             "versions": json.dumps(state.versions), "unused": [0.0, 0.0]}])
    _move_native_alias(client, state)


def _move_native_alias(client, state: Published) -> None:
    """Milvus's own alias, where the server has aliases; milvus-lite does not (UNIMPLEMENTED)."""
    if not state.current:
        return
    quiet_client_log()
    try:
        try:
            client.alter_alias(state.current, state.alias)
        except Exception:  # noqa: BLE001 - no such alias yet: create it
            client.create_alias(state.current, state.alias)
    except Exception:  # noqa: BLE001 - a server without aliases: the pointer collection is the alias
        pass


def quiet_client_log() -> None:
    """pymilvus logs every failed call at ERROR on stderr; the reason reaches the user in one line instead."""
    for name in ("pymilvus", "pymilvus.milvus_client"):  # pymilvus.settings gives each its own level
        logging.getLogger(name).setLevel(logging.CRITICAL)


def catalogue_vectors(engine, progress=None) -> np.ndarray:
    """Every product's vector in catalogue order, embedded once through the vector cache."""
    state = engine.build_index(progress=progress)
    if state.state != "ready":
        raise PublishError(f"product vectors {state.state}: {state.reason}"
                           + (f" (to enable: {state.enable})" if state.enable else ""))
    vectors = engine.vectors
    cache = vectors._cache
    return cache.get_many(vectors.keys)


def connect(uri: str, token: str | None = None, timeout: float = CONNECT_TIMEOUT_S):
    from pymilvus import MilvusClient

    quiet_client_log()
    try:
        return MilvusClient(uri=uri, token=token or "", timeout=timeout)
    except Exception as exc:  # noqa: BLE001
        raise PublishError(f"{uri}: {_one_line(exc)}") from None


def next_version(client, alias: str) -> str:
    pattern = re.compile(re.escape(alias) + r"_v(\d+)$")
    taken = [int(m.group(1)) for name in client.list_collections() if (m := pattern.match(name))]
    return f"{alias}_v{max(taken, default=0) + 1}"


def count(client, name: str) -> int:
    got = client.query(name, filter="", output_fields=["count(*)"])
    return int(got[0]["count(*)"])


def describe(client, name: str, timeout: float | None = None) -> dict:
    """What publish wrote into a version's description: model id, fingerprint, count, index type, when."""
    try:
        return json.loads(client.describe_collection(name, timeout=timeout).get("description") or "{}")
    except ValueError:
        return {}


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
        _drop_quietly(client, name)
        raise PublishError(f"creating {name}: {_one_line(exc)}") from None
    try:
        columns = coll.rule_columns(masks)
        for start in range(0, len(catalogue), INSERT_BATCH):
            stop = min(start + INSERT_BATCH, len(catalogue))
            client.insert(name, coll.rows(catalogue, knowledge, columns, vectors, start, stop))
            if progress:
                progress(stop, len(catalogue))
        client.flush(name)
        client.load_collection(name, timeout=LOAD_WAIT_S)
        have = count(client, name)
    except Exception as exc:  # noqa: BLE001
        _drop_quietly(client, name)
        raise PublishError(f"filling {name}: {_one_line(exc)}; the alias is unchanged") from None
    if have != len(catalogue):
        _drop_quietly(client, name)
        raise PublishError(f"{name} holds {have} of {len(catalogue)} products; the alias is unchanged")
    fill_s = time.perf_counter() - started
    state = read_pointer(client, alias)
    previous = state.current
    state.versions = [v for v in state.versions if v != name] + [name]
    state.current = name
    _write_pointer(client, state)
    dropped = _prune(client, state)
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
    state = read_pointer(client, alias)
    if not state.current:
        raise PublishError(f"{alias}: nothing published")
    existing = set(client.list_collections())
    at = state.versions.index(state.current) if state.current in state.versions else len(state.versions)
    before = [v for v in state.versions[:at] if v in existing]
    if not before:
        raise PublishError(f"{alias}: no earlier version to roll back to (it names {state.current})")
    moved_from, state.current = state.current, before[-1]
    _write_pointer(client, state)
    return {"alias": alias, "collection": state.current, "previous": moved_from}


def status(client, alias: str) -> dict:
    state = read_pointer(client, alias)
    existing = set(client.list_collections())
    versions = []
    for name in state.versions:
        if name not in existing:
            continue
        meta = describe(client, name)
        versions.append({"collection": name, "current": name == state.current, "count": meta.get("count"),
                         "published": meta.get("published"), "model_id": meta.get("model_id"),
                         "index_type": meta.get("index_type")})
    return {"alias": alias, "current": state.current, "versions": versions}


def _prune(client, state: Published) -> list[str]:
    """Drop versions older than the last KEEP_VERSIONS; never the current one nor the one before it."""
    existing = [v for v in state.versions if client.has_collection(v)]
    keep = set(existing[-KEEP_VERSIONS:]) | {state.current}
    at = existing.index(state.current) if state.current in existing else len(existing)
    if at > 0:
        keep.add(existing[at - 1])
    dropped = [v for v in existing if v not in keep]
    for name in dropped:
        client.drop_collection(name)
    state.versions = [v for v in state.versions if v not in dropped]
    if dropped:
        _write_pointer(client, state)
    return dropped


def _drop_quietly(client, name: str) -> None:
    try:
        if client.has_collection(name):
            client.drop_collection(name)
    except Exception:  # noqa: BLE001 - the server may be the reason we are here
        pass


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
