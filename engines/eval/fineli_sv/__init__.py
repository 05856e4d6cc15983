"""``fineli_sv``: requests a buyer in Sweden types, over a Swedish catalogue built from Fineli's Swedish names.

Source: Fineli release 16 (THL), CC BY 4.0 — "Fineli, the Finnish food composition database, THL".
katalog.csv is written from it by build.py (Swedish headers, names as typed, no Finnish or English
names). dev.jsonl: Sweden-Swedish requests (compounds, the animal and the cut, regional words) with the
Finnish and English requests for the same foods, and foods the catalogue does not carry (``not_sold``),
written before any tuning of the engine for them. The held-out requests are kept elsewhere
(--queries FILE). Loader: load.py; configurations: configs.py (the food set's, judged by id).
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.food.configs import CONFIGS

    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from engines.eval.fineli_sv.configs import swedish_suite

    return swedish_suite(progress, queries)


DATASET = declare(Dataset("products", "fineli_sv", _configs, _open,
                          queries="a request file of the same shape, scored as the held-out split"))
