"""The `food` request set: requests written by hand over the default food catalogue (fixtures/products),
before any tuning, judged by kind and rule rather than by id.

Source: written here (requests.jsonl; fisv-dev.jsonl is the dev half of the food_fisv set, declared with
fineli). Splits: by the request's text (load.split_of). Loader: load.py; configurations: configs.py
(smart_http runs by default only where an HTTP judge is configured).
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.food.configs import CONFIGS, HTTP

    return tuple(CONFIGS) + (HTTP,)


def _defaults() -> list[str]:
    from engines.eval.food.configs import CONFIGS, HTTP, http_judge_configured

    return list(CONFIGS) + ([HTTP] if http_judge_configured() else [])


def _open(data, heldout, progress, say, queries):
    from engines.eval.food.configs import food_suite

    return food_suite(progress)


DATASET = declare(Dataset("products", "food", _configs, _open, default_configs=_defaults))
