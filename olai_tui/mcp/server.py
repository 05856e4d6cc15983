"""`olai-tui mcp`: the engines as MCP tools on stdio (the official Python SDK's low-level server).

Tools: ``search`` (the answer envelope as structured content, each hit with ``matched``), ``read`` (a
hit's text, bounded, confined to the configured corpora) and ``status`` (per engine: corpus, index
done/of, which tiers can answer and what enables the others). The engines, their names and their
options come from the registry: this module names none of them.

The process contract:
- stdout carries JSON-RPC and nothing else. Before anything else runs, fd 1 is duplicated for the
  wire and fd 1 itself is pointed at stderr, at the OS level: a print, a C library or llama.cpp's
  native logging (which writes to fd 1/2 directly, qmd #593) lands on stderr, never in the stream.
- The server exits when stdin closes (qmd #751), within a second: background work (index builds,
  folder watchers) is told to stop and never holds the process.
- Nothing loads the model until a call asks a tier that needs it; a call while an index builds
  answers at once with the evidence tiers and ``indexing done/of`` (after at most INDEX_GRACE_S).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import threading
import traceback
from functools import partial
from pathlib import Path
from typing import Any

from engines import registry
from olai_tui.mcp import envelope, schemas
from olai_tui.mcp.pool import Pool, Refused

SERVER_NAME = "olai-tui"
CLOSE_WAIT_S = 0.8  # closing engines on the way out: never longer, so stdin closed -> exit well under 2 s

SEARCH_HELP = (
    "Search one corpus in tiers, cheap evidence first. Each row says how it matched: `exact` (the "
    "query's words or phrase are in it) and `words` (ranked word matches, BM25) are evidence you can "
    "check; `meaning` (marker ≈) is resemblance found by a local embedding model, worth checking, "
    "never evidence: read the item before relying on it; `judged` (products) is a judge's label "
    "(exact / variant / stand-in) with the `checks` behind it. `total` counts every match above the "
    "floors, uncapped, each item once (more than the rows when `limit` cut them). `tiers` reports each "
    "tier: answered / empty / skipped (not needed) / off (with what enables it) / unavailable (why, and "
    "what enables it) / indexing (done/of: the model's index is still building, so meaning rows may be "
    "missing: ask again) / late / failed. Give a row's `id` to `read` for its text.")
READ_HELP = ("The text of a search row (by its `id`), with its file and line range; at most 64,000 "
             "characters (`truncated` says when cut). Only items of the configured corpora.")
STATUS_HELP = ("Per engine: its corpus and item count, each tier's state (which can answer now; for the "
               "others why not and what enables them) and the index build's progress (done/of).")

HIT_SCHEMA = {"type": "object", "required": ["id", "title", "where", "tier", "matched"],
              "properties": {"matched": {"type": "string", "enum": list(envelope.MATCHED)}}}
SEARCH_OUTPUT = {"type": "object", "required": ["engine", "query", "hits", "tiers", "total"],
                 "properties": {"hits": {"type": "array", "items": HIT_SCHEMA},
                                "tiers": {"type": "array", "items": {"type": "object"}},
                                "total": {"type": "integer"}}}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name in registry.names():
        parser.add_argument(f"--{name}", metavar="PATH", help=f"the {name} corpus (default: the demo)")
    parser.add_argument("--bench", action="store_true",
                        help="measure: first answer after start, warm search p50 per engine, server RSS")


def run(args: argparse.Namespace) -> int:
    """The `olai-tui mcp` command: check the corpora (exit 2 with one line), then serve or measure."""
    from olai_tui.errors import UsageError, shown

    corpora: dict[str, Path | None] = {}
    for name in registry.names():
        value = getattr(args, name, None)
        if value is not None and not Path(value).exists():
            raise UsageError(f"--{name} {shown(value)}: no such file or directory")
        corpora[name] = Path(value) if value is not None else None
    if getattr(args, "bench", False):
        from olai_tui.mcp.bench import bench

        return bench(corpora)
    return serve(corpora)


def serve(corpora: dict[str, Path | None]) -> int:
    wire = _claim_stdout()
    pool = Pool(corpora)
    pool.start()
    server = build_server(pool)
    try:
        import anyio

        anyio.run(_serve, server, wire)
    except KeyboardInterrupt:
        pass
    finally:
        closer = threading.Thread(target=pool.close, daemon=True)
        closer.start()
        closer.join(CLOSE_WAIT_S)
        sys.stderr.flush()
        os._exit(0)  # index builders and watchers are daemon work: they never keep the process
    return 0


def _claim_stdout() -> int:
    """A private duplicate of fd 1 for the wire; fd 1 itself (and so sys.stdout) now points at stderr."""
    sys.stdout.flush()
    wire = os.dup(1)
    os.set_inheritable(wire, False)
    os.dup2(2, 1)
    return wire


async def _serve(server, wire: int) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    out = anyio.wrap_file(io.TextIOWrapper(os.fdopen(wire, "wb", closefd=False), encoding="utf-8"))
    async with stdio_server(stdout=out) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def build_server(pool: Pool):
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server

    tools = {
        "search": (schemas.search_schema(), SEARCH_HELP, SEARCH_OUTPUT, partial(_search, pool)),
        "read": (schemas.read_schema(), READ_HELP, None, partial(_read, pool)),
        "status": (schemas.status_schema(), STATUS_HELP, None, partial(_status, pool)),
    }

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=name, description=help_text, input_schema=schema, output_schema=output,
                       annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False))
            for name, (schema, help_text, output, _) in tools.items()])

    async def call_tool(ctx, params) -> types.CallToolResult:
        name = params.name
        if name not in tools:
            return _error(types, f"unknown tool {name!r} (tools: {', '.join(tools)})")
        schema, _, _, handler = tools[name]
        try:
            arguments = schemas.check(name, schema, params.arguments)
            text, structured = await anyio.to_thread.run_sync(handler, arguments)
        except (schemas.BadArguments, Refused) as exc:
            return _error(types, str(exc))
        except registry.UnknownEngine as exc:
            return _error(types, f"{name}: {exc}")
        except Exception as exc:  # noqa: BLE001 - one call failed; the server keeps serving
            traceback.print_exc(file=sys.stderr)
            return _error(types, f"{name}: failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=structured)

    return Server(SERVER_NAME, version=_version(), instructions=(
        "Local search over " + ", ".join(registry.names()) + ": call `status` to see the corpora, "
        "`search` to find, `read` to see a row's text. Meaning rows (≈) are leads, not evidence."),
        on_list_tools=list_tools, on_call_tool=call_tool)


def _error(types, line: str):
    return types.CallToolResult(content=[types.TextContent(type="text", text=line)], is_error=True)


def _options(arguments: dict[str, Any]) -> dict[str, Any]:
    fixed = {"engine", "query", "limit", "tiers", "id"}
    return {k: v for k, v in arguments.items() if k not in fixed}


def _search(pool: Pool, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    answer, engine = pool.search(arguments["engine"], arguments["query"], arguments["limit"],
                                 arguments.get("tiers"), _options(arguments))
    result = envelope.search_result(answer, tuple(engine.evidence_tiers))
    return envelope.search_text(result), result


def _read(pool: Pool, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    passage = pool.read(arguments["engine"], arguments["id"], _options(arguments))
    result = {k: v for k, v in passage.to_json().items() if v is not None}
    lines = f":{passage.start_line}" + (f"-{passage.end_line}" if passage.end_line else "") if passage.start_line else ""
    head = f"{passage.title} - {passage.path or passage.where}{lines}" + (" (truncated)" if passage.truncated else "")
    return head + "\n\n" + passage.text, result


def _status(pool: Pool, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    names = [arguments["engine"]] if "engine" in arguments else list(registry.names())
    engines = []
    for name, engine, status, error in pool.status(names):
        if engine is None:
            engines.append(envelope.status_result(name, None, (), (), (), (), error))
            continue
        engines.append(envelope.status_result(name, status, tuple(engine.tiers), tuple(engine.default_tiers),
                                              tuple(engine.evidence_tiers), tuple(engine.model_tiers), None))
    return envelope.status_text(engines), {"engines": engines}


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("olai-tui")
    except Exception:  # noqa: BLE001 - run from a checkout without an install
        return "0"
