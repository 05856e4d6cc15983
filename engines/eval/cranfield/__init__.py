"""Cranfield: 1,400 aeronautics abstracts, 225 queries, graded judgements, read as notes.

Source: olivernn/cranfield @ 8f40ee9 : data/cran (../shared/data/notes/cranfield), the classic public test
collection. Splits: by the query's text (runner.split_of). Loader: load.py; configurations:
engines/eval/configs/notes.py, shared with vaswani.
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.configs.notes import CONFIGS

    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from engines.eval.configs.notes import notes_suite
    from engines.eval.cranfield.load import load_cranfield

    return notes_suite("cranfield", data / "notes" / "cranfield", load_cranfield, progress)


DATASET = declare(Dataset("notes", "cranfield", _configs, _open))
