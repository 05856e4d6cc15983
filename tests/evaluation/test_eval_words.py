"""The words sets (issue 58): 40+ requests in three languages, about half not carried, every id one of its
catalogue's, and a stand-in called exact counted both ways."""

from __future__ import annotations

from types import SimpleNamespace

from engines.eval.fineli_sv.load import load_swedish_requests
from engines.eval.words.configs import DEV, standin_exact
from engines.locations import fixtures_dir
from engines.products.engine import ProductsEngine


def test_the_requests_are_many_in_three_languages_and_half_not_carried():
    requests = [r for name in DEV for r in load_swedish_requests(DEV[name])]
    assert len(requests) >= 40
    assert {r.lang for r in requests} == {"en", "fi", "sv"}
    assert 0.4 <= sum(r.not_sold for r in requests) / len(requests) <= 0.6
    assert all(r.not_sold == (not r.right) for r in requests)


def test_every_id_is_a_product_of_the_demo_catalogue():
    engine = ProductsEngine(fixtures_dir() / "products")
    try:
        assert all(i in engine.catalogue.by_id for r in load_swedish_requests(DEV["words"]) for i in r.right)
    finally:
        engine.close()


def test_a_standin_called_exact_is_counted_for_a_food_not_carried_and_a_wrong_first_row():
    not_carried = SimpleNamespace(not_sold=True, right=frozenset())
    carried = SimpleNamespace(not_sold=False, right=frozenset({"a"}))
    assert standin_exact(["x", "y"], not_carried, ["standin", "exact"])
    assert not standin_exact(["x"], not_carried, ["standin"])
    assert standin_exact(["x", "a"], carried, ["exact", "exact"])
    assert not standin_exact(["a", "x"], carried, ["exact", "exact"])  # a later exact row may be unlisted
