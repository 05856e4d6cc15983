"""Vaswani (NPL): 11,429 short physics abstracts, 93 queries, binary judgements, read as notes.

Source: terrier-org/terrier-core @ 3ceec7d : share/vaswani_npl (../shared/data/notes/vaswani), distributed
by the University of Glasgow IR group for research use. Splits: by the query's text (runner.split_of),
dev and held-out side by side. Loader: load.py (trec.py reads its TREC document file); configurations:
engines/eval/configs/notes.py, shared with cranfield.
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.configs.notes import CONFIGS

    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from engines.eval.configs.notes import notes_suite
    from engines.eval.vaswani.load import load_vaswani

    return notes_suite("vaswani", data / "notes" / "vaswani", load_vaswani, progress)


DATASET = declare(Dataset("notes", "vaswani", _configs, _open))
