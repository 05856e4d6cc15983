"""`python -m olai_tui.bench_app --corpus DIR` (issue 22): the workbench's figures on a folder of notes,
opened as `olai-tui notes DIR` opens it, with the meaning index's build rate beside the CLI's on the
same texts. Run here on the demo notebook, whose index builds in seconds: the report's shape and
its bookkeeping are checked, not its times."""

from __future__ import annotations

import json

from olai_tui import bench_app
from tests.snapshot_app import DEMO


def test_the_folder_bench_drives_the_app_and_measures_the_cli_on_the_same_texts(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "mine"))  # the bench must not use (or fill) this one
    assert bench_app.main(["--corpus", str(DEMO), "--window", "20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["notes"] > 10 and report["startup"]["total_s"] > 0
    rate = report["build_rate"]
    assert rate["app"]["texts"] > 0, rate
    assert rate["cli"]["texts"] >= rate["app"]["texts"], "the CLI stopped before the app's texts"
    assert rate["app"]["tokens_per_s"] > 0 and rate["cli"]["tokens_per_s"] > 0 and rate["app_of_cli"] > 0
    assert not (tmp_path / "mine").exists(), "the bench wrote into the user's cache"


def test_a_corpus_that_is_not_a_folder_is_a_bad_argument(tmp_path, capsys):
    assert bench_app.main(["--corpus", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err
