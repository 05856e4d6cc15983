"""Hard rules from product data: claims carried, nothing forbidden declared or traced, unknown is unsafe.

The test the issue asks for: over every request of the `food` set (both splits: this asserts
safety, it tunes nothing), no answer ever holds a product that breaks a claim or avoid-rule the
words stated, at any rank, on any tier.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engines.eval.food.load import load_food_requests
from engines.products.catalogue import Product
from engines.products.engine import ProductsEngine
from engines.products.rules import NATURE, judge_rules
from engines.products.vocabulary import ALLERGENS, CLAIMS

ROOT = Path(__file__).resolve().parents[2]
NO_VECTORS = ("code", "lexical", "typo", "words", "kinds")  # vectors obey the same mask: test_products_engine


@pytest.fixture(scope="module")
def engine():
    return ProductsEngine(ROOT / "fixtures" / "products")


def product(**kw) -> Product:
    base = dict(id="1", names={"en": "Oat drink"}, kinds=("plant_drink",), allergen_data=True)
    base.update(kw)
    return Product(**base)


def test_a_declared_or_traced_allergen_or_no_data_breaks_an_avoid_rule(engine):
    request = engine.understand("oat drink without soy")
    km = engine.knowledge
    assert judge_rules(product(), request, km).ok
    assert judge_rules(product(allergens=frozenset({"soy"})), request, km).broken == "declares soy"
    assert judge_rules(product(traces=frozenset({"soy"})), request, km).broken == "may contain soy"
    assert "no allergen data" in judge_rules(product(allergen_data=False), request, km).broken


def test_a_whole_fresh_vegetable_is_free_of_what_it_is_not_by_its_nature(engine):
    km = engine.knowledge
    carrot = product(names={"en": "Carrots"}, kinds=("fresh_vegetables",), allergen_data=False, fresh=True)
    verdict = judge_rules(carrot, engine.understand("vegetables without soy"), km)
    assert verdict.ok and verdict.checks == [f"no soy: {NATURE}"]
    processed = product(names={"en": "Carrot salad"}, kinds=("fresh_vegetables",), allergen_data=False)
    assert not judge_rules(processed, engine.understand("vegetables without soy"), km).ok


def test_claims_come_from_data_and_vegan_also_means_no_animal_allergens(engine):
    km = engine.knowledge
    vegan = engine.understand("vegan cookies")
    assert not judge_rules(product(), vegan, km).ok
    labelled = product(claims={"vegan": "label en:vegan"})
    assert judge_rules(labelled, vegan, km).checks == ["vegan: label en:vegan"]
    with_milk = product(claims={"vegan": "label en:vegan"}, allergens=frozenset({"milk"}))
    assert "declares milk" in judge_rules(with_milk, vegan, km).broken


def test_the_precomputed_masks_agree_with_the_rules_product_by_product(engine):
    for text in ["vegan jam", "oat drink without soy", "gluten-free pasta", "pähkinätön suklaa", "luomu maito",
                 "crackers utan gluten", "vegetarian burger", "laktoositon voi"]:
        request = engine.understand(text)
        mask = engine.index.masks.allowed(request)
        by_rules = np.array([judge_rules(p, request, engine.knowledge).ok for p in engine.products])
        assert (mask == by_rules).all(), text


def breaks(product_row: dict, claims: tuple[str, ...], avoid: tuple[str, ...]) -> str | None:
    carried = set(product_row["claims"])
    for claim in claims:
        if CLAIMS[claim] not in carried:
            return f"lacks {claim}"
    for allergen in avoid:
        name = ALLERGENS[allergen]
        if name in product_row["allergens"] or name in product_row["traces"]:
            return f"holds {allergen}"
        if not product_row["allergen_data"] and not any(c.endswith(NATURE) for c in product_row["checks"]):
            return f"unknown {allergen}"
    return None


def test_no_answer_ever_holds_a_product_that_breaks_a_stated_rule_over_the_whole_food_set(engine):
    requests = load_food_requests("both")
    assert len(requests) >= 150
    checked = 0
    for food in requests:
        request = engine.understand(food.text)
        for batch in engine.search(food.text, limit=20, sources=NO_VECTORS):
            for hit in batch.hits:
                row = hit.to_json()
                # the rules the words stated, as the engine read them, and as the set's author wrote them
                broken = breaks(row, request.claims, tuple(request.avoid)) or breaks(row, food.claims, food.avoid)
                assert broken is None, f"{food.text!r}: {hit.title} {broken}"
                checked += 1
    assert checked > 1000
