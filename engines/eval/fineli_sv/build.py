"""Writes ``katalog.csv``: Fineli's foods as a Swedish-speaking wholesaler's spreadsheet export would list
them, the way ../shared/data/products/fineli-wholesale was written from the Finnish names.

Run from the repository root: ``python -m engines.eval.fineli_sv.build [FINELI_DIR]`` (default
../shared/data/products/fineli). Columns, Swedish headers, ``;``-separated, UTF-8 without a byte-order
mark (the Finnish file has one: the reader must take both):

  Artikelnummer   ``SV`` + FOODID, zero-padded to five digits
  Benämning       the Swedish name (foodname_SV), written as a person types it: first letter upper, the rest
                  lower ("KYCKLING BRÖSTFILÉ UTAN SKINN" -> "Kyckling bröstfilé utan skinn")
  Varugrupp       the food-use class in Swedish (fuclass_SV via FUCLASS)
  Typ             ``livsmedel`` for FOODTYPE FOOD, ``maträtt`` for DISH

No Finnish or English names, no sizes, brands or allergens: Fineli has none of the latter, and a shop in
Sweden lists its goods in Swedish. Source: Fineli, the Finnish food composition database, THL (CC BY 4.0).
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATALOGUE = HERE / "katalog.csv"
HEADERS = ("Artikelnummer", "Benämning", "Varugrupp", "Typ")


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="iso-8859-1", newline="") as handle:
        return [row for row in csv.reader(handle, delimiter=";") if row][1:]


def as_typed(name: str) -> str:
    name = " ".join(name.split())
    return name[:1].upper() + name[1:].lower()


def catalogue_text(fineli: Path) -> str:
    names = {row[0]: row[1] for row in _rows(fineli / "foodname_SV.csv")}
    classes = {row[0]: row[1] for row in _rows(fineli / "fuclass_SV.csv")}
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(HEADERS)
    for row in _rows(fineli / "food.csv"):
        food_id, food_type, fuclass = row[0], row[2], row[7]
        writer.writerow([f"SV{int(food_id):05d}", as_typed(names[food_id]), classes.get(fuclass, ""),
                         "maträtt" if food_type == "DISH" else "livsmedel"])
    return out.getvalue()


def main(argv: list[str]) -> int:
    fineli = Path(argv[0]) if argv else HERE.parents[3] / "shared" / "data" / "products" / "fineli"
    if not (fineli / "foodname_SV.csv").is_file():
        print(f"{fineli}: no Fineli release here (foodname_SV.csv missing)", file=sys.stderr)
        return 2
    CATALOGUE.write_text(catalogue_text(fineli), encoding="utf-8")
    print(f"wrote {CATALOGUE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
