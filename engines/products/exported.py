"""A wholesaler's own catalogue (CSV/TSV, spreadsheet, JSON Lines, a database table) -> products.

``tables.py`` reads the rows, ``columns.py`` says which column is which; here each row becomes a
Product. Allergen and "may contain" columns in Finnish, Swedish or English map to the EU's 14 (the
words in ``allergen_words.py``); an empty allergen cell leaves the allergen data unknown, and
unknown is never safe: an "avoid" request does not answer such a product. A cell that says there are
none ("ei", "inga", "none", "-") is known and empty.
"""

from __future__ import annotations

from pathlib import Path

from engines.lexical import fold
from engines.products.allergen_words import MAY_CONTAIN, NONE_WORDS, UNKNOWN_WORDS, allergens_in, claims_in
from engines.products.columns import (Mapping, MappingError, Overrides, guess, overrides_for, overrides_from_config,
                                      pick_header)
from engines.products.off import claims_of
from engines.products.vocabulary import with_implied
from engines.problems import Problem
from engines.products.product import Product, parse_quantity
from engines.products.tables import Reading, Table, TableError, read_json_lines, read_sheet, read_text_table

TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".tab")
SHEET_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods")
LINES_SUFFIXES = (".jsonl", ".ndjson")


def read_exported(path: Path, overrides: Overrides | None = None) -> tuple[list[Product], list[Problem]]:
    """One exported file; raises TableError (the one-line cause) when no row can be read at all."""
    products, problems, _ = read_exported_with_report(path, overrides)
    return products, problems


def read_exported_with_report(path: Path, overrides: Overrides | None = None):
    """(products, problems, Reading): the products and how the file was read."""
    overrides = overrides if overrides is not None else overrides_for(path)
    table = read_table(path, overrides)
    products, problems, reading = products_from_table(table, overrides)
    if overrides.problem:
        problems.insert(0, Problem(str(path), overrides.problem))
    return products, problems, reading


def read_database_table(url: str, read_database):
    """(products, problems, Reading) for a database's rows, mapped like any export's columns."""
    overrides = overrides_from_config()

    def code_column(header: list[str]) -> str | None:
        try:
            mapping = guess(header, url, overrides)
        except MappingError:
            return None
        index = mapping.columns.get("code")
        return header[index] if index is not None else None

    table = read_database(url, order_by=code_column)
    products, problems, reading = products_from_table(table, overrides)
    if overrides.problem:
        problems.insert(0, Problem(url, overrides.problem))
    return products, problems, reading


def read_table(path: Path, overrides: Overrides) -> Table:
    name = path.name.lower()
    if name.endswith(SHEET_SUFFIXES):
        return read_sheet(path, pick_header)
    if name.endswith(LINES_SUFFIXES):
        return read_json_lines(path)
    return read_text_table(path, overrides.delimiter or None, overrides.encoding or None, pick_header)


def products_from_table(table: Table, overrides: Overrides | None = None):
    """(products, problems, Reading) for a table's rows."""
    from engines.products.database import rows_hash

    try:
        mapping = guess(table.header, table.where, overrides)
    except MappingError as exc:
        raise TableError(str(exc).split(": ", 1)[1]) from None  # the catalogue names the file
    products: list[Product] = []
    problems = list(table.problems)
    for ordinal, (line, cells) in enumerate(table.rows, 1):
        where = f"{table.where}:{line}"
        product = product_from_cells(cells, mapping, where, ordinal)
        if isinstance(product, str):
            problems.append(Problem(where, product))
        else:
            products.append(product)
    reading = Reading(table.where, table.how, mapping.describe(), mapping.language, len(products),
                      mapping.overridden_by, rows_hash(table))
    return products, problems, reading


def product_from_cells(cells: list[str], mapping: Mapping, where: str, ordinal: int) -> Product | str:
    """A product, or the reason the row is not one."""

    def get(field_: str) -> str:
        i = mapping.columns.get(field_)
        return cells[i].strip() if i is not None and i < len(cells) else ""

    names = {lang: cells[i].strip() for lang, i in mapping.names.items() if i < len(cells) and cells[i].strip()}
    code = get("code")
    if not names.get(mapping.language):
        return f"product {code or f'row {ordinal}'} has no name"
    name = names[mapping.language]
    allergen_text, trace_text, ingredients = get("allergens"), get("traces"), get("ingredients")
    declared, declared_known = _allergen_cell(allergen_text)
    traced, traced_known = _allergen_cell(trace_text)
    if ingredients:
        body, tail = _split_may_contain(ingredients)
        declared |= allergens_in(body)
        traced |= allergens_in(tail)
    category = get("category")
    labels = get("labels")
    claims = claims_of((), (), " ".join(names.values()))
    for claim, evidence in claims_in(labels).items():
        claims.setdefault(claim, evidence)
    with_implied(claims)  # again: a label's vegan or unsalted is read after the name's
    size = get("size")
    used = set(mapping.columns.values()) | set(mapping.names.values())
    attributes = {h: cells[i].strip() for i, h in enumerate(mapping.header)
                  if i not in used and h and i < len(cells) and cells[i].strip()}
    if labels:
        attributes["labels"] = labels
    return Product(
        id=code or f"row {ordinal}", names=names, brand=get("brand"),
        quantity=parse_quantity(size) or parse_quantity(name), quantity_text=size,
        categories=(category,) if category else (), claims=claims,
        allergens=frozenset(declared), traces=frozenset(traced - declared),
        allergen_data=bool(declared_known or traced_known or ingredients), codes=(code,) if code else (),
        ingredients=ingredients, attributes=attributes, source=where,
    )


def _allergen_cell(text: str) -> tuple[set[str], bool]:
    """The allergens a cell names, and whether the cell says anything at all (empty: unknown)."""
    if not text.strip():
        return set(), False
    said = " ".join(fold(text).replace(".", " ").split())
    if said in UNKNOWN_WORDS:
        return set(), False
    if said in NONE_WORDS:
        return set(), True
    return allergens_in(text), True


def _split_may_contain(text: str) -> tuple[str, str]:
    folded = fold(text)
    cut = MAY_CONTAIN.search(folded)
    return (folded[: cut.start()], folded[cut.start():]) if cut else (folded, "")
