"""Natural questions over source trees (issue 60): what a developer new to a repository asks, in their
words rather than the code's, over 13 of semble's 42 dev repositories in 7 languages, each question's
answering symbols graded 0-3.

Written for this project before any ranking was tuned on them (questions/README.md says how); one
judgement file a repository in the shape `olai-tui` exchanges grades in (CSV ``query,id,grade``: ids
are the code engine's symbol ids, relative to the repository's benchmark root). The run: run.py.
"""

from __future__ import annotations

from engines.contract import Option
from engines.eval.datasets import Dataset, declare

CONFIGS = ("lexical", "code_table", "default")


def _run(**asked) -> int:
    from engines.eval.natural.run import evaluate_natural

    return evaluate_natural(**asked)


DATASET = declare(Dataset("code", "natural", lambda: CONFIGS, default_configs=lambda: list(CONFIGS),
                          queries="a folder of <repo>.csv judgement files (query,id,grade)", run=_run,
                          arguments=(Option("repos", "only these repositories, comma-separated"),)))
