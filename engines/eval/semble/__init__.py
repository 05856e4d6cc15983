"""semble's code-search benchmark: 63 repositories in 19 languages, dev queries over 42 of them, scored
per repository as its README says (nDCG@10 over files and line ranges).

Source: MinishLab/semble @ 8d737ab : benchmarks/ (../shared/data/code/semble), MIT; each repository under
its own licence, kept beside it. Splits: the dev annotations there; the 21 held-out repositories' annotations
are kept elsewhere (--queries FOLDER). Loader and scoring: load.py; the run, each repository indexed once:
run.py; the command's face: report.py. It runs on its own, not as a suite.
"""

from __future__ import annotations

from engines.contract import Option
from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.semble.run import CONFIGS

    return CONFIGS


def _defaults() -> list[str]:
    from engines.eval.semble.run import DEFAULT_CONFIGS

    return list(DEFAULT_CONFIGS)


def _run(**asked) -> int:
    from engines.eval.semble.report import evaluate_semble

    return evaluate_semble(**asked)


DATASET = declare(Dataset("code", "semble", _configs, default_configs=_defaults,
                          queries="a folder of <repo>.json annotation files", run=_run,
                          arguments=(Option("repos", "only these repositories, comma-separated"),)))
