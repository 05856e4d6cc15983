"""`olai-tui mcp` through a real client: the official SDK's ClientSession spawning the server over stdio.

What an agent relies on: three tools with strict schemas; the done-when queries answered with
`matched`; bad arguments answered as tool errors of one line while the server keeps serving; 20
calls at once all answered; `read` confined to the corpora; a call during an index build answers at
once; stdin closed -> exit within 2 s; and not one byte on stdout that is not JSON-RPC, even when
native code writes to fd 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
SLUGS = "garden/cold-frames/slugs.md"
SNAILS = "protecting young plants from snails"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OLAI_RECALL", "OLAI_EMBED_MODEL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), extra.pop("PYTHONPATH", None)]))
    env.update(extra)
    return env


def session(*args: str, **env: str):
    """An initialized client session on a fresh `olai-tui mcp` process (an async context manager)."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "olai_tui.cli", "mcp", *args],
                                   cwd=str(REPO), env=_env(**env))

    class _Session:
        async def __aenter__(self):
            self._client = stdio_client(params)
            read, write = await self._client.__aenter__()
            self._session = ClientSession(read, write, read_timeout_seconds=120)
            client = await self._session.__aenter__()
            await client.initialize()
            return client

        async def __aexit__(self, *exc):
            await self._session.__aexit__(*exc)
            await self._client.__aexit__(*exc)

    return _Session()


def run(coroutine_function, *args):
    return anyio.run(coroutine_function, *args)


def _error_line(result) -> str:
    assert result.is_error, result
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text, text
    return text


async def _wait_ready(client, engine: str, tier: str, timeout: float = 240) -> None:
    """Poll `status` until the tier's index is built (the first meaning query started it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = (await client.call_tool("status", {"engine": engine})).structured_content["engines"][0]
        state = next((t["status"] for t in status["tiers"] if t["name"] == tier), "opening")
        if state not in ("indexing", "skipped", "opening"):
            return
        await anyio.sleep(0.25)
    raise AssertionError(f"{engine}/{tier} still indexing after {timeout} s")


async def _status_when_open(client, timeout: float = 60):
    """`status` once every engine has opened. status never blocks on one still opening (it waits 0.5 s,
    then says so): on a loaded 2-core host the background open can take longer than that (CI did)."""
    deadline = time.monotonic() + timeout
    while True:
        status = await client.call_tool("status", {})
        opening = [e for e in status.structured_content["engines"] if not e["ready"]]
        if not opening:
            return status
        for e in opening:
            assert e["error"].startswith(f"{e['engine']}: opening "), e  # said, not hidden
        if time.monotonic() > deadline:
            raise AssertionError(f"still opening after {timeout} s: {opening}")
        await anyio.sleep(0.25)


# -- the tools ---------------------------------------------------------------------------------------
def test_three_tools_with_strict_schemas_and_honest_descriptions():
    async def go():
        async with session() as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"search", "read", "status"}
        for tool in tools.values():
            schema = tool.input_schema
            assert schema["type"] == "object" and schema["additionalProperties"] is False
            dumped = json.dumps(schema)
            assert "anyOf" not in dumped and "oneOf" not in dumped and '"null"' not in dumped, tool.name
        search = tools["search"]
        assert search.input_schema["properties"]["engine"]["enum"] == ["code", "notes", "products"]
        assert set(search.input_schema["required"]) == {"engine", "query"}
        assert "never evidence" in search.description and "`total`" in search.description
        assert "indexing" in search.description
    run(go)


def test_the_done_when_queries_over_mcp():
    async def go():
        async with session() as client:
            first = await client.call_tool("search", {"engine": "notes", "query": SNAILS})
            assert not first.is_error, first.content[0].text
            await _wait_ready(client, "notes", "semantic")
            snails = (await client.call_tool("search", {"engine": "notes", "query": SNAILS})).structured_content
            code = (await client.call_tool("search", {"engine": "code", "query": "where do we throttle requests"}))
            milk = (await client.call_tool("search", {"engine": "products", "query": "laktoositon maito 1 l"}))
        slugs = [h for h in snails["hits"] if h["id"] == SLUGS]
        assert slugs and slugs[0]["matched"] == "meaning" and slugs[0]["marker"] == "≈", snails
        top = code.structured_content["hits"][0]
        assert top["where"].startswith("shopfront/limits.py") and top["matched"] == "words"
        assert "RateLimiter" in code.content[0].text
        best = milk.structured_content["hits"][0]
        assert best["matched"] == "judged" and best["label"] == "exact"
        assert any("lactose-free" in c for c in best["checks"]), best
        assert "lactose-free" in milk.content[0].text.splitlines()[0]
    run(go)


def test_read_gives_the_text_and_status_says_what_each_engine_can_answer():
    async def go():
        async with session() as client:
            note = await client.call_tool("read", {"engine": "notes", "id": SLUGS})
            status = await _status_when_open(client)
        passage = note.structured_content
        assert passage["path"].endswith(SLUGS) and passage["start_line"] == 1 and not passage["truncated"]
        assert "silver trails" in passage["text"]
        engines = {e["engine"]: e for e in status.structured_content["engines"]}
        assert set(engines) == {"code", "notes", "products"}
        for e in engines.values():
            assert e["ready"] and e["items"] > 0 and e["corpus"]
            for tier in e["cannot_answer"]:
                assert tier["status"] in ("off", "unavailable", "failed", "late") and (tier.get("enable") or tier.get("reason"))
        assert "exact" in engines["notes"]["can_answer"]
        code_embedding = next(t for t in engines["code"]["tiers"] if t["name"] == "embedding")
        assert code_embedding["needs_model"] and not code_embedding["evidence"]
    run(go)


def test_bad_arguments_are_one_line_tool_errors_and_the_server_keeps_serving():
    cases = [
        ({"engine": "nope", "query": "x"}, "unknown value 'nope'"),
        ({"engine": "notes", "query": ""}, "must not be empty"),
        ({"engine": "notes", "query": "   "}, "must not be empty"),
        ({"engine": "notes", "query": "x" * 100_000}, "too long"),
        ({"engine": "notes", "query": "x", "limit": 0}, "limit"),
        ({"engine": "notes", "query": "x", "limit": 10_000}, "limit"),
        ({"engine": "notes", "query": "x", "limit": True}, "limit: must be an integer"),
        ({"engine": "notes", "query": "x", "colour": "red"}, "unknown argument 'colour'"),
        ({"engine": "notes", "query": "x", "tiers": ["lexical"]}, "no tier 'lexical'"),
        ({"engine": "notes", "query": "x", "modules": ["json"]}, "notes takes no such option"),
        ({"query": "x"}, "missing argument 'engine'"),
    ]

    async def go():
        async with session() as client:
            for arguments, expected in cases:
                line = _error_line(await client.call_tool("search", arguments))
                assert expected in line, (arguments.get("query", "")[:20], line)
            for item_id in ("../../etc/passwd", "/etc/passwd", "~/.ssh/id_rsa", "garden/../../../etc/passwd",
                            "C:\\Windows\\win.ini", "no/such/note.md"):
                line = _error_line(await client.call_tool("read", {"engine": "notes", "id": item_id}))
                assert line.startswith("read: "), line
            _error_line(await client.call_tool("nonexistent", {}))
            still = await client.call_tool("search", {"engine": "notes", "query": "seedlings", "tiers": ["exact"]})
        assert not still.is_error and still.structured_content["hits"][0]["id"] == SLUGS
    run(go)


def test_read_refuses_a_symlink_out_of_the_corpus(tmp_path):
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Secret\n\nthe launch codes\n", encoding="utf-8")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kept.md").write_text("# Kept\n\nan ordinary note about launch plans\n", encoding="utf-8")
    (notes / "escape.md").symlink_to(secret)
    (notes / "away").symlink_to(secret.parent, target_is_directory=True)

    async def go():
        async with session("--notes", str(notes)) as client:
            kept = await client.call_tool("read", {"engine": "notes", "id": "kept.md"})
            lines = [_error_line(await client.call_tool("read", {"engine": "notes", "id": item}))
                     for item in ("escape.md", "away/secret.md")]
        assert "ordinary note" in kept.structured_content["text"]
        for line in lines:
            assert "refused" in line or "no item" in line, line
            assert "launch codes" not in line
    run(go)


def test_twenty_concurrent_calls_are_all_answered():
    queries = ["seedlings", "slugs", "jam", "varnish", "compost", "knives", "rust", "leeks", "garlic", "beans"]

    async def go():
        results = {}
        async with session() as client:
            async def one(i: int) -> None:
                engine = ("notes", "code")[i % 2]
                query = queries[i // 2] if engine == "notes" else "rate limit retry cache"
                results[i] = await client.call_tool("search", {"engine": engine, "query": query, "limit": 5,
                                                               "tiers": ["exact", "words"] if engine == "notes" else ["lexical"]})
            async with anyio.create_task_group() as group:
                for i in range(20):
                    group.start_soon(one, i)
        assert len(results) == 20 and not any(r.is_error for r in results.values())
        assert all(r.structured_content["engine"] in ("notes", "code") for r in results.values())
    run(go)


def test_a_search_while_the_index_builds_answers_at_once_with_the_evidence_tiers(tmp_path):
    async def go():
        async with session(XDG_CACHE_HOME=str(tmp_path / "cold")) as client:
            started = time.monotonic()
            result = await client.call_tool("search", {"engine": "notes", "query": "seedlings"})
            took = time.monotonic() - started
        assert not result.is_error
        tiers = {t["name"]: t for t in result.structured_content["tiers"]}
        assert tiers["exact"]["status"] == "answered"
        assert took < 6, f"{took:.1f} s: a search must not wait for the index (grace 1.5 s, model load)"
        if tiers["semantic"]["status"] == "indexing":  # a fast machine may finish the small demo in time
            assert tiers["semantic"]["of"] > 0 and result.structured_content["indexing"]["semantic"]["of"] > 0
            assert "indexing" in result.content[0].text
    run(go)


# -- the process contract ----------------------------------------------------------------------------
STRAY = textwrap.dedent("""
    # Loaded at the server's start (sitecustomize): writes to fd 1 from C and from Python, after the
    # server has answered, as llama.cpp's native logging would. It starts on the test's go (a file), and
    # writes five rounds 0.25 s apart: while llama.cpp loads a model it points fds 1 and 2 at
    # /dev/null, and a single write that fell in that window was lost (a fresh-clone run once saw an
    # empty stderr). Any round that reached the real stdout would break the JSON-RPC stream.
    import ctypes, os, threading, time
    def _stray():
        go = os.environ.get("OLAI_TEST_STRAY_GO", "")
        deadline = time.monotonic() + 60
        while go and not os.path.exists(go) and time.monotonic() < deadline:
            time.sleep(0.05)
        libc = ctypes.CDLL(None)
        for _ in range(5):
            libc.puts(b"stray line from C")
            libc.fflush(None)
            os.write(1, b"stray bytes on fd 1\\n")
            print("stray print", flush=True)
            time.sleep(0.25)
    threading.Thread(target=_stray, daemon=True).start()
""")


def _rpc(number: int, method: str, params: dict) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n").encode()


def test_stdout_is_only_json_rpc_and_closing_stdin_exits_within_two_seconds(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(STRAY, encoding="utf-8")
    go = tmp_path / "stray-go"
    process = subprocess.Popen([sys.executable, "-m", "olai_tui.cli", "mcp"], cwd=REPO,
                               env=_env(PYTHONPATH=str(tmp_path), OLAI_TEST_STRAY_GO=str(go)), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    process.stdin.write(_rpc(1, "initialize", init))
    process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    process.stdin.write(_rpc(2, "tools/list", {}))
    # meaning: loads llama.cpp (its native logging is the real stray writer)
    process.stdin.write(_rpc(3, "tools/call", {"name": "search", "arguments": {"engine": "notes", "query": SNAILS}}))
    process.stdin.flush()
    lines = []
    while len(lines) < 3:
        line = process.stdout.readline()
        assert line, f"server closed stdout early; stderr:\n{process.stderr.read().decode()[-2000:]}"
        lines.append(line)
    go.touch()  # the model is loaded (call 3 asked for meaning): the stray writer fires now
    time.sleep(1.5)  # and has fired by now
    process.stdin.close()
    closed = time.monotonic()
    process.wait(timeout=10)
    took = time.monotonic() - closed
    rest = process.stdout.read()
    stderr = process.stderr.read().decode()
    assert took < 2.0, f"exit took {took:.2f} s after stdin closed"
    assert process.returncode == 0, stderr[-2000:]
    for line in lines + rest.splitlines(keepends=True):
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0", line
    assert {json.loads(line)["id"] for line in lines} == {1, 2, 3}
    assert "stray line from C" in stderr and "stray bytes on fd 1" in stderr and "stray print" in stderr


def test_a_missing_corpus_is_exit_2_with_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "olai_tui.cli", "mcp", "--notes", str(tmp_path / "none")],
                          cwd=REPO, env=_env(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no such file" in done.stderr


PLUGIN = textwrap.dedent('''
    """A recipes engine from a separate package: the registry finds it through its entry point."""
    from pathlib import Path
    from engines.answer import Batch, Hit, TierReport
    from engines.contract import Engine, EngineStatus, Passage, Ranked
    from engines.registry import EngineSpec

    RECIPES = {"soup": "Leek and potato soup", "bread": "A plain white loaf"}

    class RecipesEngine(Engine):
        name = "recipes"
        tiers = ("exact",)
        default_tiers = ("exact",)
        evidence_tiers = ("exact",)
        problems = []

        def __init__(self, corpus):
            self.corpus = corpus

        def search(self, query, limit=10, tiers=None):
            hits = [Hit(k, v, k, "exact", 1.0) for k, v in RECIPES.items() if query.lower() in v.lower()]
            yield Batch(hits=hits[:limit], tiers=[TierReport("exact", "answered" if hits else "empty", 0.1, len(hits))],
                        total=len(hits))

        def rank(self, tier, query, depth=100):
            return [Ranked(k, 1.0) for k in RECIPES]

        def read(self, item_id):
            return Passage(item_id, RECIPES[item_id], item_id, RECIPES[item_id])

        def status(self):
            return EngineStatus("recipes", str(self.corpus), len(RECIPES), [TierReport("exact", "answered", count=2)])

        def items(self):
            return len(RECIPES)

        @property
        def corpus_label(self):
            return str(self.corpus)

    SPEC = EngineSpec("recipes", "a cook's recipes", lambda corpus, wait_for_index=False: RecipesEngine(corpus),
                      lambda: Path(__file__).parent)
''')


def test_an_engine_the_registry_lists_appears_over_mcp_with_no_mcp_code(tmp_path):
    (tmp_path / "olai_recipes.py").write_text(PLUGIN, encoding="utf-8")
    info = tmp_path / "olai_recipes-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: olai-recipes\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[olai_tui.engines]\nrecipes = olai_recipes:SPEC\n", encoding="utf-8")

    async def go():
        async with session(PYTHONPATH=str(tmp_path)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool("search", {"engine": "recipes", "query": "leek"})
            status = await client.call_tool("status", {"engine": "recipes"})
        assert "recipes" in tools["search"].input_schema["properties"]["engine"]["enum"]
        assert [h["id"] for h in found.structured_content["hits"]] == ["soup"]
        assert found.structured_content["hits"][0]["matched"] == "exact"
        assert status.structured_content["engines"][0]["items"] == 2
    run(go)


def test_status_says_an_engine_still_opening_is_opening_not_refused(monkeypatch, tmp_path):
    from olai_tui.mcp import pool as pool_module

    opened = threading.Event()
    real = pool_module.registry.open_engine

    def slow_open(name, corpus, **options):
        opened.wait(10)  # the products catalogue of a loaded host: longer than status waits (0.5 s)
        return real(name, corpus, **options)

    monkeypatch.setattr(pool_module.registry, "open_engine", slow_open)
    pool = pool_module.Pool({"notes": tmp_path})
    slot = pool.slots["notes"]
    threading.Thread(target=slot.ensure_open, daemon=True).start()
    try:
        [(name, engine, status, error)] = pool.status(["notes"])
        assert engine is None and error.startswith("notes: opening "), error
    finally:
        opened.set()
    [(name, engine, status, error)] = pool.status(["notes"])
    assert error is None and engine is not None
    engine.close()
