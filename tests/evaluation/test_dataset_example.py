"""A dataset is one package and one declaration: tests/evaluation/dataset_example is laid out as every
dataset under engines/eval is, declared from here, and `olai-tui eval`, its help and the catalogue read
it as they read the shipped ones, scored by the same runner."""

from __future__ import annotations

import json

import pytest

from engines.eval import datasets


@pytest.fixture
def example(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    import tests.evaluation.dataset_example as package  # importing the package declares it

    if ("notes", "example") not in [(d.engine, d.name) for d in datasets.datasets("notes")]:
        datasets.declare(package.DATASET)  # the package was imported by an earlier test, which forgot it
    yield package
    datasets.forget("notes", "example")


def test_the_catalogue_lists_a_dataset_declared_elsewhere_after_the_shipped_ones(example):
    from engines.eval.catalogue import datasets as listed

    names = [d.name for d in listed("notes")]
    assert names == ["vaswani", "cranfield", "roadmap", "example"]


def test_eval_scores_the_example_dataset_with_the_shared_runner(example, capsys):
    from olai_tui.cli import main

    assert main(["eval", "notes", "--dataset", "example", "--configs", "exact,words,answer", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dataset"] == "example" and list(report["configs"]) == ["exact", "words", "answer"]
    metrics = {c: report["configs"][c]["metrics"] for c in report["configs"]}
    assert metrics["exact"]["dev"]["requests"] == metrics["exact"]["heldout"]["requests"] == 2
    # the dev requests share their words with the right note; the held-out ones are paraphrases that
    # exact words cannot find and the engine's answer (meaning filling what words leave) does
    assert metrics["exact"]["dev"]["mrr@10"] == 1.0 and metrics["exact"]["heldout"]["recall@10"] == 0.0
    assert metrics["answer"]["heldout"]["recall@10"] == 1.0


def test_an_unknown_configuration_names_the_example_s_own(example, capsys):
    from olai_tui.cli import main

    assert main(["eval", "notes", "--dataset", "example", "--configs", "nosuch"]) == 2
    assert "(known: exact, words, semantic, answer)" in capsys.readouterr().err


def test_a_malformed_request_line_is_one_line_naming_the_file_and_line(example, tmp_path):
    from tests.evaluation.dataset_example.load import ExampleError, load_requests

    bad = tmp_path / "requests.jsonl"
    bad.write_text('{"query": "a", "right": [], "split": "dev"}\n{"query": "b"}\n', encoding="utf-8")
    with pytest.raises(ExampleError, match=rf"^{bad}:2: 'right'$"):
        load_requests(bad)
