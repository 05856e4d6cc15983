"""Allergen and label words as a catalogue's own columns write them, in Finnish, Swedish and English.

Kept beside the readers (not in vocabulary.py, which reads what a buyer says): a data cell is a
declaration, so matching is broad. A stem is found anywhere in a word ("vehnäjauho", "täysmaitojauhe",
"hasselnötter"), because Finnish and Swedish write allergens inside compounds; a false alarm only hides
a product from an "avoid" request, a miss would show one that breaks it. Short words match whole only.
"""

from __future__ import annotations

import re

from engines.lexical import fold
from engines.products.vocabulary import CLAIM_NAME_PHRASES, CLAIM_WORDS, INGREDIENT_WORDS

# allergen -> folded stems found inside words (>= 4 letters) in the three languages.
DATA_STEMS: dict[str, tuple[str, ...]] = {
    "gluten": ("gluten", "glutee", "wheat", "barley", "spelt", "vehna", "ohra", "ruis", "kaura", "speltti", "durum",
               "vete", "korn", "rag", "havre", "dinkel", "mannasuurimo", "bulgur", "seitan"),
    "crustaceans": ("crustacea", "shrimp", "prawn", "lobster", "crab", "ayriai", "katkarap", "rapu", "hummeri",
                    "kraftdjur", "skaldjur", "rakor", "raka", "hummer", "krabba", "kraft"),
    "eggs": ("kananmuna", "munanvalk", "munankelt", "kanamuna", "munaa", "munat", "egg", "albumi", "aggul", "aggvit",
             "aggpulv"),
    "fish": ("fish", "kala", "fisk", "lohi", "turska", "silakka", "tonnikala", "anjovis", "lax", "torsk", "sill"),
    "peanuts": ("peanut", "maapahkina", "jordnot", "arachi"),
    "soy": ("soy", "soija", "soja", "tofu", "edamame"),
    "milk": ("milk", "dairy", "maito", "maido", "kerma", "voi", "juusto", "hera", "laktoos", "kasein", "mjolk",
             "gradde", "smor", "ost", "vassle", "laktos", "whey", "lactose", "butter", "cream", "cheese", "casein",
             "jogurt", "yogurt", "yoghurt", "rahka", "kvarg"),
    "nuts": ("tree nut", "almond", "hazelnut", "walnut", "cashew", "pecan", "pistachio", "macadamia", "pahkina",
             "manteli", "saksanpahkina", "notter", "mandel", "hasselnot", "valnot", "cashewnot", "pistasch"),
    "celery": ("celery", "selleri", "celeri"),
    "mustard": ("mustard", "sinappi", "sinapi", "senap"),
    "sesame": ("sesam", "seesam", "tahini"),
    "sulphites": ("sulphit", "sulfit", "sulfiit", "sulphur dioxide", "sulfur dioxide", "rikkidioksid",
                  "svaveldioxid", "disulfit"),
    "lupin": ("lupin", "lupiin"),
    "molluscs": ("mollus", "nilvia", "simpuk", "sinisimpuk", "osteri", "mustekal", "musslor", "mussla", "ostron",
                 "blotdjur", "blaeckfisk", "blackfisk", "squid", "mussel", "oyster", "clam"),
    "coconut": ("coconut", "kookos", "kokos"),
}
# Words too short or too common to find inside others: matched as whole words only.
DATA_WORDS: dict[str, tuple[str, ...]] = {
    "gluten": ("rye", "oat", "oats", "malt", "mallas", "vete"),
    "eggs": ("muna", "agg", "eggs"),
    "nuts": ("nut", "nuts", "not", "notter", "nutter"),
    "soy": ("soy", "soya"),
    "milk": ("voi", "ost", "smor", "hera"),
}
# Stems that name one allergen but sit inside another's ("maapähkinä" holds "pähkinä", "voi" in
# "voileipä" is not butter): removed before that other allergen is looked for.
NOT_THIS: dict[str, tuple[str, ...]] = {
    "nuts": ("maapahkina", "jordnot", "peanut", "kookospahkina", "muskotti", "butternut", "nutmeg", "kokosnot"),
    "milk": ("kookosmaito", "coconut milk", "kokosmjolk", "kaakaovoi", "kakaosmor", "cocoa butter", "voileipa",
             "shea butter", "peanut butter", "maapahkinavoi", "jordnotssmor", "kookoskerma", "kokosgradde"),
    "gluten": ("tattari", "buckwheat", "bovete", "ragi"),
}
NONE_WORDS = frozenset({"ei", "ei ole", "ei allergeeneja", "ei sisalla allergeeneja", "none", "no", "no allergens",
                        "inga", "inga allergener", "nej", "0", "-", "--"})
# A cell that says the data is missing is as unknown as an empty one.
UNKNOWN_WORDS = frozenset({"ei tiedossa", "tuntematon", "unknown", "n/a", "na", "?", "okand", "uppgift saknas"})

# A labels cell says what a buyer says ("luomu", "vegansk") or what a name says ("senza glutine").
LABEL_PHRASES = {**CLAIM_WORDS, **{k: v for k, v in CLAIM_NAME_PHRASES.items() if k not in CLAIM_WORDS}}
MAY_CONTAIN = re.compile(r"may contain|can contain|traces? of|saattaa sisaltaa|voi sisaltaa|jaamia|"
                         r"kan innehalla|spar av|puo contenere|peut contenir|kann spuren", re.I)
_WORDS = re.compile(r"[a-z0-9]+")


def allergens_in(text: str) -> set[str]:
    """The EU allergens a data cell names, in any of the three languages."""
    folded = fold(text)
    if not folded.strip():
        return set()
    words = _WORDS.findall(folded)
    found: set[str] = set()
    for allergen, stems in DATA_STEMS.items():
        blanked = " " + " ".join(words) + " "
        for spoiler in NOT_THIS.get(allergen, ()):
            blanked = blanked.replace(spoiler, " ")
        if any(stem in blanked for stem in stems if len(stem) >= 4):
            found.add(allergen)
            continue
        tokens = set(blanked.split())
        if tokens & set(DATA_WORDS.get(allergen, ())) or tokens & set(INGREDIENT_WORDS.get(allergen, ())):
            found.add(allergen)
    return found


def claims_in(labels: str) -> dict[str, str]:
    """claim -> evidence for a labels cell ("luomu, laktoositon" -> organic, lactose_free)."""
    found: dict[str, str] = {}
    for item in re.split(r"[,;/|\n]+", labels):
        folded = " " + " ".join(_WORDS.findall(fold(item))) + " "
        if not folded.strip():
            continue
        for claim, phrases in LABEL_PHRASES.items():
            if claim in found:
                continue
            if any(f" {' '.join(_WORDS.findall(p))} " in folded for p in phrases):
                found[claim] = f"label {item.strip()}"
    return found
