"""Published versions on Milvus: the pointer, a new version filled and checked, rollback, status, pruning.

A published thing (a catalogue, a code tree) has a name, its alias, and versions ``v1``, ``v2``, ...;
searches resolve the alias through a small pointer collection (``olai_published``: alias -> current
version and the versions published before it), because milvus-lite answers Milvus's own alias calls
(create_alias, alter_alias) with UNIMPLEMENTED. Products keep one collection a version and move
Milvus's native alias too where the server has aliases; code trees keep their versions as rows of one
shared collection (engines/code/milvus/), so only the pointer moves.

Nothing behind the pointer is ever dropped: a version that fails or whose count does not match is
dropped alone; after a good publish, versions older than the last ``KEEP_VERSIONS`` are dropped,
never the current one nor the one rollback would return to. pymilvus is imported only when asked.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Callable

POINTER = "olai_published"
KEEP_VERSIONS = 3  # the current version, the one rollback returns to, and one before it
INSERT_BATCH = 1000  # rows per insert: ~2 MB of vectors for 384 dims, well under gRPC's 64 MB message cap
LOAD_WAIT_S = 120.0
CONNECT_TIMEOUT_S = 5.0  # milvus-lite on loopback connects in ~10 ms; 5 s without an answer is a dead address


class PublishError(Exception):
    """Publishing could not finish; the pointer still names what it named before (one line for the user)."""


@dataclass
class Published:
    alias: str
    current: str | None
    versions: list[str]  # published order, oldest first


def quiet_client_log() -> None:
    """pymilvus logs every failed call at ERROR on stderr; the reason reaches the user in one line instead."""
    for name in ("pymilvus", "pymilvus.milvus_client"):  # pymilvus.settings gives each its own level
        logging.getLogger(name).setLevel(logging.CRITICAL)


def new_client(uri: str, token: str | None = None, timeout: float | None = CONNECT_TIMEOUT_S):
    """A client with a connection of its own. pymilvus shares one connection among the clients of one
    address (its alias is the URI), so closing one closed them all: a code pane letting go of a stalled
    server cut the products pane's (and a test's) client off."""
    import uuid

    from pymilvus import MilvusClient

    quiet_client_log()
    return MilvusClient(uri=uri, token=token or "", timeout=timeout, alias=f"olai-{uuid.uuid4().hex}")


def connect(uri: str, token: str | None = None, timeout: float = CONNECT_TIMEOUT_S):
    try:
        return new_client(uri, token, timeout)
    except Exception as exc:  # noqa: BLE001
        raise PublishError(f"{uri}: {one_line(exc)}") from None


def read_pointer(client, alias: str, timeout: float | None = None) -> Published:
    if not client.has_collection(POINTER, timeout=timeout):
        return Published(alias, None, [])
    got = client.query(POINTER, ids=[alias], output_fields=["current", "versions"], timeout=timeout)
    if not got:
        return Published(alias, None, [])
    return Published(alias, got[0]["current"] or None, json.loads(got[0]["versions"] or "[]"))


def write_pointer(client, state: Published, native_alias: bool = True) -> None:
    """Make ``state`` what the alias names (one upsert: a reader sees the old row or the new one);
    ``native_alias``: the versions are collections, so Milvus's own alias is moved too where it can be."""
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
    if native_alias:
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


def count(client, name: str, filter: str = "") -> int:
    got = client.query(name, filter=filter, output_fields=["count(*)"])
    return int(got[0]["count(*)"])


def describe(client, name: str, timeout: float | None = None) -> dict:
    """What publish wrote into a collection's description (model id, fingerprint, count, index type, when)."""
    try:
        return json.loads(client.describe_collection(name, timeout=timeout).get("description") or "{}")
    except ValueError:
        return {}


def fill(client, name: str, rows: Callable[[int, int], list[dict]], total: int,
         progress: Callable[[int, int], None] | None = None) -> int:
    """Insert ``rows(start, stop)`` for 0..``total`` in batches, flush and load ``name``; its row count."""
    for start in range(0, total, INSERT_BATCH):
        stop = min(start + INSERT_BATCH, total)
        client.insert(name, rows(start, stop))
        if progress:
            progress(stop, total)
    client.flush(name)
    client.load_collection(name, timeout=LOAD_WAIT_S)
    return count(client, name)


def moved_to(client, alias: str, version: str, native_alias: bool = True) -> tuple[Published, str | None]:
    """Point ``alias`` at ``version`` (added last to its versions); (the new state, the version it named)."""
    state = read_pointer(client, alias)
    previous = state.current
    state.versions = [v for v in state.versions if v != version] + [version]
    state.current = version
    write_pointer(client, state, native_alias)
    return state, previous


def rollback(client, alias: str, exists: Callable[[str], bool], native_alias: bool = True) -> dict:
    """Move ``alias`` back to the version before the current one that still ``exists``."""
    state = read_pointer(client, alias)
    if not state.current:
        raise PublishError(f"{alias}: nothing published")
    at = state.versions.index(state.current) if state.current in state.versions else len(state.versions)
    before = [v for v in state.versions[:at] if exists(v)]
    if not before:
        raise PublishError(f"{alias}: no earlier version to roll back to (it names {state.current})")
    moved_from, state.current = state.current, before[-1]
    write_pointer(client, state, native_alias)
    return {"alias": alias, "collection": state.current, "previous": moved_from}


def prune(client, state: Published, exists: Callable[[str], bool], drop: Callable[[str], None],
          native_alias: bool = True) -> list[str]:
    """Drop versions older than the last KEEP_VERSIONS; never the current one nor the one before it."""
    existing = [v for v in state.versions if exists(v)]
    keep = set(existing[-KEEP_VERSIONS:]) | {state.current}
    at = existing.index(state.current) if state.current in existing else len(existing)
    if at > 0:
        keep.add(existing[at - 1])
    dropped = [v for v in existing if v not in keep]
    for version in dropped:
        drop(version)
    state.versions = [v for v in state.versions if v not in dropped]
    if dropped:
        write_pointer(client, state, native_alias)
    return dropped


def drop_quietly(client, name: str) -> None:
    try:
        if client.has_collection(name):
            client.drop_collection(name)
    except Exception:  # noqa: BLE001 - the server may be the reason we are here
        pass


def one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
