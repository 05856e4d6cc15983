"""`olai-tui eval products --dataset icecat` end to end on a tiny slice written in Icecat's own formats.

Real files (a products zip, ratings-dev.csv, the held-out ratings), the real engine and embedder, no
Milvus: the figures of a ranking whose order is plain from the data are checked by hand.
"""

from __future__ import annotations

import json
import math
import zipfile

import pytest

from engines.eval.icecat.configs import RatingsError, icecat_metrics, read_ratings
from olai_tui.errors import UsageError
from olai_tui.evaluate import evaluate

PRODUCTS = [
    {"id": "1", "title": "JBL Flip Bluetooth Speaker", "name": "FLIP5", "ean": ["6925281974571"], "supplier": "JBL",
     "price": 99, "short_description": "bluetooth speaker, bluetooth speaker", "attr_t_colour": "black"},
    {"id": "2", "title": "Sony SRS Bluetooth Speaker", "name": "SRSXB13", "ean": [], "supplier": "Sony"},
    {"id": "3", "title": "Logitech M185 Wireless Mouse", "name": "910-002238", "supplier": "Logitech",
     "short_description": "compact wireless mouse"},
    {"id": "4", "title": "Logitech K120 Keyboard", "name": "920-002479", "supplier": "Logitech",
     "short_description": "full size keyboard"},
    {"id": "6", "title": "Anker Soundcore Bluetooth Headphones", "name": "A3025", "supplier": "Anker"},
    {"id": "7", "title": "HP X500 Wired Mouse", "name": "E5E76AA", "supplier": "HP", "short_description": "optical mouse"},
    {"id": "8", "title": "Samsung Galaxy Tab A", "name": "SM-T510", "supplier": "Samsung"},
]
DEV = """query,docid,rating
bluetooth speaker,1,3
bluetooth speaker,2,0
bluetooth speaker,6,2
bluetooth speaker,4,0
tablet stand,4,0
tablet stand,8,2
"""
HELDOUT = """query,docid,rating
wireless mouse,3,3
wireless mouse,7,2
wireless mouse,4,0
"""


@pytest.fixture
def icecat_slice(tmp_path, monkeypatch):
    data = tmp_path / "data"
    folder = data / "products" / "icecat"
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / "products_1.json.zip", "w") as archive:
        archive.writestr("products_1.json", json.dumps(PRODUCTS))
    (folder / "ratings-dev.csv").write_text(DEV)
    held = tmp_path / "heldout" / "products"
    held.mkdir(parents=True)
    (held / "icecat-ratings-heldout.csv").write_text(HELDOUT)
    monkeypatch.setenv("OLAI_SHARED_DATA", str(data))
    return folder


def test_icecat_eval_end_to_end_on_a_tiny_slice(icecat_slice, capsys):
    assert evaluate("products", "icecat", "bm25,knn,hybrid_rrf,recall,smart", "both", True, True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dataset"] == "icecat" and out["depth"] == 100
    assert set(out["configs"]) == {"bm25", "knn", "hybrid_rrf", "recall", "smart"}
    by_query = {r["query"]: r for r in out["requests"]}
    assert {q: r["split"] for q, r in by_query.items()} == {
        "bluetooth speaker": "dev", "tablet stand": "dev", "wireless mouse": "heldout"}

    # bm25: both words thrice in product 1, once in 2, one of them in 6; nothing else holds either
    speaker = by_query["bluetooth speaker"]["configs"]["bm25"]
    assert speaker["top"] == ["1", "2", "6"]
    assert speaker["right_first"] == 1.0 and speaker["in_top3"] == 1.0 and speaker["recall"] == 1.0
    # DCG 3 + 0 + 2/log2(4) = 4; ideal 3 + 2/log2(3)
    assert speaker["ndcg@10"] == pytest.approx(4 / (3 + 2 / math.log2(3)), abs=1e-4)
    # nothing rated 3: no figure is defined for it, and it is left out of every mean
    tablet = by_query["tablet stand"]["configs"]["bm25"]
    assert tablet["right_first"] is None and tablet["ndcg@10"] is None and tablet["recall"] is None
    dev = out["configs"]["bm25"]["metrics"]["dev"]
    assert dev["requests"] == 2 and dev["right_first"] == 1.0
    assert dev["ndcg@10"] == pytest.approx(4 / (3 + 2 / math.log2(3)), abs=1e-4)
    mouse = by_query["wireless mouse"]["configs"]["bm25"]
    assert mouse["top"][:2] == ["3", "7"] and mouse["ndcg@10"] == pytest.approx(1.0)
    for name, body in out["configs"].items():
        for split, m in body["metrics"].items():
            assert all(0.0 <= m[k] <= 1.0 for k in ("right_first", "in_top3", "ndcg@10", "recall")), (name, split)
            assert m["p50_ms"] >= 0 and m["p90_ms"] >= m["p50_ms"]

    # the table: a row per configuration, dev and held out side by side
    assert evaluate("products", "icecat", "bm25,smart", "both", False, False) == 0
    table = capsys.readouterr().out
    assert "| config | right_first dev | right_first heldout | in_top3 dev |" in table
    assert "| bm25 | 1.000 | 1.000 |" in table and "| smart |" in table


def test_icecat_bad_input_names_file_and_line(icecat_slice):
    (icecat_slice / "ratings-dev.csv").write_text(DEV + "usb cable,5,seven\n")
    with pytest.raises(UsageError, match=r"ratings-dev.csv:8: malformed"):
        evaluate("products", "icecat", "bm25", "dev", True, False)
    with pytest.raises(UsageError, match=r"unknown configuration 'bm26'.*smart_milvus"):
        evaluate("products", "icecat", "bm26", "dev", True, False)


def test_read_ratings_and_the_graded_figures(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text('query,docid,rating\n"usb cable, 1m",5,3\nusb cable,6,1\n')
    assert read_ratings(path) == {"usb cable, 1m": {"5": 3.0}, "usb cable": {"6": 1.0}}
    path.write_text("q,d,r\n")
    with pytest.raises(RatingsError, match="r.csv:1"):
        read_ratings(path)
    # a 3 at rank 2 of 3 rated-3 products, a 1 first
    m = icecat_metrics(["b", "a", "x"], {"a": 3, "b": 1, "c": 3, "d": 3})
    assert m["right_first"] == 0.0 and m["in_top3"] == 1.0 and m["recall"] == pytest.approx(1 / 3)
    ideal = 3 + 3 / math.log2(3) + 3 / 2 + 1 / math.log2(5)
    assert m["ndcg@10"] == pytest.approx((1 + 3 / math.log2(3)) / ideal)


def test_smart_milvus_is_skipped_with_one_line_where_milvus_is_missing(icecat_slice, capsys, monkeypatch):
    import engines.eval.icecat.configs as icecat

    monkeypatch.setattr(icecat, "milvus_available", lambda: "pymilvus not installed (pip install -e '.[milvus]')")
    assert evaluate("products", "icecat", "bm25,smart_milvus", "dev", False, False) == 0
    captured = capsys.readouterr()
    assert "eval: smart_milvus skipped: pymilvus not installed" in captured.err
    assert "| bm25 |" in captured.out and "smart_milvus |" not in captured.out


def test_the_baselines_are_a_standard_setup_without_rules_or_judge(icecat_slice):
    from engines.eval.icecat.configs import IcecatConfigs, standard_bm25
    from engines.fusion import rrf

    setup = IcecatConfigs(icecat_slice)
    try:
        engine = setup.engine()
        # bm25s's analyzer: "the" is a stopword, "speakers" meets "Speaker" by its Snowball stem
        ids = [engine.products[i].id for i in standard_bm25(engine)("the speakers")]
        assert ids == ["1", "2"]
        f = setup.factories()
        bm25, knn, hybrid = f["bm25"](), f["knn"](), f["hybrid_rrf"]()
        assert bm25("the speakers") == ["1", "2"]
        assert len(knn("speakers")) == len(PRODUCTS)  # the vectors alone rank the whole catalogue
        fused = [d for d, _, _ in rrf({"bm25": bm25("wireless mouse"), "knn": knn("wireless mouse")}, k=60)]
        assert hybrid("wireless mouse") == fused and hybrid("wireless mouse")[0] == "3"
    finally:
        setup.close()
