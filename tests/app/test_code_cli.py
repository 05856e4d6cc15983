"""`olai-tui search code` and `olai-tui index code`, run as real subprocesses.

`--json` prints one answer object and nothing else on stdout; a bad argument, a missing corpus or
an unknown module is exit 2 with one line on stderr naming it, never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    environment.pop("OLAI_RECALL", None)
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "olai_tui.cli", *args], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=120)


def only_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.count("\n") == 1, "one JSON object and nothing else"
    return json.loads(done.stdout)


def test_where_do_we_throttle_requests_on_the_default_corpus_finds_the_rate_limiter():
    answer = only_json(cli("search", "code", "where do we throttle requests", "--json"))
    assert answer["engine"] == "code" and answer["hits"][0]["id"] == "shopfront/limits.py::RateLimiter"
    hit = answer["hits"][0]
    assert hit["where"] == "shopfront/limits.py:17" and hit["tier"] == "lexical" and hit["line"] == 17
    tiers = {t["name"]: t for t in answer["tiers"]}
    assert tiers["lexical"]["status"] == "answered"
    # meaning from the first search: the trained code table's vectors, said in the tier and on each row
    assert tiers["embedding"]["status"] == "answered" and tiers["embedding"]["vectors"] == {"static": 1.0}
    assert all(h["vectors"] == "static" for h in answer["hits"] if h["tier"] == "embedding")
    lexical = only_json(cli("search", "code", "where do we throttle requests", "--tiers", "lexical", "--json"))
    off = {t["name"]: t for t in lexical["tiers"]}["embedding"]
    assert off["status"] == "off" and "embedding" in off["enable"]


def test_both_tiers_answer_when_asked_and_say_so():
    # --wait: this asks that both tiers answer, not how long a one-shot search waits (test_cli_wait.py);
    # on a cold cache under load the model's load and 42 symbols can outlast the one-shot budget
    answer = only_json(cli("search", "code", "where do we throttle requests", "--tiers", "lexical,embedding",
                           "--limit", "3", "--json", "--wait"))
    assert "shopfront/limits.py::RateLimiter" in [h["id"] for h in answer["hits"]]
    assert {t["name"]: t["status"] for t in answer["tiers"]} == {"lexical": "answered", "embedding": "answered"}
    assert answer["merge"] == "fused"


def test_installed_modules_are_searched_by_name():
    answer = only_json(cli("search", "code", "decode a json document", "--modules", "json", "--json"))
    assert answer["hits"] and all(h["where"].startswith("json/") for h in answer["hits"])


@pytest.mark.parametrize("args, message", [
    (("search", "code", "x", "--modules", "no_such_module_here"), "--modules: no installed module named"),
    (("search", "code", "x", "--modules", ","), "--modules: no module named"),
    (("search", "code", "x", "--modules", "json", "--corpus", "."), "give one or the other"),
    (("search", "code", "x", "--tiers", "lexical,semantic"), "--tiers: unknown tier 'semantic' for code"),
    (("search", "code", "x", "--corpus", "/no/such/place"), "/no/such/place: no such file or directory"),
    (("search", "notes", "x", "--modules", "json"), "--modules: only the code engine"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, message):
    done = cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_bad_files_are_named_on_stderr_and_the_rest_answers(tmp_path):
    (tmp_path / "ok.py").write_text('def rate_limit():\n    """Cap requests."""\n')
    (tmp_path / "old.py").write_text('print "python 2"\n')
    done = cli("search", "code", "rate limit", "--corpus", str(tmp_path), "--json")
    answer = only_json(done)
    assert [h["id"] for h in answer["hits"]][:1] == ["ok.py::rate_limit"]
    assert done.stderr.count("\n") == 1 and "old.py: not Python 3 syntax" in done.stderr
