"""Icecat: 19,406 electronics and office products, 89 queries with graded judgements (0 .. 3).

Source: querqy/chorus @ 96edf8b (../shared/data/products/icecat), Icecat Open Content License (attribute
Icecat). Splits: ratings-dev.csv there; the held-out ratings in ../shared/heldout/products. Loader and
configurations: configs.py (smart_milvus runs only where milvus-lite is installed).
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.icecat.configs import CONFIGS

    return CONFIGS


def _open(data, heldout, progress, say, queries):
    from engines.eval.icecat.configs import icecat_suite

    return icecat_suite(data / "products" / "icecat", heldout / "products", progress, say)


def _unavailable() -> dict[str, str]:
    from engines.eval.icecat.configs import milvus_available

    why = milvus_available()
    return {"smart_milvus": why} if why else {}


def _extras(suite, tables, say) -> dict:
    from engines.eval.icecat.configs import icecat_extras

    return icecat_extras(suite, tables, say)


DATASET = declare(Dataset("products", "icecat", _configs, _open, unavailable=_unavailable, extras=_extras))
