"""CoSQA: 6,267 Python functions and web queries, each query with its one correct function.

Source: Jun-jie-Huang/CoCLR @ 14ebcac : data/search (../shared/data/code/cosqa), Computational Use of Data
Agreement. Splits: the 500 dev queries there; the 500 test queries in ../shared/heldout/code. Loader:
load.py (each function read as one symbol); configurations: configs.py.
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.cosqa.configs import CONFIGS

    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from engines.eval.cosqa.configs import cosqa_suite

    return cosqa_suite(data / "code" / "cosqa", heldout / "code", progress)


DATASET = declare(Dataset("code", "cosqa", _configs, _open))
