"""Request sets judged by product id: `fineli` over the wholesale file, `food_fisv` over the demo catalogue.

Source: Fineli release 16 (THL), CC BY 4.0 — "Fineli, the Finnish food composition database, THL" — written
as a wholesaler's export (../shared/data/products/fineli-wholesale/tuotteet.csv); the demo catalogue is
fixtures/products. Splits: dev.jsonl here and ../food/fisv-dev.jsonl; the held-out buyer requests are in
../shared/heldout/products or kept elsewhere (--queries FILE). Loader: load.py; configurations: configs.py
(the food set's, judged by id).
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:  # the food set's configurations, judged by product id
    from engines.eval.food.configs import CONFIGS

    return CONFIGS


def _opener(name: str):
    def open_(data, heldout, progress, say, queries):
        from engines.eval.fineli.configs import by_ids_suite

        return by_ids_suite(name, data / "products", heldout / "products", progress, queries)

    return open_


DATASETS = tuple(declare(Dataset("products", name, _configs, _opener(name),
                                 queries="a request file scored as the held-out split"))
                 for name in ("fineli", "food_fisv"))
