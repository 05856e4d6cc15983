"""Hard rules, from product data only, applied inside every recall source before anything is ranked.

A claim the words state must be carried by the product's data (a label, a category, or the maker's
own name for it). "vegan" also needs no milk, eggs, fish or shellfish declared, and "vegan" or
"vegetarian" is never met by meat or fish. An allergen to avoid must be neither declared nor a trace,
and a product with no allergen data at all is not safe for an "avoid" request. Two narrow
exceptions: a whole, fresh, unprocessed vegetable or fruit contains what it is and nothing else, and
its evidence says so ("by its nature, not declared by the maker"); and a product whose own name says
it is free of the allergen ("KAURAJUOMA, MAIDOTON", "LEVERLÅDA UTAN MJÖLK", "mayonnaise without egg")
is free of it by that statement ("its name says so").

``RuleMasks`` precomputes one boolean array per claim and allergen, so a request's allowed set is a
few numpy ANDs (microseconds over 19,406 Icecat products) and every source filters by it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.products.catalogue import Product
from engines.products.knowledge import KnowledgeMap, words
from engines.products.request import ANIMAL_ALLERGENS, Request
from engines.products.vocabulary import (ALLERGENS, AVOID_STEMS, AVOID_WORDS, CLAIMS, FREE_WORD_SUFFIXES,
                                         WITHOUT_WORDS)

NATURE = "by its nature, not declared by the maker"
NAMED = "its name says so"
MEAT_FAMILIES = ("meat", "fish")


@dataclass
class Verdict:
    ok: bool
    checks: list[str]  # what passed, each with its evidence
    broken: str | None = None  # the first rule broken, in words


def judge_rules(product: Product, request: Request, knowledge: KnowledgeMap) -> Verdict:
    """Every stated claim and avoid-rule against one product's data, with the evidence."""
    checks: list[str] = []
    family = knowledge.family(product.kinds[0]) if product.kinds else None
    for claim in request.claims:
        name = CLAIMS[claim]
        if claim not in product.claims:
            return Verdict(False, checks, f"not {name} by its data")
        if claim in ("vegan", "vegetarian") and family in MEAT_FAMILIES:
            return Verdict(False, checks, f"{family} is not {name}")
        if claim == "vegan":
            animal = sorted(product.allergens & ANIMAL_ALLERGENS)
            if animal:
                return Verdict(False, checks, f"labelled vegan but declares {', '.join(animal)}")
        if claim == "gluten_free" and "gluten" in product.allergens:
            return Verdict(False, checks, "labelled gluten-free but declares gluten")
        checks.append(f"{name}: {product.claims[claim]}")
    for allergen in sorted(request.avoid):
        name = ALLERGENS[allergen]
        if allergen in product.allergens:
            return Verdict(False, checks, f"declares {name}")
        if allergen in product.traces:
            return Verdict(False, checks, f"may contain {name}")
        if not product.allergen_data:
            if by_nature_free(product, allergen, knowledge):
                checks.append(f"no {name}: {NATURE}")
                continue
            if allergen in stated_free(product.all_names()):
                checks.append(f"no {name}: {NAMED}")
                continue
            return Verdict(False, checks, f"no allergen data: {name} cannot be ruled out")
        checks.append(f"no {name}: none declared, no trace")
    return Verdict(True, checks)


def stated_free(names) -> frozenset[str]:
    """The allergens a product's own names say it is free of: "maidoton", "nötfri", "utan mjölk", "without egg"."""
    found: set[str] = set()
    for name in names:
        seq = words(name)
        for i, w in enumerate(seq):
            for suffix in FREE_WORD_SUFFIXES:
                stem = w[: -len(suffix)]
                if w.endswith(suffix) and len(stem) >= 3:
                    found.update(a for a, stems in AVOID_STEMS.items() if stem in stems)
            for size in (1, 2):
                if seq[i:i + size] in _WITHOUT and i + size < len(seq):
                    found.update(a for a, spellings in _AVOID.items() if seq[i + size] in spellings)
    return frozenset(found)


def by_nature_free(product: Product, allergen: str, knowledge: KnowledgeMap) -> bool:
    if not product.fresh or not product.kinds:
        return False
    kind = knowledge.kinds.get(product.kinds[0])
    return bool(kind and kind.fresh and allergen not in kind.contains)


_WITHOUT = {words(p) for p in WITHOUT_WORDS}
_AVOID = {a: {w for p in spellings for w in words(p) if len(words(p)) == 1} for a, spellings in AVOID_WORDS.items()}


class RuleMasks:
    """Boolean arrays over a catalogue: which products may answer a request's claims and avoid-rules."""

    def __init__(self, products: list[Product], knowledge: KnowledgeMap) -> None:
        n = len(products)
        self.size = n
        self.claim = {c: np.zeros(n, bool) for c in CLAIMS}
        self.declared = {a: np.zeros(n, bool) for a in ALLERGENS}
        self.traced = {a: np.zeros(n, bool) for a in ALLERGENS}
        self.has_data = np.zeros(n, bool)
        self.meatless_ok = np.ones(n, bool)
        self.natural = {a: np.zeros(n, bool) for a in ALLERGENS}  # or free by the product's own name
        for i, p in enumerate(products):
            for c in p.claims:
                if c in self.claim:
                    self.claim[c][i] = True
            for a in p.allergens:
                if a in self.declared:
                    self.declared[a][i] = True
            for a in p.traces:
                if a in self.traced:
                    self.traced[a][i] = True
            self.has_data[i] = p.allergen_data
            if p.kinds and knowledge.family(p.kinds[0]) in MEAT_FAMILIES:
                self.meatless_ok[i] = False
            if p.fresh:  # only whole fresh produce can be free of an allergen by its nature
                for a in ALLERGENS:
                    if by_nature_free(p, a, knowledge):
                        self.natural[a][i] = True
            if not p.allergen_data:
                for a in stated_free(p.all_names()):
                    self.natural[a][i] = True

    def allowed(self, request: Request) -> np.ndarray:
        ok = np.ones(self.size, bool)
        for claim in request.claims:
            ok &= self.claim[claim]
            if claim in ("vegan", "vegetarian"):
                ok &= self.meatless_ok
            if claim == "vegan":
                for a in ANIMAL_ALLERGENS:
                    ok &= ~self.declared[a]
            if claim == "gluten_free":
                ok &= ~self.declared["gluten"]
        for allergen in request.avoid:
            ok &= ~self.declared[allergen] & ~self.traced[allergen] & (self.has_data | self.natural[allergen])
        return ok
