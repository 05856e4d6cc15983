"""The code table's tuning tool: its paired difference against an earlier run, and a bad baseline said
in one line (the scoring itself runs on ../shared's benchmarks, minutes long: docs/code-embedder.md)."""

from __future__ import annotations

import json

from engines.eval.tuning.code_table import against, main


def test_each_ranking_is_paired_with_the_same_ranking_of_the_baseline_query_by_query():
    now = {"semble_dev": {"per_query": {"table": [1.0, 0.5, 0.0, 0.5], "lexical": [0.5, 0.5, 0.5, 0.5]}}}
    then = {"semble_dev": {"per_query": {"table": [0.5, 0.5, 0.0, 0.0], "blend0.1": [1.0, 1.0, 1.0, 1.0]}},
            "cosqa_dev": {"per_query": {"table": [1.0]}}}
    paired = against(now, then)
    assert paired["semble_dev"]["table"]["mean"] == 0.25  # (0.5 + 0 + 0 + 0.5) / 4
    low, high = paired["semble_dev"]["table"]["ci95"]
    assert 0.0 <= low <= 0.25 <= high <= 0.5
    assert set(paired["semble_dev"]) == {"table"}  # only the rankings both runs scored
    assert paired["cosqa_dev"] == {}


def test_a_baseline_that_is_not_json_is_one_line_and_exit_2(tmp_path, capsys):
    table = tmp_path / "t.npy"
    table.write_bytes(b"")
    baseline = tmp_path / "earlier.json"
    baseline.write_text("{not json", encoding="utf-8")
    assert main(["--table", str(table), "--baseline", str(baseline)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"--baseline: {baseline}:") and "\n" not in err
    baseline.write_text(json.dumps({"semble_dev": {}}), encoding="utf-8")
    assert main(["--table", str(tmp_path / "missing.npy"), "--baseline", str(baseline)]) == 2
    assert "no such file" in capsys.readouterr().err
