"""Several processes on one cache (issue 39): one builds a cache entry, the others follow what it
embeds; a builder killed with SIGKILL is taken over and nothing it had embedded is embedded again.

Real processes (`olai-tui index notes`) on a real vault from tools/make_vault.py and one
XDG_CACHE_HOME; what each embedded is read from its own last line ("N passages embedded now").
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path


from engines.embed.cache import JOURNAL_SUFFIX
from engines.embed.journal import read_records
from engines.embed.llama import LlamaEmbedder
from engines.embed.vector_file import open_file

REPO = Path(__file__).resolve().parents[2]



def index(vault: Path, cache: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "olai_tui.cli", "index", "notes", "--corpus", str(vault)],
                            cwd=REPO, env={**os.environ, "XDG_CACHE_HOME": str(cache)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def embedded(stderr: str) -> int:
    """The passages this run embedded, from `index notes`' last line."""
    found = re.findall(r"[\d,]+ notes, ([\d,]+) passages embedded now", stderr)
    assert found, stderr[-500:]
    return int(found[-1].replace(",", ""))


def vector_file(cache: Path) -> Path:
    """The vault's vector file (perhaps not written yet: named by its builder's journal)."""
    (journal,) = (cache / "olai-tui" / "vectors").glob("*.vec" + JOURNAL_SUFFIX)
    return Path(str(journal)[: -len(JOURNAL_SUFFIX)])


def held(cache: Path) -> int:
    """How many passages' vectors the cache holds now, file and journal together, as a new process reads them."""
    path = vector_file(cache)
    info = LlamaEmbedder().info()
    keys: set[bytes] = set()
    try:
        keys.update(open_file(path, info.model_id, info.dims).at)
    except (OSError, ValueError):
        pass
    journal = Path(str(path) + JOURNAL_SUFFIX)
    keys.update(read_records(journal.read_bytes() if journal.exists() else b"", info.dims)[0])
    return len(keys)


def wait_for_journal(cache: Path, rows: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        journals = list((cache / "olai-tui" / "vectors").glob("*" + JOURNAL_SUFFIX))
        if journals and journals[0].stat().st_size >= rows * (32 + 384 * 4 + 4):
            return
        time.sleep(0.05)
    raise AssertionError("the builder journalled nothing")


def test_two_index_runs_at_once_embed_every_passage_once_between_them(vault, tmp_path):
    cache = tmp_path / "cache"
    first = index(vault, cache)
    wait_for_journal(cache, 1)
    second = index(vault, cache)
    out_first, out_second = first.communicate(timeout=600)[1], second.communicate(timeout=600)[1]
    assert first.returncode == second.returncode == 0, out_first + out_second
    total = held(cache)
    assert embedded(out_first) + embedded(out_second) == total, (out_first[-300:], out_second[-300:])
    assert embedded(out_second) == 0  # it followed the first to the end
    assert "damaged" not in out_first + out_second and "discarded" not in out_first + out_second
    # both saved the notes index in turn: the next process reads it whole (once: "note_strings... is missing")
    after = search(vault, cache, "ionosphere").communicate(timeout=600)[1]
    assert "damaged" not in after and "discarded" not in after, after[-300:]


def test_a_builder_killed_mid_build_is_taken_over_and_nothing_it_embedded_is_embedded_again(vault, tmp_path):
    cache = tmp_path / "cache"
    builder = index(vault, cache)
    wait_for_journal(cache, 64)  # a batch or more landed
    follower = index(vault, cache)
    time.sleep(1.0)  # the follower is following
    builder.send_signal(signal.SIGKILL)
    builder.wait()
    kept = held(cache)  # what the killed builder had saved or journalled: not to be embedded again
    out = follower.communicate(timeout=600)[1]
    assert follower.returncode == 0, out[-500:]
    total = held(cache)
    assert 0 < kept < total
    assert embedded(out) == total - kept, (kept, total, out[-300:])
    assert "damaged" not in out and "discarded" not in out


def search(vault: Path, cache: Path, query: str, limit: int = 10) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "olai_tui.cli", "search", "notes", query, "--corpus", str(vault),
                             "--wait", "--json", "--limit", str(limit)], cwd=REPO, env={**os.environ, "XDG_CACHE_HOME": str(cache)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_search_that_waits_follows_the_index_run_and_answers_as_one_process_would(vault, tmp_path):
    cache = tmp_path / "cache"
    builder = index(vault, cache)
    wait_for_journal(cache, 1)
    query = "radio waves reflected by the ionosphere"
    follower = search(vault, cache, query)
    followed = follower.communicate(timeout=600)
    built = builder.communicate(timeout=600)[1]
    assert builder.returncode == 0 and follower.returncode == 0, built[-300:] + followed[1][-300:]
    assert embedded(built) == held(cache), "the index run embedded every passage; the search none"
    alone = search(vault, cache, query).communicate(timeout=600)  # one process, the cache complete
    assert json.loads(followed[0])["hits"] == json.loads(alone[0])["hits"]
    assert json.loads(followed[0])["hits"], "the query finds something in the vault"
    for said in (built, followed[1], alone[1]):
        assert "damaged" not in said and "discarded" not in said, said[-300:]


def test_two_processes_on_one_catalogue_embed_each_product_once(tmp_path):
    from engines.locations import demo_corpus

    cache, corpus = tmp_path / "cache", str(demo_corpus("products"))
    run = [sys.executable, "-m", "olai_tui.cli", "index", "products", "--corpus", corpus]
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    first = subprocess.Popen(run, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_journal(cache, 1)
    second = subprocess.Popen(run, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = [p.communicate(timeout=600)[1] for p in (first, second)]
    assert first.returncode == second.returncode == 0, said
    counts = [int(re.findall(r"([\d,]+) embedded now", s)[-1].replace(",", "")) for s in said]
    assert counts[1] == 0 and counts[0] == held(cache) > 0, (counts, [s[-200:] for s in said])


def mcp_following(vault: Path, cache: Path, query: str, builder: subprocess.Popen) -> tuple[list[str], list[str]]:
    """`olai-tui mcp --notes VAULT` on the same cache while ``builder`` runs: the semantic tier's reasons its
    `status` gave meanwhile, and the rows its `search` answers once the tier is built."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "olai_tui.cli", "mcp", "--notes", str(vault)],
                                   cwd=str(REPO), env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    said: list[str] = []

    async def semantic(client) -> dict:
        status = (await client.call_tool("status", {"engine": "notes"})).structured_content["engines"][0]
        return next(t for t in status["tiers"] if t["name"] == "semantic")

    async def go():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            await client.call_tool("search", {"engine": "notes", "query": query, "limit": 30})
            while builder.poll() is None:  # while the index run builds, the server's index follows it
                said.append((await semantic(client)).get("reason") or "")
                await anyio.sleep(0.2)
            for _ in range(600):
                if (await semantic(client))["status"] == "answered":
                    break
                await anyio.sleep(0.1)
            found = await client.call_tool("search", {"engine": "notes", "query": query, "limit": 30})
            return [h["id"] for h in found.structured_content["hits"]]

    return said, anyio.run(go)


def test_three_processes_on_one_code_tree_embed_each_symbol_once_and_answer_alike(tmp_path):
    from engines.eval.semble.load import load_repos
    from engines.locations import shared_data

    # model2vec: 136 symbols, about 10 s of MiniLM in the first process, so the second joins mid-build (click's
    # 617 symbols took ~30 s of the suite's two cores for the same check)
    tree = load_repos(shared_data() / "code" / "semble")["model2vec"].root
    cache = tmp_path / "cache"
    run = [sys.executable, "-m", "olai_tui.cli", "index", "code", "--corpus", str(tree)]
    config = tmp_path / "config"
    (config / "olai-tui").mkdir(parents=True)
    (config / "olai-tui" / "config.toml").write_text("[code]\ncontextual = true\n", encoding="utf-8")  # MiniLM's
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "XDG_CONFIG_HOME": str(config)}
    first = subprocess.Popen(run, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_journal(cache, 1)
    second = subprocess.Popen(run, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ask = [sys.executable, "-m", "olai_tui.cli", "search", "code", "how is a static model distilled", "--corpus",
           str(tree), "--tiers", "lexical,embedding", "--wait", "--json"]
    third = subprocess.Popen(ask, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answered, asked_said = third.communicate(timeout=600)
    said = [p.communicate(timeout=600)[1] for p in (first, second)] + [asked_said]
    assert first.returncode == second.returncode == third.returncode == 0, said
    counts = [int(re.findall(r"([\d,]+) embedded now", s)[-1].replace(",", "")) for s in said[:2]]
    assert counts[1] == 0 and counts[0] == held(cache) > 0, (counts, [s[-200:] for s in said])
    assert not [s for s in said if "damaged" in s or "discarded" in s]
    alone = subprocess.run(ask, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert json.loads(answered)["hits"] == json.loads(alone.stdout)["hits"] and json.loads(answered)["hits"]


# The workbench headless in a process of its own: it opens the vault's pane as `olai-tui notes DIR` does,
# watches the pane's meaning tier while another process builds, then types the query once it is built and
# prints what it saw and the rows it shows.
WORKBENCH = r'''
import asyncio, json, sys
from pathlib import Path
from olai_tui.workbench import build_workbench
from textual import events

async def main(vault, query):
    app = build_workbench({"notes": Path(vault)}, "notes", watch=False)
    said = []
    async with app.run_test(size=(120, 40)) as pilot:
        adapter = app.adapters[0]
        while adapter.engine is None if hasattr(adapter, "engine") else True:
            await asyncio.sleep(0.05)
        engine = adapter.engine
        engine.start()
        for _ in range(6000):
            tier = engine.status().tier("semantic")
            said.append(tier.reason or "")
            if tier.status == "answered":
                break
            await asyncio.sleep(0.05)
        pane = app.active_pane
        pane.input.focus()
        pilot.app._driver.send_message(events.Key("ctrl+u", None))
        for ch in query:  # typed as a person types, a key at a time
            await asyncio.sleep(0.02)
            pilot.app._driver.send_message(events.Key("space" if ch == " " else ch, ch))
        for _ in range(600):
            answer = pane.answer
            tier = answer.tier("semantic") if answer is not None and answer.query == query else None
            if tier is not None and tier.status in ("answered", "empty", "skipped") \
                    and (tier.vectors or {}).get("contextual", 1.0) >= 1.0:  # no static stand-in left
                break
            await asyncio.sleep(0.05)
        answer = pane.answer
        print(json.dumps({"said": said, "hits": [h.id for h in answer.hits] if answer else None,
                          "embedded": engine.semantic.embedded_texts.count}))

asyncio.run(main(sys.argv[1], sys.argv[2]))
'''


def test_the_workbench_the_mcp_server_and_an_index_run_share_one_cache_and_answer_alike(vault, tmp_path):
    cache = tmp_path / "cache"
    query = "radio waves reflected by the ionosphere"
    builder = index(vault, cache)
    wait_for_journal(cache, 1)
    workbench = subprocess.Popen([sys.executable, "-c", WORKBENCH, str(vault), query], cwd=REPO,
                                 env={**os.environ, "XDG_CACHE_HOME": str(cache)}, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    mcp_said, served = mcp_following(vault, cache, query, builder)
    shown, workbench_said = workbench.communicate(timeout=600)
    built = builder.communicate(timeout=600)[1]
    assert builder.returncode == 0 and workbench.returncode == 0, built[-300:] + workbench_said[-500:]
    seen = json.loads(shown.strip().splitlines()[-1])
    # the two followers said so while the index run built; none of the three reported a damaged index
    assert any("another process" in s for s in seen["said"]), seen["said"][-5:]
    assert any("another process" in s for s in mcp_said), mcp_said[-5:]
    for said in (built, workbench_said):
        assert "damaged" not in said and "discarded" not in said, said[-300:]
    assert embedded(built) == held(cache), "the index run embedded every passage"
    assert seen["embedded"] == 0, "the workbench embedded none"
    alone = [h["id"] for h in json.loads(search(vault, cache, query, limit=30).communicate(timeout=600)[0])["hits"]]
    assert alone and seen["hits"] == alone and served == alone
