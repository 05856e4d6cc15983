"""The `food` request set: requests written by hand over the default food catalogue (fixtures/products),
before any tuning, judged by kind and rule rather than by id.

Source: written here (requests.jsonl; words-dev.jsonl, the ``food_words`` set, all of it dev, issue 58;
fisv-dev.jsonl is the dev half of the food_fisv set, declared with fineli). Splits: by the request's text
(load.split_of). Loader: load.py; configurations: configs.py (smart_http runs by default only where an
HTTP judge is configured).
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.food.configs import CONFIGS, HTTP

    return tuple(CONFIGS) + (HTTP,)


def _defaults() -> list[str]:
    from engines.eval.food.configs import CONFIGS, HTTP, http_judge_configured

    return list(CONFIGS) + ([HTTP] if http_judge_configured() else [])


def _opener(name: str):
    def open_(data, heldout, progress, say, queries):
        from engines.eval.food.configs import food_suite

        return food_suite(progress, name)

    return open_


DATASET = declare(Dataset("products", "food", _configs, _opener("food"), default_configs=_defaults))
# words that narrow a kind, scored by the food set's kind-level rule; every request dev (issue 58)
WORDS_DATASET = declare(Dataset("products", "food_words", _configs, _opener("food_words"), default_configs=_defaults))
