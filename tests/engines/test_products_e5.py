"""Cross-language recall for products with multilingual-e5-small: an English request over the Finnish-named
wholesale file (shared/data/products/fineli-wholesale/tuotteet.csv, Fineli's foods as a wholesaler's export).

Kept cheap: the catalogue is the file's 260 drinks (every row whose name says juoma / dryck / drink, the
oat drinks' real competitors: soy and rice drinks, long drinks, juices, drinking yoghurts), written as the
same CSV; e5 embeds them once for the module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engines.embed import choose
from engines.embed.models import E5
from engines.locations import shared_data
from engines.products.engine import ProductsEngine

SOURCE = shared_data() / "products" / "fineli-wholesale" / "tuotteet.csv"
DRINK = re.compile(r"juoma|dryck|drink", re.I)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    if not SOURCE.is_file():
        pytest.fail(f"{SOURCE} is missing: the shared evaluation data sits beside the checkout")
    lines = SOURCE.read_text(encoding="utf-8-sig").splitlines()
    drinks = [lines[0]] + [line for line in lines[1:] if DRINK.search(line)]
    corpus = tmp_path_factory.mktemp("fineli-drinks") / "tuotteet.csv"
    corpus.write_text("\n".join(drinks) + "\n", encoding="utf-8")
    path, why = choose.e5_path()
    assert path is not None, why
    from engines.embed.llama import LlamaEmbedder

    e = ProductsEngine(corpus, embedder=LlamaEmbedder(path, spec=E5, n_threads=2),
                       cache_dir=str(tmp_path_factory.mktemp("vectors")), wait_for_index=True)
    assert len(e.products) == len(drinks) - 1 >= 250
    yield e
    e.close()


def _titles(engine, ranked) -> list[str]:
    by_id = {p.id: p for p in engine.products}
    return [by_id[r.id].name for r in ranked]


def test_oat_drink_reaches_a_kaurajuoma_row_through_the_vectors_alone(engine):
    top = _titles(engine, engine.rank("knn", "oat drink", 3))
    assert any(t.startswith("KAURAJUOMA") for t in top), top


def test_oat_drink_with_only_the_recall_tier(engine):
    answer = engine.collect("oat drink", engine.search("oat drink", limit=3, tiers=("recall",)))
    assert any(h.title.startswith("KAURAJUOMA") for h in answer.hits[:3]), [h.title for h in answer.hits]
    assert f"meaning by {E5.name}" in engine.notices()
