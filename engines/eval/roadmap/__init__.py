"""The roadmap: plain paraphrases and off-topic queries over a real project's roadmap read as a notebook.

Source: juspay/olai @ 15285368 : docs/roadmap.jsonl (../shared/data/notes/olai-roadmap.jsonl, 181 outline
nodes; no licence stated: evaluation only, never a shipped fixture). Splits: dev.jsonl here (written before
any tuning); the held-out paraphrases are kept outside this repository and scored with --queries FILE.
Loader and configurations: configs.py.
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.roadmap.configs import CONFIGS

    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from engines.eval.roadmap.configs import roadmap_suite

    return roadmap_suite(data / "notes" / "olai-roadmap.jsonl", queries, progress)


DATASET = declare(Dataset(
    "notes", "roadmap", _configs, _open, queries="a request file scored as the held-out split",
    heldout_hint="the roadmap's held-out set is kept outside this repository: pass it with --queries FILE"
                 " (one {\"query\", \"accept\"} or {\"query\", \"off_topic\"} object a line); its table is empty"))
