"""The Icecat open catalogue (JSON arrays, one per zip) -> products.

Each object: ``id``, ``title``, ``name`` (the maker's part number), ``ean`` (a list), ``supplier``
(the brand), ``short_description`` and ``attr_t_*`` / ``attr_n_*`` attributes. Electronics carry no
allergen data, so ``allergen_data`` stays False: an "avoid" request never answers one of them.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from engines.problems import Problem
from engines.products.product import Product, parse_quantity


def read_icecat(path: Path) -> tuple[list[Product], list[Problem]]:
    products: list[Product] = []
    problems: list[Problem] = []
    for member, items in _arrays(path):
        where_file = f"{path}:{member}" if member else str(path)
        if not isinstance(items, list):
            problems.append(Problem(where_file, "not a JSON array of products"))
            continue
        for i, item in enumerate(items):
            where = f"{where_file}#{i}"
            product = product_from_item(item, where)
            if isinstance(product, str):
                problems.append(Problem(where, product))
            else:
                products.append(product)
    return products, problems


def _arrays(path: Path):
    if path.name.lower().endswith(".zip"):
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                if member.lower().endswith(".json"):
                    try:
                        yield member, json.loads(archive.read(member))
                    except json.JSONDecodeError as exc:
                        yield member, f"bad JSON: {exc}"
        return
    with open(path, encoding="utf-8") as handle:
        yield "", json.load(handle)


def product_from_item(item, where: str) -> Product | str:
    if not isinstance(item, dict):
        return "not a JSON object"
    pid = str(item.get("id") or "").strip()
    title = str(item.get("title") or "").strip()
    if not pid:
        return "product has no id"
    if not title and not item.get("name"):
        return f"product {pid} has no title or name"
    eans = item.get("ean") or []
    eans = [eans] if isinstance(eans, str) else [str(e) for e in eans if e]
    attributes = {k[7:].replace("_", " "): str(v) for k, v in item.items()
                  if isinstance(k, str) and k.startswith(("attr_t_", "attr_n_")) and v not in (None, "")}
    if item.get("price") not in (None, ""):
        attributes["price"] = str(item["price"])
    part = str(item.get("name") or "").strip()
    return Product(
        id=pid, names={"en": title or part}, brand=str(item.get("supplier") or "").strip(),
        quantity=parse_quantity(attributes.get("quantity per pack", "")), codes=tuple([*eans, part] if part else eans),
        description=str(item.get("short_description") or "").strip(), attributes=attributes, source=where,
        categories=(), claims={}, allergen_data=False,
    )
