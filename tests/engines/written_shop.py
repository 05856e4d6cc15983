"""A products engine over a small catalogue written in the test, asked without the vectors source (no
model is loaded): what every test of a products reading or judging rule opens."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from engines.products.engine import ProductsEngine

NO_VECTORS = ("code", "lexical", "typo", "words", "standard", "translated", "kinds")


@contextmanager
def written_shop(tmp_path_factory, catalogue: str, folder: str = "shop") -> Iterator[ProductsEngine]:
    path = tmp_path_factory.mktemp(folder) / "shop.csv"
    path.write_text(catalogue, encoding="utf-8")
    engine = ProductsEngine(path)
    try:
        yield engine
    finally:
        engine.close()
