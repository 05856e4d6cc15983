"""`olai-tui eval` as a user runs it: a real subprocess, its exit status, its one-line errors, ctrl+c."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def environment(**extra: str) -> dict:
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env.update(extra)
    return env


def cli(*args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olai_tui.cli", "eval", *args], cwd=REPO, env=environment(**extra),
                          capture_output=True, text=True, timeout=300)


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_unknown_dataset_and_configuration_name_the_known_ones():
    line = one_line_error(cli("notes", "--dataset", "trec-covid"))
    assert "trec-covid" in line and "vaswani, cranfield" in line
    line = one_line_error(cli("products", "--dataset", "food", "--configs", "bm25,smartest"))
    assert "'smartest'" in line and "hybrid_rrf_rules" in line and "smart" in line


def test_a_dataset_folder_that_does_not_exist_is_named(tmp_path):
    for engine, dataset, folder in (("notes", "vaswani", "notes/vaswani"), ("code", "cosqa", "code/cosqa"),
                                    ("products", "icecat", "products/icecat")):
        line = one_line_error(cli(engine, "--dataset", dataset, OLAI_SHARED_DATA=str(tmp_path / "nowhere")))
        assert str(tmp_path / "nowhere" / folder) in line and "no such" in line, line


def test_a_malformed_vaswani_judgement_names_file_and_line(tmp_path):
    folder = tmp_path / "data" / "notes" / "vaswani"
    folder.mkdir(parents=True)
    (folder / "doc-text.trec").write_text("<DOC>\n<DOCNO>1</DOCNO>\nslugs eat seedlings\n</DOC>\n")
    (folder / "query-text.trec").write_text("<top>\n<num>1</num><title>\nslugs\n</title>\n</top>\n")
    (folder / "qrels").write_text("1 0 1 1\n1 0 one\n")
    line = one_line_error(cli("notes", "--dataset", "vaswani", "--configs", "exact",
                              OLAI_SHARED_DATA=str(tmp_path / "data")))
    assert f"{folder / 'qrels'}:2" in line, line



def test_a_malformed_cosqa_file_names_file_and_line(tmp_path):
    folder = tmp_path / "data" / "code" / "cosqa"
    folder.mkdir(parents=True)
    (folder / "code_idx_map.txt").write_text('{"def f():\\n    return 1": 0}')
    (folder / "cosqa-retrieval-dev-500.json").write_text('[\n  {"doc": "return one", "retrieval_idx": 0},\n  {"doc": oops}\n]')
    line = one_line_error(cli("code", "--dataset", "cosqa", "--configs", "lexical",
                              OLAI_SHARED_DATA=str(tmp_path / "data")))
    assert f"{folder / 'cosqa-retrieval-dev-500.json'}:3" in line and "malformed JSON" in line, line


def test_ctrl_c_stops_with_one_line_and_keeps_the_answers_measured_so_far(tmp_path):
    cache = tmp_path / "cache"
    env = environment(XDG_CACHE_HOME=str(cache))
    # ~3 s of work on a quiet machine (228 requests x 3 configurations): ctrl+c lands well before the end
    args = [sys.executable, "-m", "olai_tui.cli", "eval", "products", "--dataset", "food", "--configs",
            "knn,smart,recall", "--split", "both", "--fresh", "--json"]
    # ctrl+c as a terminal sends it: SIGINT at its default in the child, even when this suite runs as a
    # background job (a shell starts those with SIGINT ignored, and a child inherits that; Python then
    # never raises KeyboardInterrupt, and the run went on to the end).
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    out: list[str] = []
    drain = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    drain.start()  # a run that finished anyway must not block on a full stdout pipe and hang the suite
    try:
        seen = []
        for line in proc.stderr:  # progress lines: "eval products food N/M", one per tenth off a terminal
            seen.append(line)
            if line.startswith("eval products food ") and "/" in line and not line.startswith("eval products food 0/"):
                proc.send_signal(signal.SIGINT)
                break
        rest = proc.stderr.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    drain.join(timeout=10)
    assert proc.returncode == 130, "".join(seen) + rest
    assert "Traceback" not in rest and "interrupted" in rest
    assert out == [""], "no table for a run that did not finish"
    kept = {p: json.loads(p.read_text()) for p in (cache / "olai-tui" / "eval").glob("products-food-*.json")}
    assert any(p.name.startswith("products-food-knn-") and rows for p, rows in kept.items()), \
        "the answers measured before ctrl+c are cached"
    assert all(isinstance(r["ranked"], list) and r["ms"] >= 0 for rows in kept.values() for r in rows.values())
    assert sum(map(len, kept.values())) < 3 * 228, "interrupted before the end"

    # the next run measures only what was missing and prints the whole table
    done = subprocess.run(args[:-2] + ["--json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)
    assert {n: sum(m.values()) for n, m in (
        (n, {s: v["requests"] for s, v in body["metrics"].items()}) for n, body in table["configs"].items())} == \
        {"knn": 228, "smart": 228, "recall": 228}
    for path, rows in kept.items():  # what was cached before ctrl+c is what the table used, untouched
        now = json.loads(path.read_text())
        assert len(now) == 228 and all(now[q] == r for q, r in rows.items())


def test_held_out_requests_kept_elsewhere_are_scored_with_queries(tmp_path):
    # food_fisv's held-out requests (like fineli's and the roadmap's) live outside the repository:
    # --queries FILE, a file of the dev file's shape, is scored as the held-out split
    held = tmp_path / "fisv-heldout.jsonl"
    held.write_text('{"text": "appelsiinimehu", "lang": "fi", "right": ["02502409", "0758108231832"]}\n'
                    '{"text": "apelsinjuice", "lang": "sv", "right": ["02502409", "0758108231832"]}\n', encoding="utf-8")
    done = cli("products", "--dataset", "food_fisv", "--split", "heldout", "--configs", "bm25",
               "--queries", str(held), "--json", XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [(r["id"], r["query"]) for r in out["requests"]] == [("food_fisv-heldout-1", "appelsiinimehu"),
                                                                ("food_fisv-heldout-2", "apelsinjuice")]
    assert out["configs"]["bm25"]["metrics"]["right_first_fi"] in (0.0, 1.0)
    missing = one_line_error(cli("products", "--dataset", "food_fisv", "--queries", str(tmp_path / "nope.jsonl")))
    assert "nope.jsonl" in missing
    refused = one_line_error(cli("products", "--dataset", "food", "--queries", str(held)))
    assert refused.startswith("olai-tui: --queries:")
