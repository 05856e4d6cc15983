"""One product schema, whatever the source, and the catalogue that holds a loaded assortment.

A product carries what its data states and nothing more: names by language, brand, quantity, the
knowledge map's kinds, claims with the evidence for each, allergens declared, traces ("may
contain"), whether allergen data exists at all, codes, a short description and attributes.
Loaders (``off.py`` for Open Food Facts TSV, ``icecat.py`` for the Icecat JSON zips, ``exported.py``
for a wholesaler's own CSV, spreadsheet or JSON Lines export) fill it;
lines they cannot read are skipped, counted and named in ``problems``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from engines.errors import BadInput
from engines.problems import Problem
from engines.products.product import Product
from engines.products.tables import Reading, TableError


class CatalogueError(BadInput):
    """The catalogue cannot be read at all (missing, unreadable, no products): one line for the user."""


@dataclass
class Catalogue:
    products: list[Product]
    problems: list[Problem] = field(default_factory=list)
    origin: str = ""
    readings: list[Reading] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_id = {p.id: i for i, p in enumerate(self.products)}
        self.by_code: dict[str, int] = {}
        for i, p in enumerate(self.products):
            for code in p.codes:
                self.by_code.setdefault(normal_code(code), i)
        self.brands = sorted({p.brand for p in self.products if p.brand}, key=str.casefold)

    def __len__(self) -> int:
        return len(self.products)

    def find_code(self, code: str) -> int | None:
        return self.by_code.get(normal_code(code))


def normal_code(code: str) -> str:
    """EAN/UPC as digits without leading zeros: "0044000030377" and "44000030377" are one code."""
    digits = re.sub(r"\D", "", code)
    return digits.lstrip("0") or digits


def catalogue_files(path: Path) -> list[Path]:
    """The product files under a folder (or the file itself): Open Food Facts TSV, Icecat zips, and exports
    (CSV/TSV, spreadsheets, JSON Lines). In a folder, a table whose headers name no product field (an
    evaluation's ratings.csv beside the Icecat zips) is not a catalogue and is passed over."""
    if path.is_file():
        return [path]
    found = [p for p in sorted(path.rglob("*")) if p.is_file() and _is_catalogue(p)]
    return found


def refuse_unreadable(root: Path) -> None:
    """CatalogueError for a path that is not there or cannot be read."""
    if not root.exists():
        raise CatalogueError(f"{root}: no such file or directory")
    if not os.access(root, os.R_OK):
        raise CatalogueError(f"{root}: permission denied")


def refuse_at_once(path: str | os.PathLike) -> None:
    """What :func:`load_catalogue` would refuse before reading a row, found without reading one: a path
    that is not there or cannot be read, a folder with no product file (stops at the first one found).
    The workbench says these in one line before it draws, however slowly the open itself starts."""
    from engines.products.database import is_database_url

    if is_database_url(path):
        return
    root = Path(path)
    refuse_unreadable(root)
    if root.is_dir() and next((p for p in root.rglob("*") if p.is_file() and _is_catalogue(p)), None) is None:
        raise _no_product_files(root)


def _no_product_files(root: Path) -> CatalogueError:
    return CatalogueError(f"{root}: no product files (*.csv, *.tsv, *.xlsx, *.xls, *.ods, *.jsonl exports; "
                          f"Open Food Facts TSV; *.json.zip Icecat)")


def _is_catalogue(p: Path) -> bool:
    from engines.products.exported import LINES_SUFFIXES, SHEET_SUFFIXES

    name = p.name.lower()
    if name == "knowledge.json" or name.startswith((".", "~$")) or p.parent.name.startswith("."):
        return False  # "~$tuotteet.xlsx": the lock file Excel keeps beside an open workbook
    if name.endswith((".tsv", ".csv")):
        return _is_off(p) or _names_product_fields(p)
    return (name.endswith((".json.zip", *SHEET_SUFFIXES, *LINES_SUFFIXES))
            or (name.endswith(".json") and "product" in name))


def _first_line(p: Path) -> str:
    try:
        with open(p, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return ""
    return head.split(b"\n", 1)[0].decode("utf-8", errors="replace").lstrip("\ufeff")


def _is_off(p: Path) -> bool:
    """An Open Food Facts export, read as today by off.py: a TAB header with 'code' and a name column."""
    header = _first_line(p).rstrip("\r").split("\t")
    return "code" in header and any(h in header for h in ("product_name", "generic_name"))


def _names_product_fields(p: Path) -> bool:
    from engines.products.columns import recognise
    from engines.products.tables import DELIMITERS

    line = _first_line(p)
    return any(sum(1 for h in line.split(d) if recognise(h) and recognise(h)[0] != "code") >= 1 for d in DELIMITERS)


def catalogue_root(corpus) -> Path | None:
    """The file or folder a corpus names; None for a database URL (its rows are not on disk) or no corpus."""
    from engines.products.database import is_database_url

    return Path(corpus) if corpus is not None and not is_database_url(corpus) else None


def scope_of(corpus, root: Path | None, catalogue: Catalogue) -> str:
    """What the engine's caches are keyed on and its corpus is called: the path, or the URL without a password."""
    from engines.products.database import is_database_url, shown_url

    if root is not None:
        return str(root.resolve())
    return shown_url(corpus) if is_database_url(corpus) else f"catalogue:{len(catalogue)}"


def load_catalogue(path: str | os.PathLike, knowledge=None) -> Catalogue:
    """Read every product file under ``path`` (or a database URL's rows); kinds from ``knowledge``
    (the default map if None)."""
    from engines.products.database import is_database_url

    if is_database_url(path):
        return _load_database(str(path), knowledge)
    root = Path(path)
    refuse_unreadable(root)
    files = catalogue_files(root)
    if not files:
        raise _no_product_files(root)
    products: list[Product] = []
    problems: list[Problem] = []
    readings: list = []
    for file in files:
        try:
            got, bad, reading = read_file(file)
        except TableError as exc:  # an export's own one-line cause: "no name column among ..."
            problems.append(Problem(str(file), str(exc)))
            continue
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            problems.append(Problem(str(file), f"unreadable: {exc}"))
            continue
        products.extend(got)
        problems.extend(bad)
        readings.append(reading)
    if not products and root.is_file() and [p.path for p in problems] == [str(root)]:
        raise CatalogueError(str(problems[0]))  # the file's one cause, not wrapped twice
    return _finish(products, problems, readings, str(root), knowledge, root)


def _load_database(url: str, knowledge) -> Catalogue:
    from engines.products.database import read_database, shown_url
    from engines.products.exported import read_database_table

    try:
        products, problems, reading = read_database_table(url, read_database)
    except TableError as exc:
        raise CatalogueError(f"{shown_url(url)}: {exc}") from None
    return _finish(products, problems, [reading], shown_url(url), knowledge, None)


def _finish(products: list[Product], problems: list[Problem], readings: list, origin: str, knowledge,
            root: Path | None) -> Catalogue:
    from engines.products.knowledge import KnowledgeMap

    seen: set[str] = set()
    unique: list[Product] = []
    for p in products:
        if p.id in seen:
            problems.append(Problem(p.source, f"duplicate product id {p.id}: the first one is kept"))
            continue
        seen.add(p.id)
        unique.append(p)
    if not unique:
        raise CatalogueError(f"{origin}: no readable products" + (f" ({problems[0]})" if problems else ""))
    kmap = knowledge if knowledge is not None else (KnowledgeMap.for_catalogue(root) if root else KnowledgeMap.load())
    kmap.assign(unique)
    catalogue = Catalogue(unique, problems, origin)
    catalogue.readings = readings
    return catalogue


def read_file(file: Path):
    """(products, problems, how it was read) for one file of a catalogue."""
    name = file.name.lower()
    if name.endswith((".json.zip", ".json")):
        from engines.products.icecat import read_icecat

        got, bad = read_icecat(file)
        return got, bad, Reading(str(file), "Icecat JSON", rows_read=len(got))
    if _is_off(file):
        from engines.products.off import read_off

        got, bad = read_off(file)
        return got, bad, Reading(str(file), "Open Food Facts TSV (UTF-8, tab-separated)", rows_read=len(got))
    from engines.products.exported import read_exported_with_report

    return read_exported_with_report(file)
