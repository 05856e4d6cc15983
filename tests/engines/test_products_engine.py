"""The products engine end to end: the Done-when checks, the three batches, bad input, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engines.products.catalogue import Catalogue
from engines.products.engine import ProductsEngine, collect_products
from engines.products.knowledge import KnowledgeMap

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "products"
NO_VECTORS = ("code", "lexical", "typo", "words", "kinds")


@pytest.fixture(scope="module")
def engine():
    e = ProductsEngine(FIXTURE)
    yield e
    e.close()


def ask(engine, text, limit=10):
    return engine.answer(text, limit=limit, sources=NO_VECTORS)


def test_laktoositon_maito_1_l_answers_lactose_free_milk_first_with_the_reading(engine):
    a = ask(engine, "laktoositon maito 1 l")
    first = a.hits[0]
    assert first.extras["label"] == "exact" and first.extras["kind"] == "milk"
    assert "lactose-free" in first.extras["claims"] and first.extras["quantity"] == "1 l"
    assert "read 'laktoositon' as lactose-free" in a.extras["understood"]["notes"]
    assert a.extras["path"] == "judged" and a.extras["flags"] == []


def test_oat_drink_without_soy_holds_nothing_with_soy_declared_traced_or_unknown(engine):
    a = ask(engine, "oat drink without soy", limit=40)
    assert a.hits and a.hits[0].extras["kind"] == "plant_drink"
    for hit in a.hits:
        assert "soy" not in hit.extras["allergens"] and "soy" not in hit.extras["traces"]
        assert hit.extras["allergen_data"], hit.title
        assert "no soy: none declared, no trace" in hit.extras["checks"]


@pytest.mark.parametrize("text", ["vodka", "dog food", "kombucha", "tupakka"])
def test_a_request_for_something_not_carried_says_not_sold(engine, text):
    a = ask(engine, text)
    assert "not_sold" in a.extras["flags"]
    assert all(h.extras["label"] in ("standin",) for h in a.hits)


def test_a_contradiction_is_not_sold_and_vegan_proteins_only_stand_in(engine):
    # no vegan product is whey: the soy proteins the vegan rule leaves are offered instead, never as whey
    a = ask(engine, "vegan whey protein")
    assert a.extras["flags"][:2] == ["not_sold", "only_standins"]
    assert a.hits and all(h.extras["label"] == "standin" and "vegan" in h.extras["claims"] for h in a.hits)
    # a vegan request without an animal word is the thing itself where the data says vegan
    plain = ask(engine, "vegan protein powder")
    assert "not_sold" not in plain.extras["flags"] and plain.hits[0].extras["label"] in ("exact", "variant")


def test_only_stand_ins_say_instead(engine):
    a = ask(engine, "canned tuna")
    assert a.extras["flags"][:2] == ["not_sold", "only_standins"]
    assert a.hits and {h.extras["label"] for h in a.hits} == {"standin"}


def test_three_batches_exact_then_recall_then_judge_and_the_later_ones_replace(engine):
    batches = list(engine.search("Latte senza lattosio", limit=5, sources=NO_VECTORS))
    assert [b.tiers[0].name for b in batches] == ["exact", "recall", "judge"]
    assert batches[0].hits and batches[0].hits[0].title.startswith("Latte senza lattosio")
    assert batches[1].replaces and batches[2].replaces
    answer = collect_products("Latte senza lattosio", batches)
    assert len(answer.hits) == len(batches[2].hits) <= 5


def test_a_code_said_outright_is_a_lookup_and_an_unknown_code_is_not_sold(engine):
    a = ask(engine, "8009310001679")
    assert [h.id for h in a.hits] == ["8009310001679"] and a.hits[0].extras["sources"] == {"code": 1}
    assert "vectors" not in a.extras["sources"]
    missing = ask(engine, "4006381333931")
    assert missing.hits == [] and "not_sold" in missing.extras["flags"]


@pytest.mark.parametrize("text", ["", "   ", "the and for", "x" * 2000, "vegan whey protein", "🥛🥛"])
def test_bad_input_answers_clearly_and_never_crashes(engine, text):
    a = ask(engine, text)
    json.dumps(a.to_json())
    assert a.extras["path"] in ("exact", "judged")
    if text.startswith("vegan"):
        assert "unsure" in a.extras["flags"]
        assert all("vegan" in h.extras["claims"] for h in a.hits)


def test_a_named_brand_and_pack_lift_matches_of_equal_label(engine):
    a = ask(engine, "Barilla pasta")
    assert a.hits[0].extras["brand"] == "Barilla" and a.hits[0].extras["label"] == "exact"


def test_vectors_run_for_real_inside_the_rules_on_a_small_catalogue(tmp_path, engine):
    small = [p for p in engine.products if p.kinds[0] in ("plant_drink", "milk", "coffee", "tea")]
    e = ProductsEngine(catalogue=Catalogue(small), knowledge=KnowledgeMap.load(), wait_for_index=True,
                       cache_dir=str(tmp_path))
    try:
        a = e.answer("something to pour on cereal without soy", limit=10)
        sources = a.extras["sources"]
        assert sources["vectors"]["status"] == "answered" and sources["vectors"]["count"] > 0
        assert all("soy" not in h.extras["allergens"] + h.extras["traces"] and h.extras["allergen_data"]
                   for h in a.hits)
    finally:
        e.close()


def run_cli(*args, env_extra=None):
    return subprocess.run([sys.executable, "-m", "olai_tui.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "OLAI_RECALL": "off", **(env_extra or {})})


def test_cli_search_products_json_prints_the_envelope():
    out = run_cli("search", "products", "laktoositon maito 1 l", "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["engine"] == "products" and answer["path"] == "judged"
    assert answer["understood"]["claims"] == ["lactose-free"] and answer["understood"]["pack"] == "1 l"
    hit = answer["hits"][0]
    assert {"label", "claims", "allergens", "traces", "checks", "sources"} <= set(hit)


def test_cli_bad_arguments_are_one_line_and_exit_2(tmp_path):
    missing = run_cli("search", "products", "milk", "--corpus", str(tmp_path / "nope"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such file" in missing.stderr
    tiers = run_cli("search", "products", "milk", "--tiers", "exact,magic")
    assert tiers.returncode == 2 and "unknown tier 'magic'" in tiers.stderr
    bad = tmp_path / "bad.tsv"
    bad.write_text("code\tproduct_name\n1\tMilk\n2\n", encoding="utf-8")
    partly = run_cli("search", "products", "milk", "--corpus", str(bad), "--json")
    assert partly.returncode == 0 and "bad.tsv:3" in partly.stderr and "Traceback" not in partly.stderr


def test_explain_keeps_each_sources_list_beside_the_fused_one(engine):
    why = engine.explain("kerrygld butter", sources=NO_VECTORS)
    assert why["understood"]["kinds"] == ["butter"] and why["corrections"] == {"kerrygld": "kerrygold"}
    assert why["sources"]["typo"] and why["fused"][0] in set().union(*map(set, why["sources"].values()))
