"""What `olai-tui index ENGINE --backend milvus --uri URI [--rollback | --status | --force]` shares
between engines: its arguments checked, and a failure said in one line (exit 1), never a traceback."""

from __future__ import annotations

from typing import Any, Callable

from engines.contract import Console
from engines.errors import BadInput


def publish_uri(options: dict[str, Any]) -> str:
    """The Milvus to publish to; BadInput for arguments that do not go together."""
    uri = options.get("uri")
    if options.get("rollback") and options.get("status"):
        raise BadInput("--rollback and --status: give one or the other")
    if not uri:
        raise BadInput("--uri: the Milvus to publish to is needed (for example http://127.0.0.1:19530)")
    if options.get("backend") != "milvus":
        raise BadInput("--uri/--rollback/--status: add --backend milvus")
    try:
        import pymilvus  # noqa: F401
    except ImportError:
        raise BadInput("pymilvus is not installed: pip install -e '.[milvus]'") from None
    return uri


def published_line(name: str, version: str, what: str, done: dict) -> str:
    """What a publish says it did: ``olai_products -> olai_products_v2 (929 products in 3.1 s; was ...)``."""
    return (f"{name} -> {version} ({what} in {done['publish_s']} s"
            + (f"; was {done['previous']}" if done["previous"] else "")
            + (f"; dropped {', '.join(done['dropped'])}" if done["dropped"] else "") + ")")


def status_lines(name: str, state: dict, row: Callable[[dict], str]) -> list[str]:
    """What ``--status`` prints: where ``name`` points, then each version, the current one starred."""
    return ([f"{name} -> {state['current'] or 'nothing published'}"]
            + [f"{'*' if v['current'] else ' '} {row(v)}" for v in state["versions"]])


def rolled_back_line(name: str, now: str, moved: dict) -> str:
    """What ``--rollback`` prints: ``olai_products -> olai_products_v1 (was olai_products_v2)``."""
    return f"{name} -> {now} (was {moved['previous']})"


def said(console: Console, uri: str, work: Callable[[], int]) -> int:
    """``work()``'s status, or 1 with its failure said in one line."""
    from engines.milvus.versions import PublishError

    try:
        return work()
    except PublishError as exc:
        console.say(str(exc))
    except Exception as exc:  # noqa: BLE001 - a refused connection, a server error: one line, never a traceback
        console.say(f"{uri}: {' '.join(str(exc).split())[:300]}")
    return 1
