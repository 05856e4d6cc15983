"""A product as the catalogue holds it, with its pack size and the one-line problems a loader reports.

Kept apart from catalogue.py so the loaders (off.py, icecat.py) and the catalogue can each import it
without importing each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from engines.lexical import fold


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


def split_tags(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def present(items: Iterable[str]) -> list[str]:
    return sorted(set(items))
