"""The judge: request + candidates + deadline -> for each candidate exact | variant | standin | no.

``RulesJudge`` (the default: offline, milliseconds) labels from the knowledge map and product data:
the kind the words name is the thing (exact, or a variant when the form or the pack differs from
what was said); a kind the map lets stand in for it is a stand-in; anything else is not it. The
HTTP judge (``http_judge.py``) speaks the same protocol. ``check_labels`` is code checking any judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, Sequence

from engines.knobs import value_of
from engines.lexical import fold, standard_tokenize
from engines.products.catalogue import Product
from engines.products.head_word import head_used_as_modifier
from engines.products.knowledge import KnowledgeMap, naming_words, words
from engines.products.languages import default_words
from engines.products.modifiers import MEAT_FAMILIES, animals_named
from engines.products.request import ANIMAL_WORDS, Request

LABELS = ("exact", "variant", "standin", "no")
# A match whose name is the words said comes before one that holds them among others ("HUNAJA" before
# "MURO, HUNAJAMURO" for "hunaja"); less than any brand or pack lift (order.py, 0.15), so those still lead
NAMED_LIFT = 0.05
QUALIFIER_COST = 0.02  # of the lift, per word past the naming ones (10 at most: never below a lift of 0.04)
# Shares of the lift, below any whole one (0.8 at least) and above none: a wholesale name that says a
# closer kind than the words ("MAITO, KAHVIMAITO" for "maito"), or a prepared form no word asked for
# ("OMENA, KUIVATTU" dried, "PERUNA, KEITETTY" boiled: Fineli's preparation words, words.json)
CLOSER_SHARE = 0.5
PREPARED_SHARE = 0.5
# A name whose first word's head (its last compound part) is a word said or the kind's own comes before one
# that names the thing later: a wholesaler names the food first ("Gräddfil 10-12 % fett" before "Fiskpirog
# ... gräddfil", "Köttfärs av gris" before "Köttfärssås grisköttfärs"). Below the named lift: a name that
# is all words said still leads. Names in capitals have their naming part read already (fineli dev "skimmed
# milk": the lift put "MAITO, GEFILUS-MAITO" before "RASVATON MAITO", right first 98.3 -> 97.8 %).
HEAD_LIFT = 0.03
PREPARED_COST = 0.02
NOT_PREPARED = frozenset({"utan", "ilman", "without"})  # words.json's preparation words hold these ("ilman rasvaa")


@dataclass
class Judgement:
    label: str  # exact | variant | standin | no
    confidence: float  # 0..1
    why: str = ""


class JudgeFailed(Exception):
    """The judge gave no usable answer in time; ``reason`` says why (the fused order answers)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Judge(Protocol):
    name: str

    def judge(self, request: Request, candidates: Sequence[Product], deadline_s: float) -> list[Judgement]:
        """One judgement per candidate, in order; raises JudgeFailed."""
        ...


class RulesJudge:
    name = "rules"

    def __init__(self, knowledge: KnowledgeMap, label_words: dict[str, set[str]] | None = None) -> None:
        self.knowledge = knowledge
        self.label_words = label_words or {}  # kind -> its labels' words, parts and translations
        self.parts = default_words().parts
        self.preparation = default_words().preparation
        self._detail_stems: dict[str, frozenset[str]] = {}  # product id -> stems of its whole data

    def _details(self, product: Product) -> frozenset[str]:
        """Words and stems of a product's names, description and attribute values (cached by id)."""
        found = self._detail_stems.get(product.id)
        if found is None:
            if len(self._detail_stems) > 65536:
                self._detail_stems.clear()
            text = " ".join([*product.all_names(), product.description, *product.attributes.values()])
            found = frozenset(standard_tokenize(text)) | frozenset(words(text))
            self._detail_stems[product.id] = found
        return found

    def _named_by(self, request: Request, product: Product) -> float:
        """1.0 when every word that names the product (a wholesaler's "MANSIKKA" of "MANSIKKA, PAKASTE";
        a shop's whole name) was said, in any of the three languages, or is its kinds' names; a compound
        counts when all its parts do ("HERNEKEITTO" for "pea soup"). "jordgubbar": MANSIKKA 1.0 before
        "JOGURTTI, ... MANSIKKA" 0.0, though both hold strawberry."""
        said = set(request.said) | set(request.terms) | set(request.forms)
        said |= {a for alts in request.alternatives.values() for a in alts}
        for k in request.kinds:
            said |= {w for label in self.knowledge.kinds[k].labels.values() for w in words(label)}
            said |= self.label_words.get(k, set())
        name = product.all_names()[0] if product.all_names() else ""
        naming, plain = _closer_naming(name), naming_words(name)
        if not naming:
            return 0.0
        parts = self.parts
        # all or nothing: a share reordered Icecat's long names by their length (smart dev right first
        # 78.6 -> 75.7 %), where the fused order had been chosen; among names that are the words said,
        # the one with fewer qualifiers first ("BANAANI, KUORITTU" before "BANAANI, FRITEERATTU,
        # UPPOPAISTETTU"; "KIRJOLOHIFILEE" before "KIRJOLOHIFILEE, KYLMÄSAVUSTETTU")
        named = lambda seq: all(w in said or all(p in said for p in parts(w)) for w in seq)  # noqa: E731
        if named(naming):
            share = 1.0
        elif naming != plain and named(plain) and self._names_all_said(request, plain):
            # named by its first part only ("MUSTIKKA, METSÄMUSTIKKA" for "mustikoita"): after the plain
            # food the words name, before a product the words do not name at all ("KIISSELI, MUSTIKKAKEITTO");
            # never where a narrowing word said is found elsewhere in it ("skimmed milk": "MAITO,
            # GEFILUS-MAITO, RASVATON" is no plain milk named by the words)
            share = CLOSER_SHARE
        else:
            return 0.0
        qualifiers = set(words(name)) - set(naming)
        if name.isupper() and any(w in self.preparation and w not in said for w in qualifiers):
            share *= PREPARED_SHARE  # "OMENA, KUIVATTU" after "OMENA, KOTIMAINEN" when no drying was said
        cost = value_of("products", "qualifier_cost", QUALIFIER_COST)  # knobs: engines/products/knobs.py
        return share * (1.0 - cost * min(len(words(name)) - len(naming), 10))

    def _named_first(self, request: Request, product: Product) -> float:
        """HEAD_LIFT where the first word's head was said, less PREPARED_COST where a preparation no word
        asked for qualifies it ("Helmjölk, kokt" after "Helmjölk 3,5 % fett"): names not in capitals."""
        names = product.all_names()
        if not names or names[0].isupper():
            return 0.0  # a name in capitals is read by its naming part already (_named_by, _closer_naming)
        said = set(request.said) | set(request.terms) | set(request.forms)
        prepared = any(w in self.preparation and w not in said and w not in NOT_PREPARED for w in words(names[0])[1:])
        lift = value_of("products", "head_lift", HEAD_LIFT)
        return lift * self._head_said(request, names[0]) - PREPARED_COST * prepared

    def _head_said(self, request: Request, name: str) -> bool:
        token = next((t for t in name.split() if words(t) and not words(t)[0].isdigit()), "")
        if not token:
            return False
        first = words(token)[-1]  # "Köttfärs-potatislåda": a casserole, named by the part after the hyphen
        said = {w for w in (*request.said, *request.terms, *request.forms)}
        said |= {p for w in list(said) for p in self.parts(w)}
        said |= {a for alts in request.alternatives.values() for a in alts}
        for k in request.kinds:
            said |= self.label_words.get(k, set())
        return first in said or self.parts(first)[-1] in said

    def _names_all_said(self, request: Request, naming: tuple[str, ...]) -> bool:
        """Every narrowing word said (or one of its alternatives) is among the naming words or their parts."""
        held = set(naming) | {p for w in naming for p in self.parts(w)}
        return all(any(a in held for a in (t, *request.alternatives.get(t, ()))) for t in (*request.terms, *request.forms))

    def judge(self, request: Request, candidates: Sequence[Product], deadline_s: float = 1.0) -> list[Judgement]:
        return [self.judge_one(request, p) for p in candidates]

    def judge_one(self, request: Request, product: Product) -> Judgement:
        found = self._judge_one(request, product)
        if found.label in ("exact", "variant") and not request.code:
            return another_animal(request, product, self.knowledge, self.parts, found.confidence) or found
        return found

    def _judge_one(self, request: Request, product: Product) -> Judgement:
        if request.code:
            return Judgement("exact", 1.0, "the code said") if _has_code(product, request.code) else \
                Judgement("no", 1.0, "another code")
        named_lift = value_of("products", "named_lift", NAMED_LIFT)  # knobs: engines/products/knobs.py
        text_words = set(w for n in product.all_names() + [product.brand] for w in words(n))
        # a name's compounds by their parts too: "Köttfärs av nötstek" holds nöt
        text_words |= {p for w in list(text_words) for p in self.parts(w) if len(p) >= 3}
        if request.kinds:
            # what narrows the kind may be in the product's categories: "riisi" (rice) for "Bevanda di
            # riso" filed under en:rice-milks
            text_words |= {w for c in product.categories for w in words(c.split(":")[-1])}
            shared = [k for k in product.kinds if k in request.kinds]
            if shared:
                first = product.kinds[0] in request.kinds
                missing = [t for t in request.terms if not _said_any(t, request, text_words)]
                animal = [f for f in request.forms if f in ANIMAL_WORDS]
                if request.contradiction and animal and not any(_said_any(f, request, text_words) for f in request.forms):
                    # "vegan whey protein": no vegan product is whey; a vegan protein only stands in for it
                    return Judgement("standin", 0.6, f"not {animal[0]}: a vegan "
                                                     f"{self.knowledge.kinds[shared[0]].label()} stands in")
                if request.forms and not any(_said_any(f, request, text_words) for f in request.forms):
                    missing.append(" ".join(request.forms))  # "oat drink": an almond drink is a variant
                pack_differs = request.pack is not None and not (product.quantity and product.quantity.matches(request.pack))
                if not first and not missing and (request.forms or request.terms) and \
                        self.knowledge.family(product.kinds[0]) == MEAT_FAMILIES[0] == self.knowledge.family(shared[0]):
                    # "turkey mince": "Köttfärs av kalkon" is minced meat first, turkey by its animal, and
                    # carries the mince said: the thing, though its first kind is not the one the words name
                    first = True
                if first and not missing and not pack_differs:
                    return Judgement("exact", 0.9 + named_lift * self._named_by(request, product)
                                     + self._named_first(request, product),
                                     f"a {self.knowledge.kinds[shared[0]].label()}")
                why = [f"'{t}' not in its name" for t in missing] + (["another pack size"] if pack_differs else [])
                if not first:
                    why.append(f"mainly a {self.knowledge.kinds[product.kinds[0]].label()}")
                return Judgement("variant", 0.7, "; ".join(why))
            for k in product.kinds[:1]:
                for wanted in request.kinds:
                    if self.knowledge.can_stand_in(k, wanted):
                        return Judgement("standin", 0.6, f"a {self.knowledge.kinds[k].label()} can stand in "
                                                         f"for {self.knowledge.kinds[wanted].label()}")
            return Judgement("no", 0.8, "another kind")
        if request.uses:
            kind = product.kinds[0] if product.kinds else None
            if kind and all(self.knowledge.serves(kind, u) for u in request.uses):
                return Judgement("exact", 0.8, f"{self.knowledge.kinds[kind].label()} serves {', '.join(request.uses)}")
            return Judgement("no", 0.7, "serves another use")
        said = list(request.terms)
        if request.brand and fold(request.brand) == fold(product.brand) and not said:
            return Judgement("exact", 0.8, "the brand said")
        if said:
            # words alone, no kind known: the name (not the brand: "Food Lion") must carry them, as
            # said or by their stem ("batteries": "Battery"). An English head comes last, so a partial
            # match counts only when it holds the last word, and only when the product's own data
            # (description, attributes) carries the other words: "ps4 pro" is not any product named
            # "Pro". Chosen on the Icecat dev ratings (smart nDCG@10: every partial match with the
            # last word a variant 0.704, only with the rest in its details 0.737; with two said words
            # a name writes as one counted, 0.750)
            name_words = set(w for n in product.all_names() for w in words(n))
            stems = _stems(tuple(product.all_names()))
            found = [t for t in said if _said_any(t, request, name_words) or _stem_in(t, stems)]
            for a, b in zip(said, said[1:]):  # "smart watch": a Smartwatch holds both, written as one
                if a + b in name_words:
                    found += [t for t in (a, b) if t not in found]
            if len(set(found)) == len(set(said)):
                phrase = head_used_as_modifier(said, product.all_names())
                if phrase:
                    return Judgement("standin", 0.4, f"a {phrase}, not a {' '.join(said)}: "
                                                     f"'{said[-1]}' says what it is for")
                return Judgement("exact", 0.7 + named_lift * self._named_by(request, product),
                                 "every word said is in its name")
            if said[-1] in found and len(found) * 2 >= len(said):
                details = self._details(product)
                rest = [t for t in said if t not in found]
                if all(_stem_in(t, details) or _said_in(t, details) for t in rest):
                    return Judgement("variant", 0.5, f"{len(found)} of {len(said)} words in its name, "
                                                     f"the rest in its details")
        if (said or request.brand) and not (request.claims or request.avoid):
            # Words alone are weak evidence against a product: recall found it by its description or
            # its meaning ("earbuds": a headset), so with no hard rule stated it is shown after the
            # matches, as something instead, never dropped. Nothing named by the words is still "not sold".
            # Among those, one whose own data (description, attributes) holds every word said comes
            # first ("camera bag": a bag whose data says it carries a camera; "usb fan": a USB-powered
            # laptop cooler), then the rest, each group in fused order.
            # Chosen on the Icecat dev ratings: smart nDCG@10 0.750 -> 0.789, right first 77.1 -> 78.6 %,
            # every request it moved scored higher (laptop bag, camera bag, android tablet, laptop
            # stand, usb fan, memory stick, usb stick, gaming pc)
            if said:
                details = self._details(product)
                if all(_stem_in(t, details) or _said_in(t, details) for t in said):
                    return Judgement("standin", 0.35, "not named by the words said; every one is in its "
                                                      "description or data")
            return Judgement("standin", 0.3, "not named by the words said; found by its description or meaning")
        return Judgement("no", 0.6, "none of the words said")


def _closer_naming(name: str) -> tuple[str, ...]:
    """The naming words, and those of a wholesaler's second part when it names a kind of the first
    ("MAITO, KAHVIMAITO" is coffee milk, "PANNUKAKKU, SIENIPANNUKAKKU" a mushroom pancake, "PIIMÄ,
    KIRNUPIIMÄ" buttermilk): its compound ends with the first part's word, so it says what the product is
    more closely, and a request that names only the first part is not answered by it before the plain one."""
    naming = naming_words(name)
    if not (naming and name.isupper() and "," in name):
        return naming
    second = words(name.split(",")[1])
    if len(second) == 1 and second[0] != naming[-1] and second[0].endswith(naming[-1]):
        return (*naming, *second)
    if len(second) == 2 and second[-1] == naming[-1]:  # "MAITO, GEFILUS-MAITO"
        return (*naming, second[0])
    return naming


def _said_in(term: str, text_words: set[str]) -> bool:
    return term in text_words or (len(term) >= 4 and any(term in w for w in text_words))


def _said_any(term: str, request: Request, text_words: set[str]) -> bool:
    """The word, or the same word in another language (Fineli's aligned names), is in the text."""
    return _said_in(term, text_words) or any(_said_in(t, text_words) for t in request.alternatives.get(term, ()))


@lru_cache(maxsize=4096)
def _stems(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(standard_tokenize(" ".join(names)))


def _stem_in(term: str, stems: frozenset[str]) -> bool:
    mine = standard_tokenize(term)
    return bool(mine) and all(s in stems for s in mine)


def _has_code(product: Product, code: str) -> bool:
    from engines.products.catalogue import normal_code

    return any(normal_code(c) == normal_code(code) for c in product.codes)


def check_labels(request: Request, candidates: Sequence[Product], judgements: list[Judgement],
                 knowledge: KnowledgeMap) -> list[Judgement]:
    """Code checks the judge: a product called the thing itself is relabelled a stand-in when it is of
    another family than the words name (but can do its job), or names another animal or fish
    ("chicken" for "turkey mince"); called the thing while of no kind related to the words: not it."""
    if not request.kinds:
        return judgements
    wanted = [knowledge.kinds[k] for k in request.kinds]
    out = []
    for product, j in zip(candidates, judgements):
        kind = knowledge.kinds.get(product.kinds[0]) if product.kinds else None
        if j.label in ("exact", "variant") and kind is not None and kind.id not in request.kinds:
            animals = {w.animal for w in wanted if w.animal}
            if kind.animal and animals and kind.animal not in animals:
                j = Judgement("standin", j.confidence, f"{kind.animal}, not {'/'.join(sorted(animals))}")
            elif kind.family not in {w.family for w in wanted}:
                if any(knowledge.can_stand_in(kind.id, w.id) for w in wanted):
                    j = Judgement("standin", j.confidence, f"a {kind.label()} stands in; another family")
                else:
                    j = Judgement("no", j.confidence, f"a {kind.label()} is not a {wanted[0].label()}")
        out.append(j)
    return out


def another_animal(request, product, knowledge, parts, confidence: float = 1.0):
    """A match relabelled when the words name an animal of a meat and the product another: a stand-in
    when it names none of those said ("Köttfärs av lamm" for "nötfärs"), or names none at all where its
    kind says no animal either ("Köttfärs, medelvärde" for "vildsvinsfärs"); a variant when it names one
    more ("Köttfärs gris-nöt" for "nötfärs"), at most the match's ``confidence``. None: the judgement stands."""
    kinds = [knowledge.kinds[k] for k in request.kinds if k in knowledge.kinds]
    if not kinds:  # words alone ("lammfärs", a word the catalogue holds whole): the product's kind says it is meat
        kinds = [knowledge.kinds[k] for k in product.kinds[:1] if k in knowledge.kinds]
    if not any(k.family in MEAT_FAMILIES for k in kinds):
        return None
    wanted = animals_named((*request.said, *request.terms, *request.forms), parts)
    if not wanted:
        return None
    named = animals_named([w for n in product.all_names()[:1] for w in words(n)], parts)
    if not named:  # its kind may say it: a "chicken" product whose name is "Broiler fillet"
        kind = knowledge.kinds.get(product.kinds[0]) if product.kinds else None
        named = animals_named([w for label in kind.labels.values() for w in words(label)], parts) if kind else named
    if not named or not named & wanted:
        which = "/".join(sorted(named)) if named else "no animal named"
        return Judgement("standin", min(confidence, 0.6), f"{which}, not {'/'.join(sorted(wanted))}")
    if named - wanted:
        return Judgement("variant", min(confidence, 0.7),
                         f"{'/'.join(sorted(named - wanted))} too, not {'/'.join(sorted(wanted))} alone")
    return None
