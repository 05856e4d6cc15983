"""Knobs (engines/knobs.py, issue 62): each engine's settings, their precedence (default < config.toml <
this corpus), adopt's atomic write, and the value in force reaching the code that reads it through the
one place an engine is opened."""

from __future__ import annotations

import json

import pytest

from engines import registry
from engines.errors import BadInput
from engines.knobs import CONFIG, CORPUS, DEFAULT, adopt, corpora_path, resolve
from engines.notes.knobs import KNOBS as NOTES
from olai_tui.cli import main


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "config" / "olai-tui").mkdir(parents=True)
    return tmp_path / "config" / "olai-tui" / "config.toml"


def test_each_default_is_the_constant_it_replaced_and_names_its_measurement():
    from engines.code.knobs import KNOBS as CODE
    from engines.code.lexical_tier import B, K1
    from engines.code.merge import STATIC_TREE_SHARE
    from engines.notes.fill import FUSION_K, LEG_WEIGHTS

    assert NOTES.by_name["fusion_k"].default == FUSION_K and NOTES.by_name["meaning_weight"].default == LEG_WEIGHTS["semantic"]
    assert (CODE.by_name["bm25_k1"].default, CODE.by_name["bm25_b"].default) == (K1, B)
    assert CODE.by_name["tree_meaning_share"].default == STATIC_TREE_SHARE
    from engines.products.engine import JUDGE_DEADLINE_S
    from engines.products.knobs import KNOBS as PRODUCTS
    from engines.products.recall import QUOTAS, RRF_K, STANDARD_WEIGHT

    assert (PRODUCTS.by_name["rrf_k"].default, PRODUCTS.by_name["standard_weight"].default) == (RRF_K, STANDARD_WEIGHT)
    assert PRODUCTS.by_name["vectors_quota"].default == QUOTAS["vectors"]
    assert PRODUCTS.by_name["judge_deadline_s"].default == JUDGE_DEADLINE_S and not PRODUCTS.by_name["judge_deadline_s"].scored
    from engines.products import judge, order

    assert [PRODUCTS.by_name[n].default for n in ("judge_pool", "recall_weight", "brand_lift", "pack_lift")] == \
        [order.JUDGE_POOL, order.RECALL_WEIGHT, order.BRAND_LIFT, order.PACK_LIFT]
    assert [PRODUCTS.by_name[n].default for n in ("named_lift", "qualifier_cost", "head_lift")] == \
        [judge.NAMED_LIFT, judge.QUALIFIER_COST, judge.HEAD_LIFT]
    for knob in [*NOTES, *CODE, *PRODUCTS]:
        assert knob.measured and knob.does
        assert knob.check(knob.default) == knob.default  # every default lies in its own range


def test_this_corpus_beats_config_toml_which_beats_the_default(config, tmp_path):
    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.mkdir(), other.mkdir()
    config.write_text("[notes.settings]\nfusion_k = 30\nmeaning_weight = 2.0\n")
    adopt(NOTES, mine, {"fusion_k": 20})
    found = resolve(NOTES, mine)
    assert (found.values["fusion_k"], found.sources["fusion_k"]) == (20, CORPUS)
    assert (found.values["meaning_weight"], found.sources["meaning_weight"]) == (2.0, CONFIG)
    assert (found.values["words_weight"], found.sources["words_weight"]) == (1.0, DEFAULT)
    elsewhere = resolve(NOTES, other)  # another corpus: config.toml's, not mine's
    assert (elsewhere.values["fusion_k"], elsewhere.sources["fusion_k"]) == (30, CONFIG)


def test_a_bad_value_is_named_in_one_line_and_the_value_below_it_is_in_force(config, tmp_path):
    config.write_text('[notes.settings]\nfusion_k = "sixty"\nfloor_shift = 0.5\nfuson_k = 3\n')
    found = resolve(NOTES, tmp_path)
    assert found.values["fusion_k"] == 60 and found.values["floor_shift"] == 0.0
    assert len(found.problems) == 3
    assert any("fusion_k = 'sixty': not a number" in p and "config.toml" in p for p in found.problems)
    assert any("floor_shift = 0.5: outside -0.1..0.1" in p for p in found.problems)
    assert any("fuson_k: notes has no such setting" in p for p in found.problems)


def test_adopt_replaces_the_corpus_settings_writes_json_whole_and_refuses_a_bad_value(config, tmp_path):
    adopt(NOTES, tmp_path, {"fusion_k": 20, "weak_guesses": 1})
    adopt(NOTES, tmp_path, {"fusion_k": 40})
    kept = json.loads(corpora_path().read_text())
    assert kept["notes"][str(tmp_path.resolve())]["settings"] == {"fusion_k": 40}
    with pytest.raises(BadInput, match="outside 5..120"):
        adopt(NOTES, tmp_path, {"fusion_k": 1000})
    assert json.loads(corpora_path().read_text()) == kept  # unchanged
    corpora_path().write_text("{not json")  # a damaged file is never written over
    with pytest.raises(BadInput, match="not written over"):
        adopt(NOTES, tmp_path, {"fusion_k": 40})
    assert corpora_path().read_text() == "{not json"


def test_settings_command_says_where_each_value_came_from(config, tmp_path, capsys):
    config.write_text("[notes.settings]\nmeaning_weight = 1.5\n")
    adopt(NOTES, tmp_path, {"fusion_k": 20})
    assert main(["settings", "notes", "--corpus", str(tmp_path), "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["settings"]}
    assert (rows["fusion_k"]["value"], rows["fusion_k"]["from"]) == (20, "this corpus")
    assert (rows["meaning_weight"]["value"], rows["meaning_weight"]["from"]) == (1.5, "config.toml")
    assert rows["words_weight"]["from"] == "default"
    assert main(["settings", "nosuch"]) == 2
    assert "unknown engine 'nosuch'" in capsys.readouterr().err


def test_the_corpus_settings_reach_the_code_that_reads_them_through_the_one_open(config, tmp_path, monkeypatch):
    """A knob read when the index is built (code's BM25 b): the corpus's value is in force before the
    engine is made, so its lexical scores move; another corpus keeps the default."""
    monkeypatch.setenv("OLAI_RECALL", "off")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "short.py").write_text("def limiter():\n    return 1\n")
    (tree / "long.py").write_text("def limiter_of_requests_with_a_long_body(a, b, c, d, e, f, g):\n"
                                  + "".join(f"    x{i} = a + b + c + d\n" for i in range(40)) + "    return limiter\n")

    def scores():
        engine = registry.open_engine("code", tree)
        try:
            return [(r.id, r.score) for r in engine.rank("lexical", "limiter", 10)]
        finally:
            engine.close()

    default = scores()
    from engines.code.knobs import KNOBS as CODE

    adopt(CODE, tree, {"bm25_b": 0.0})
    assert scores() != default  # no length normalisation: the long symbol's words count in full
    adopt(CODE, tree, {"bm25_b": 0.75})
    assert scores() == default


def test_a_products_corpus_setting_moves_its_fused_recall(config, monkeypatch):
    """products' RRF k over the recall sources, set for the demo catalogue: recall's order moves, and
    back at 60 it is the shipped order again (the engine opened through the registry each time)."""
    from engines.products.knobs import KNOBS as PRODUCTS

    monkeypatch.setenv("OLAI_RECALL", "off")

    def fused():
        engine = registry.open_engine("products", None)
        try:
            return [(r.id, round(r.score, 6)) for r in engine.rank("recall", "maito", 20)]
        finally:
            engine.close()

    shipped = fused()
    corpus = registry.spec("products").default_corpus()
    adopt(PRODUCTS, corpus, {"rrf_k": 5, "standard_weight": 0.5})
    assert fused() != shipped
    adopt(PRODUCTS, corpus, {"rrf_k": 60})
    assert fused() == shipped
