"""Open Food Facts exports (TAB-separated, header row, no quoting) -> products.

Read with ``csv`` and ``quoting=csv.QUOTE_NONE``: OFF text holds stray quotes that a quoting reader
would run across lines. A line whose field count differs from the header's is skipped and named.
Allergens come from the maker's tags and, where tags are missing, from the ingredients list itself
(the words in ``vocabulary.INGREDIENT_WORDS``); "may contain" text in the ingredients is a trace.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

from engines.lexical import fold
from engines.problems import Problem
from engines.products.product import Product, parse_quantity, split_tags
from engines.products.vocabulary import (ALLERGEN_TAGS, CLAIM_NAME_PHRASES, CLAIM_TAG_PREFIXES, CLAIM_TAGS,
                                         INGREDIENT_WORDS, NOT_ALLERGEN_PHRASES, with_implied)

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))

MAY_CONTAIN = re.compile(r"may contain|can contain|traces? of|puo contenere|peut contenir|kann spuren|"
                         r"voi sisaltaa|kan innehalla|puo' contenere", re.I)
_WORDS = re.compile(r"[a-z0-9]+")


def read_off(path: Path) -> tuple[list[Product], list[Problem]]:
    products: list[Product] = []
    problems: list[Problem] = []
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if not header or "code" not in header:
            raise ValueError("not an Open Food Facts TSV (no header with a 'code' column)")
        column = {name: i for i, name in enumerate(header)}
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if len(row) != len(header):
                problems.append(Problem(where, f"{len(row)} fields where the header has {len(header)}"))
                continue
            product = product_from_row(lambda key: row[column[key]].strip() if key in column else "", where)
            if isinstance(product, str):
                problems.append(Problem(where, product))
            else:
                products.append(product)
    return products, problems


def product_from_row(get, where: str) -> Product | str:
    """A product, or the reason the row is not one."""
    code = get("code")
    name = get("product_name") or get("generic_name") or get("abbreviated_product_name")
    if not name:
        return f"product {code or '(no code)'} has no name"
    if not code:
        return f"product {name!r} has no code"
    categories = tuple(split_tags(get("categories_tags")))
    labels = tuple(split_tags(get("labels_tags")))
    ingredients = get("ingredients_text")
    declared, traced = allergens_of(get("allergens_tags") or get("allergens"), get("traces_tags") or get("traces"),
                                    ingredients)
    quantity_text = get("quantity")
    names = {get("lang") or "": name}
    generic = get("generic_name")
    return Product(
        id=code, names=names, brand=split_tags(get("brands"))[0] if get("brands") else "",
        quantity=parse_quantity(quantity_text) or parse_quantity(name), quantity_text=quantity_text,
        categories=categories, claims=claims_of(labels, categories, name),
        allergens=frozenset(declared), traces=frozenset(traced - declared),
        allergen_data=bool(declared or traced or ingredients), codes=(code,),
        description=generic if generic and generic != name else "", ingredients=ingredients,
        attributes={k: get(k) for k in ("countries_tags", "labels_tags") if get(k)}, source=where,
    )


def claims_of(labels: tuple[str, ...], categories: tuple[str, ...], name: str) -> dict[str, str]:
    found: dict[str, str] = {}
    tags = labels + categories
    for claim, wanted in CLAIM_TAGS.items():
        tag = next((t for t in tags if t in wanted), None)
        if tag is None:
            tag = next((t for t in labels if t.startswith(CLAIM_TAG_PREFIXES.get(claim, ("\0",)))), None)
        if tag is not None:
            found[claim] = f"label {tag}" if tag in labels else f"category {tag}"
    folded = " " + " ".join(_WORDS.findall(fold(name))) + " "
    for claim, phrases in CLAIM_NAME_PHRASES.items():
        if claim in found:
            continue
        phrase = next((p for p in phrases if f" {' '.join(_WORDS.findall(p))} " in folded), None)
        if phrase is not None:
            found[claim] = f"the name says '{phrase}'"
    return with_implied(found)


def allergens_of(tags: str, traces: str, ingredients: str) -> tuple[set[str], set[str]]:
    declared = {a for a in (_allergen(t) for t in split_tags(tags)) if a}
    traced = {a for a in (_allergen(t) for t in split_tags(traces)) if a}
    if ingredients:
        text = fold(ingredients)
        cut = MAY_CONTAIN.search(text)
        body, tail = (text[: cut.start()], text[cut.start():]) if cut else (text, "")
        declared |= words_allergens(body)
        traced |= words_allergens(tail)
    return declared, traced


def words_allergens(text: str) -> set[str]:
    for phrase in NOT_ALLERGEN_PHRASES:
        text = text.replace(phrase, " ")
    words = set(_WORDS.findall(text))
    padded = " " + " ".join(_WORDS.findall(text)) + " "
    found = set()
    for allergen, spellings in INGREDIENT_WORDS.items():
        if any((w in words) if " " not in w else (f" {w} " in padded) for w in spellings):
            found.add(allergen)
    return found


def _allergen(tag: str) -> str | None:
    tag = fold(tag)
    if tag in ALLERGEN_TAGS:
        return ALLERGEN_TAGS[tag]
    bare = tag.split(":", 1)[-1].replace("-", " ")
    hits = words_allergens(bare)
    return next(iter(sorted(hits)), None)
