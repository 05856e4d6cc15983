"""The fineli_sv dataset: its catalogue is what build.py writes from Fineli, its requests load, a bad line
is named, and "not sold" is scored both ways (said when due, never for a food the catalogue carries)."""

from __future__ import annotations

import json

import pytest

from engines.eval.fineli_sv import build
from engines.eval.fineli_sv.configs import score
from engines.eval.fineli_sv.load import CATALOGUE, SwedishSetError, load_swedish_requests
from engines.locations import shared_data
from engines.products.product import Product


def test_the_catalogue_is_what_build_writes_from_fineli():
    fineli = shared_data() / "products" / "fineli"
    if not (fineli / "foodname_SV.csv").is_file():
        pytest.skip("Fineli is not beside this checkout")
    assert build.catalogue_text(fineli) == CATALOGUE.read_text(encoding="utf-8")
    assert build.as_typed("KYCKLING BRÖSTFILÉ  UTAN SKINN") == "Kyckling bröstfilé utan skinn"


def test_the_requests_load_per_language_and_name_a_bad_line(tmp_path):
    requests = load_swedish_requests()
    assert {r.lang for r in requests} == {"sv", "fi", "en"}
    ids = {line.split(";")[0] for line in CATALOGUE.read_text(encoding="utf-8").splitlines()[1:]}
    assert all(r.right <= ids for r in requests)
    assert all(r.not_sold == (not r.right) for r in requests)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "smör", "lang": "sv", "right": []}) + "\n", encoding="utf-8")
    with pytest.raises(SwedishSetError, match=r"bad\.jsonl:1"):
        load_swedish_requests(bad)


def test_not_sold_is_scored_when_due_and_counted_false_otherwise():
    from engines.eval.fineli_sv.load import SwedishRequest

    butter = Product(id="SV00500", names={"sv": "Smör"})
    carried = SwedishRequest("smör", "sv", frozenset({"SV00500"}))
    absent = SwedishRequest("messmör", "sv", frozenset(), not_sold=True)
    said = score([butter], absent, ["standin"], ["not_sold"])
    assert said["right_first"] == 1.0 and said["not_sold_right"] == 1.0 and said["not_sold_ok_sv"] == 1.0
    false = score([butter], carried, ["standin"], ["not_sold"])
    assert false["right_first"] == 0.0 and false["false_not_sold"] == 1.0 and false["not_sold_ok_sv"] == 0.0
    right = score([butter], carried, ["exact"], [])
    assert right["right_first"] == 1.0 and right["false_not_sold"] == 0.0 and right["not_sold_right"] is None
