"""The knowledge map: kinds of product, their names in English, Finnish and Swedish, uses and stand-ins.

The map is data (``fixtures/products/knowledge.json``, written by hand; Finnish and Swedish names
checked against Fineli's generic food names; a kind's ``fineli`` names, read as aliases, are written
by tools/fineli_words.py from Fineli's aligned names, never by hand). It answers four questions for the
rest of the engine:
which kinds a product is (from its Open Food Facts categories, else from words in its name), which
kinds and uses a buyer's words name, which kinds can stand in for a kind, and the family of a kind.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from engines.lexical import fold
from engines.products.modifiers import ANIMAL_OF, regional_compounds

KNOWLEDGE_FILE = "knowledge.json"
_WORDS = re.compile(r"[a-z0-9]+")


def words(text: str) -> tuple[str, ...]:
    return tuple(_WORDS.findall(fold(text)))


# "without", "with", "in", "and" in the three languages: what follows one in a name is what the product
# is not ("HAVREDRYCK UTAN MJÖLK" is no milk) or what it is made with ("POTATISMOS PÅ LÄTTMJÖLK",
# "tuna in olive oil"), never the thing itself
_WITHOUT_IN_NAMES = frozenset({"without", "ilman", "ei", "utan", "ej", "sans", "senza"})
_NAME_ENDS = _WITHOUT_IN_NAMES | {"no", "with", "med", "pa", "in", "i", "and", "ja", "och"}


def naming_words(name: str) -> tuple[str, ...]:
    """The words of a name that can say what the product is. A name in capitals, a wholesaler's and
    Fineli's way ("KAURAJUOMA, MAIDOTON, LISÄTTY KALSIUMIA"; "POTATISMOS PÅ LÄTTMJÖLK"), is named by
    its first part up to "without", "with", "in" or "and": the rest qualifies it or says what it is made
    with. Any other name only loses what follows "without" (a shop's name often starts with the brand
    before a comma: "Sobe, fruit strip snacks")."""
    capitals = name.isupper()
    seq = words(name.split(",")[0]) if capitals and "," in name else words(name)
    ends = _NAME_ENDS if capitals else _WITHOUT_IN_NAMES
    for i, w in enumerate(seq):
        if w in ends and i > 0:
            return seq[:i]
    return seq


def _before_ends(seq: tuple[str, ...]) -> tuple[str, ...]:
    for i, w in enumerate(seq):
        if w in _NAME_ENDS and i > 0:
            return seq[:i]
    return seq


def default_knowledge_path() -> Path:
    from engines.locations import fixtures_dir

    return fixtures_dir() / "products" / KNOWLEDGE_FILE


@dataclass(frozen=True)
class Kind:
    id: str
    family: str
    labels: dict[str, str]  # en / fi / sv
    aliases: tuple[str, ...]
    categories: frozenset[str]
    not_categories: frozenset[str]
    uses: tuple[str, ...]
    standins: tuple[str, ...]  # kinds that can stand in for this one
    contains: tuple[str, ...]  # allergens it holds by its nature
    animal: str | None
    fresh: bool

    def label(self, lang: str = "en") -> str:
        return self.labels.get(lang) or self.labels["en"]

    def phrases(self) -> list[str]:
        return [*self.labels.values(), *self.aliases]


class KnowledgeMap:
    def __init__(self, data: dict, origin: str = "") -> None:
        self.origin = origin
        self.kinds: dict[str, Kind] = {}
        for raw in data["kinds"]:
            kind = Kind(raw["id"], raw.get("family", raw["id"]),
                        {lang: raw[lang] for lang in ("en", "fi", "sv") if raw.get(lang)},
                        tuple(raw.get("aliases", ())) + tuple(n for ns in raw.get("fineli", {}).values() for n in ns),
                        frozenset(raw.get("categories", ())),
                        frozenset(raw.get("not_categories", ())), tuple(raw.get("uses", ())),
                        tuple(raw.get("standins", ())), tuple(raw.get("contains", ())), raw.get("animal"),
                        bool(raw.get("fresh")))
            self.kinds[kind.id] = kind
        self.uses: dict[str, tuple[str, ...]] = {
            use: tuple(p for lang in ("en", "fi", "sv") for p in phrases.get(lang, ()))
            for use, phrases in data.get("uses", {}).items()}
        # folded phrase -> kinds it names; folded phrase -> the use it names
        self.kind_phrases: dict[tuple[str, ...], list[str]] = {}
        for kind in self.kinds.values():
            for phrase in kind.phrases():
                key = words(phrase)
                if key and kind.id not in self.kind_phrases.setdefault(key, []):
                    self.kind_phrases[key].append(kind.id)
        self.use_phrases: dict[tuple[str, ...], str] = {}
        for use, phrases in self.uses.items():
            for phrase in phrases:
                self.use_phrases.setdefault(words(phrase), use)
        # a wholesaler's category (Fineli's food classes) -> a kind, for products whose names say none
        self.by_class: dict[str, str] = {fold(c): k for c, k in data.get("fineli_classes", {}).items()
                                         if k in self.kinds}
        self.by_category: dict[str, list[str]] = {}
        for kind in self.kinds.values():
            for c in kind.categories:
                self.by_category.setdefault(c, []).append(kind.id)
        # single words of kind phrases, for compounds ("luomumaito" ends with "maito")
        self.kind_heads = sorted({k[0] for k in self.kind_phrases if len(k) == 1 and len(k[0]) >= 4},
                                 key=len, reverse=True)

    @classmethod
    def load(cls, path: str | Path | None = None) -> "KnowledgeMap":
        path = Path(path) if path is not None else default_knowledge_path()
        with open(path, encoding="utf-8") as handle:
            return cls(json.load(handle), str(path))

    @classmethod
    def for_catalogue(cls, root: Path) -> "KnowledgeMap":
        """The map beside a catalogue folder when it has one, else the default."""
        own = root / KNOWLEDGE_FILE if root.is_dir() else root.parent / KNOWLEDGE_FILE
        return cls.load(own if own.is_file() else None)

    # -- products ------------------------------------------------------------------------------
    def kinds_of(self, categories: Iterable[str], names: Iterable[str]) -> tuple[tuple[str, ...], bool]:
        """(kinds most specific first, by_category). Categories decide; the name only when they are silent."""
        position = {c: i for i, c in enumerate(categories)}
        best: dict[str, int] = {}
        for c, i in position.items():
            for kind_id in self.by_category.get(c, ()):
                best[kind_id] = max(best.get(kind_id, -1), i)
        scored = [(-i, k) for k, i in best.items() if not self.kinds[k].not_categories.intersection(position)]
        if scored:
            return tuple(k for _, k in sorted(scored)), True
        found: list[tuple[int, int, int, int, str]] = []
        for n, name in enumerate(names):
            seq = naming_words(name)
            meat = any(self.kinds[k].family in ("meat", "fish") and w not in ANIMAL_OF
                       for w in seq for k in self.kind_phrases.get((w,), ()))
            for size in (3, 2, 1):
                for start in range(len(seq) - size + 1):
                    for kind_id in self.kind_phrases.get(seq[start:start + size], ()):
                        # English heads come last ("butter beans"); the first name (the catalogue's own
                        # language) before a second-language one; beside a meat, a word naming the animal
                        # says which animal, not what the product is ("Köttfärs av nöt": minced meat, not
                        # nuts; "Köttfärs av kyckling": minced meat before chicken)
                        modifier = int(meat and size == 1 and seq[start] in ANIMAL_OF)
                        found.append((modifier, -size, n, -start, kind_id))
        ordered = list(dict.fromkeys(k for modifier, *_, k in sorted(found)
                                     if not (modifier and self.kinds[k].family not in ("meat", "fish"))))
        if not ordered:  # "Havreflingor", Finland's word: Sweden's "havregryn" names oat flakes (modifiers.py)
            from engines.products.languages import default_words

            # its naming words only, up to "with", "in", "and" ("Vetebröd med havreflingor" is no oat flakes)
            ordered = [k for name in names for w in _before_ends(naming_words(name))
                       for other in regional_compounds(w, default_words().parts)
                       for k in self.kind_phrases.get((other,), ())][:1]
        if not ordered:  # "HERNEKEITTO": the head of a compound ("keitto", soup) names it
            from engines.products.languages import default_words

            parts = default_words().parts
            heads = [(n, parts(w)[-1]) for n, name in enumerate(names) for w in naming_words(name)
                     if len(parts(w)) > 1]
            ordered = list(dict.fromkeys(k for _, head in heads for k in self.kind_phrases.get((head,), ())))
            if not ordered:  # "Kycklingbröstfilé": no kind in the head (bröstfilé), the animal's part names it
                ordered = [k for name in names[:1] for w in naming_words(name)[:1] for p in parts(w)[:-1]
                           if p in ANIMAL_OF for k in self.kind_phrases.get((p,), ())
                           if self.kinds[k].family in ("meat", "fish")][:1]  # "Nötfilé": beef's nöt, never nuts
        if not ordered:  # "PORKKANA" in class "Kasvikset, tuoreet": the class's kind
            ordered = [self.by_class[fold(c)] for c in position if fold(c) in self.by_class][:1]
        return tuple(ordered), False

    def assign(self, products) -> None:
        for product in products:
            if product.kinds:  # a loader that knows better (tests, another map) keeps its kinds
                continue
            kinds, by_category = self.kinds_of(product.categories, product.all_names())
            product.kinds = kinds
            product.kind_from = ("category" if by_category else "name") if kinds else ""
            first = self.kinds.get(kinds[0]) if kinds else None
            product.fresh = bool(first and first.fresh and by_category and len(words(product.ingredients)) <= 2)

    # -- relations -----------------------------------------------------------------------------
    def can_stand_in(self, candidate: str, wanted: str) -> bool:
        kind = self.kinds.get(wanted)
        return bool(kind and candidate in kind.standins)

    def family(self, kind_id: str) -> str | None:
        kind = self.kinds.get(kind_id)
        return kind.family if kind else None

    def serves(self, kind_id: str, use: str) -> bool:
        kind = self.kinds.get(kind_id)
        return bool(kind and use in kind.uses)

    def kind_text(self, kind_id: str) -> str:
        kind = self.kinds.get(kind_id)
        return " / ".join(dict.fromkeys(kind.labels.values())) if kind else ""
