"""An example dataset, laid out as every dataset under engines/eval is: to add one, copy this folder to
engines/eval/<name>/, point the loader at its files and add its import to engines/eval/catalogue.py.

Source: written here for the test (a few garden notes and requests judged by note id). Splits: by the
request's own field. Loader: load.py; configurations: the engine's own tiers through its contract
(engines/eval/runner.py engine_configs), as a dataset with none of its own is scored.
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare

CONFIGS = ("exact", "words", "semantic", "answer")


def _configs() -> tuple[str, ...]:
    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from tests.evaluation.dataset_example.load import example_suite

    return example_suite(progress)


DATASET = declare(Dataset("notes", "example", _configs, _open))
