"""One product schema, whatever the source, and the catalogue that holds a loaded assortment.

A product carries what its data states and nothing more: names by language, brand, quantity, the
knowledge map's kinds, claims with the evidence for each, allergens declared, traces ("may
contain"), whether allergen data exists at all, codes, a short description and attributes.
Loaders (``off.py`` for Open Food Facts TSV, ``icecat.py`` for the Icecat JSON zips) fill it;
lines they cannot read are skipped, counted and named in ``problems``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from engines.lexical import fold


class CatalogueError(Exception):
    """The catalogue cannot be read at all (missing, unreadable, no products): one line for the user."""


@dataclass(frozen=True)
class Problem:
    where: str  # file:line
    cause: str

    def __str__(self) -> str:
        return f"{self.where}: {self.cause}"


UNIT_BASE = {"g": ("g", 1.0), "kg": ("g", 1000.0), "mg": ("g", 0.001), "gr": ("g", 1.0), "grams": ("g", 1.0),
             "gramma": ("g", 1.0), "grammaa": ("g", 1.0), "oz": ("g", 28.3495), "lb": ("g", 453.592),
             "lbs": ("g", 453.592), "ml": ("ml", 1.0), "cl": ("ml", 10.0), "dl": ("ml", 100.0), "l": ("ml", 1000.0),
             "lt": ("ml", 1000.0), "ltr": ("ml", 1000.0), "litre": ("ml", 1000.0), "liter": ("ml", 1000.0),
             "litres": ("ml", 1000.0), "liters": ("ml", 1000.0), "litra": ("ml", 1000.0), "litraa": ("ml", 1000.0),
             "litri": ("ml", 1000.0), "litro": ("ml", 1000.0), "fl oz": ("ml", 29.5735), "floz": ("ml", 29.5735),
             "gallon": ("ml", 3785.41), "gal": ("ml", 3785.41), "quart": ("ml", 946.353), "qt": ("ml", 946.353),
             "pint": ("ml", 473.176)}
_UNITS = "|".join(sorted((re.escape(u) for u in UNIT_BASE), key=len, reverse=True))
_NUMBER = r"(\d+(?:[.,]\d+)?)"
MULTIPACK = re.compile(rf"(\d+)\s*[x×*]\s*{_NUMBER}\s*({_UNITS})\b", re.I)
SINGLE = re.compile(rf"{_NUMBER}\s*({_UNITS})\b\.?", re.I)
HALF_GALLON = re.compile(r"\bhalf\s+gallon\b", re.I)


@dataclass(frozen=True)
class Quantity:
    """A pack size in base units: ``count`` packs of ``each`` g or ml (6 x 330 ml: count 6, each 330)."""

    each: float
    unit: str  # "g" or "ml"
    count: int = 1

    @property
    def total(self) -> float:
        return self.each * self.count

    def __str__(self) -> str:
        each = _tidy(self.each)
        if self.unit == "ml" and self.each >= 1000:
            each = _tidy(self.each / 1000) + " l"
        elif self.unit == "g" and self.each >= 1000:
            each = _tidy(self.each / 1000) + " kg"
        else:
            each = f"{each} {self.unit}"
        return f"{self.count} x {each}" if self.count > 1 else each

    def matches(self, wanted: "Quantity") -> bool:
        """The same pack: unit, count and size within 3 % (1 l asked, 1000 ml or 1.01 l sold)."""
        if self.unit != wanted.unit or self.count != wanted.count:
            return False
        return abs(self.each - wanted.each) <= 0.03 * wanted.each


def _tidy(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-6 else f"{value:.2f}".rstrip("0").rstrip(".")


def parse_quantity(text: str | None) -> Quantity | None:
    """"1 l", "500 g", "6 x 330 ml", "Half Gallon (1.89 L)", "1lt" -> Quantity; None when no size is stated."""
    if not text:
        return None
    m = MULTIPACK.search(text)
    if m:
        unit, scale = UNIT_BASE[m.group(3).lower()]
        return Quantity(float(m.group(2).replace(",", ".")) * scale, unit, int(m.group(1)))
    m = SINGLE.search(text)
    if m:
        unit, scale = UNIT_BASE[m.group(2).lower()]
        value = float(m.group(1).replace(",", ".")) * scale
        return Quantity(value, unit) if value > 0 else None
    if HALF_GALLON.search(text):
        return Quantity(1892.7, "ml")
    return None


@dataclass
class Product:
    id: str
    names: dict[str, str]  # language ("en", "it", ... or "" unknown) -> name
    brand: str = ""
    quantity: Quantity | None = None
    quantity_text: str = ""
    kinds: tuple[str, ...] = ()  # knowledge-map kinds, most specific first
    categories: tuple[str, ...] = ()
    claims: dict[str, str] = field(default_factory=dict)  # claim -> evidence ("label en:no-lactose")
    allergens: frozenset[str] = frozenset()  # declared
    traces: frozenset[str] = frozenset()  # "may contain"
    allergen_data: bool = False  # any allergen, trace or ingredients data at all
    codes: tuple[str, ...] = ()
    description: str = ""
    ingredients: str = ""
    attributes: dict[str, str] = field(default_factory=dict)
    source: str = ""  # file:line it came from
    kind_from: str = ""  # "category" (Open Food Facts categories) or "name" (words in its name)
    fresh: bool = False  # a whole, fresh, unprocessed vegetable or fruit (set from the knowledge map)

    @property
    def name(self) -> str:
        return next((n for n in self.names.values() if n), self.id)

    @property
    def title(self) -> str:
        return f"{self.name} ({self.brand})" if self.brand and fold(self.brand) not in fold(self.name) else self.name

    def all_names(self) -> list[str]:
        return [n for n in self.names.values() if n]


@dataclass
class Catalogue:
    products: list[Product]
    problems: list[Problem] = field(default_factory=list)
    origin: str = ""

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
    """The product files under a folder (or the file itself): *.tsv, *.csv, *.json, *.json.zip."""
    if path.is_file():
        return [path]
    found = [p for p in sorted(path.rglob("*")) if p.is_file() and _is_catalogue(p)]
    return found


def _is_catalogue(p: Path) -> bool:
    name = p.name.lower()
    if name == "knowledge.json" or name.startswith("."):
        return False
    return name.endswith((".tsv", ".json.zip")) or (name.endswith(".json") and "product" in name)


def load_catalogue(path: str | os.PathLike, knowledge=None) -> Catalogue:
    """Read every product file under ``path``; kinds from ``knowledge`` (the default map if None)."""
    from engines.products.knowledge import KnowledgeMap

    root = Path(path)
    if not root.exists():
        raise CatalogueError(f"{root}: no such file or directory")
    if not os.access(root, os.R_OK):
        raise CatalogueError(f"{root}: permission denied")
    files = catalogue_files(root)
    if not files:
        raise CatalogueError(f"{root}: no product files (*.tsv Open Food Facts, *.json.zip Icecat)")
    products: list[Product] = []
    problems: list[Problem] = []
    for file in files:
        read = _reader(file)
        try:
            got, bad = read(file)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            problems.append(Problem(str(file), f"unreadable: {exc}"))
            continue
        products.extend(got)
        problems.extend(bad)
    seen: set[str] = set()
    unique: list[Product] = []
    for p in products:
        if p.id in seen:
            problems.append(Problem(p.source, f"duplicate product id {p.id}: the first one is kept"))
            continue
        seen.add(p.id)
        unique.append(p)
    if not unique:
        raise CatalogueError(f"{root}: no readable products" + (f" ({problems[0]})" if problems else ""))
    kmap = knowledge if knowledge is not None else KnowledgeMap.for_catalogue(root)
    kmap.assign(unique)
    return Catalogue(unique, problems, str(root))


def _reader(file: Path):
    name = file.name.lower()
    if name.endswith(".tsv") or name.endswith(".csv"):
        from engines.products.off import read_off

        return read_off
    from engines.products.icecat import read_icecat

    return read_icecat


def split_tags(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def present(items: Iterable[str]) -> list[str]:
    return sorted(set(items))
