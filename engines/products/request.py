"""Reading a buyer's words: kinds, claims, allergens to avoid, uses, brand, pack size, product code.

"laktoositon maito 1 l" -> kind milk, claim lactose-free, pack 1 l. A misspelt claim word is read as
the claim (never looser) with a note ("read 'laktositon' as lactose-free"); "without soy", "nut-free",
"pähkinätön", "utan nötter" are allergens to avoid; "kahviin", "for whipping" are uses; a brand is
one of the catalogue's brands; a run of 8 to 14 digits is a product code (then a lookup only).
Whatever is left is ``terms``: words that narrow the thing ("oat" in "oat drink").

Finnish and Swedish words (engines/products/languages.py): a word no catalogue or lexicon knows is
read by its base form ("kaurajuomaa" as "kaurajuoma", "köttbullar" as "köttbulle"); a compound that
names a kind keeps its first part as what narrows it ("appelsiinimehu": juice, appelsiini); a narrowing word
carries its ``alternatives`` from Fineli's aligned names ("appelsiini": orange, apelsin). "without X", X no
allergen or claim, keeps X out of the words searched. Plural aliases, 3-letter heads: reader_gaps.py.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from rapidfuzz.distance import OSA

from engines.lexical import fold
from engines.products.compound_reading import animal_kinds, form_compound, joined_kinds, read_compound
from engines.products.modifiers import ANIMAL_OF, regional
from engines.products.product import MULTIPACK, SINGLE, Quantity, parse_quantity
from engines.products.reader_gaps import kind_heads, singular_aliases
from engines.products.joins import joined, phrase_alternatives
from engines.products.knowledge import KnowledgeMap, words
from engines.products.languages import Words, default_words
from engines.products.vocabulary import (ALLERGENS, AVOID_ALSO, AVOID_STEMS, AVOID_WORDS, CLAIM_WORDS, CLAIMS,
                                         FREE_SUFFIXES, FREE_WORD_SUFFIXES, NEAR_SPELLING_NEVER, STOPWORDS,
                                         WITHOUT_WORDS)

MAX_QUERY_CHARS = 300  # a request longer than this is read from its start, and the answer says so
CODE = re.compile(r"(?<!\d)(\d{8,14})(?!\d)")
ANIMAL_ALLERGENS = frozenset({"milk", "eggs", "fish", "crustaceans", "molluscs"})
MEATLESS_CLAIMS = ("vegan", "vegetarian")
# Words that name an animal product outright: with "vegan" beside them the request contradicts itself.
ANIMAL_WORDS = frozenset({"whey", "hera", "heraproteiini", "vassle", "vassleprotein", "casein", "kaseiini",
                          "kasein", "gelatin", "gelatine", "liivate"})


@dataclass
class Request:
    text: str
    kinds: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    avoid: frozenset[str] = frozenset()
    uses: tuple[str, ...] = ()
    brand: str | None = None
    pack: Quantity | None = None
    code: str | None = None
    terms: tuple[str, ...] = ()  # content words not read as anything else
    forms: tuple[str, ...] = ()  # words of a kind's alias that narrow it ("oat" in "oat drink", "greek")
    said: tuple[str, ...] = ()  # every content word as said (kinds, terms, brand): for lexical recall
    # a narrowing word (term or form) -> its base form and the same word in the other two languages
    alternatives: dict[str, tuple[str, ...]] = field(default_factory=dict)
    excluded: tuple[str, ...] = ()  # "ilman suolaa": words said after "without" that name no allergen or claim
    notes: list[str] = field(default_factory=list)
    contradiction: bool = False
    words: list[dict] = field(default_factory=list)  # every word typed and what it became (accounting.py)
    strict: dict = field(default_factory=dict)  # distinguishing.strict_words, read once for `understood` and the judge

    @property
    def empty(self) -> bool:
        return not (self.kinds or self.claims or self.avoid or self.uses or self.brand or self.code or self.terms)

    def understood(self) -> dict:
        return {
            "kinds": list(self.kinds), "claims": [CLAIMS[c] for c in self.claims],
            "avoid": sorted(ALLERGENS[a] for a in self.avoid), "uses": list(self.uses), "brand": self.brand,
            "pack": str(self.pack) if self.pack else None, "code": self.code, "terms": list(self.terms),
            "notes": list(self.notes), "words": list(self.words),
        }


class RequestReader:
    """Reads requests against one knowledge map and one catalogue's brands and words."""

    def __init__(self, knowledge: KnowledgeMap, brands: list[str] = (), vocabulary: set[str] | None = None,
                 languages: Words | None = None) -> None:
        self.knowledge = knowledge
        self.vocabulary = vocabulary or set()
        self.languages = languages or default_words()
        self._local = threading.local()  # the words as typed, per reading thread (the pane reads in workers)
        self.claim_phrases = {words(p): c for c, ps in CLAIM_WORDS.items() for p in ps}
        self.avoid_phrases = {words(p): a for a, ps in AVOID_WORDS.items() for p in ps}
        self.without = {words(p) for p in WITHOUT_WORDS}
        self.free = set(FREE_SUFFIXES)
        known = set(knowledge.kind_phrases) | set(self.claim_phrases) | set(knowledge.use_phrases)
        self.brand_phrases: dict[tuple[str, ...], str] = {}
        for brand in brands:
            key = words(brand)
            if key and not key[0].isdigit() and len("".join(key)) >= 3 and key not in known \
                    and not all(w in STOPWORDS or w in self.free for w in key):
                self.brand_phrases.setdefault(key, brand)
        # a word read as a rule or a brand is never joined with the next into a compound
        self.never_joined = self.without | set(self.claim_phrases) | set(self.avoid_phrases) | set(self.brand_phrases)
        self.claim_single = sorted({p[0] for p, c in self.claim_phrases.items()
                                    if len(p) == 1 and len(p[0]) >= 5 and c not in NEAR_SPELLING_NEVER})
        # words read as they are said, never by a base form: every word of a phrase the reader knows
        self.fixed = {w for table in (self.claim_phrases, self.avoid_phrases, knowledge.kind_phrases,
                                      knowledge.use_phrases, self.brand_phrases) for p in table for w in p}
        self.fixed |= {w for p in self.without for w in p} | set(STOPWORDS) | self.free
        # the words of the kinds' own labels, their compound parts and their translations: what a
        # compound's head may be ("juoma" in "mantelijuoma" is the "drink" of plant drink, kasvijuoma)
        self.label_parts = {k: self._label_parts(kind) for k, kind in knowledge.kinds.items()}
        self.kind_single = sorted({p[0] for p in knowledge.kind_phrases if len(p) == 1 and len(p[0]) >= 4})

    def _label_parts(self, kind) -> set[str]:
        label_words = {w for label in kind.labels.values() for w in words(label)}
        out = set(label_words)
        for w in label_words:
            out.update(self.languages.parts(w))
            out.update(self.languages.translations(w))
        return out

    def read(self, query: str) -> Request:
        notes: list[str] = []
        text = query.strip()
        if len(text) > MAX_QUERY_CHARS:
            notes.append(f"read the first {MAX_QUERY_CHARS} of {len(text)} characters")
            text = text[:MAX_QUERY_CHARS]
        request = Request(text=query, notes=notes)
        self._local.shown = {fold(w): w for w in re.findall(r"[^\W_]+", text)}  # folded word -> as typed
        folded = fold(text)
        code = CODE.search(folded)
        if code:
            request.code = code.group(1)
            folded = folded[: code.start()] + " " + folded[code.end():]
        pack = MULTIPACK.search(folded) or SINGLE.search(folded)
        if pack:
            request.pack = parse_quantity(pack.group(0))
            notes.append(f"read '{pack.group(0).strip()}' as the pack size {request.pack}")
            folded = folded[: pack.start()] + " " + folded[pack.end():]
        self._read_words(singular_aliases(self, joined(self, words(folded), request), request), request)
        self._alternatives(request)
        phrase_alternatives(self, request)
        self._check_contradictions(request)
        return request

    def _base(self, w: str) -> str:
        """A word no phrase reads, by its dictionary base form where that is a word something knows."""
        if w in self.fixed or w in self.vocabulary:
            return w
        if len(w) >= 5 and _nearest(w, self.claim_single, lambda c: self.claim_phrases[(c,)]):
            return w  # a misspelt claim word is read as the claim ("laktoositn"), never by a base form ("laktoosi")
        base = self.languages.base(self._local.shown.get(w, w).lower(), self._known)
        if base == w and w not in ANIMAL_OF:  # a form Fineli's names hold ("jogurttia"): the base a kind names,
            base = next((b for b in self.languages.lemmas(self._local.shown.get(w, w).lower())  # never a part
                         if (b,) in self.knowledge.kind_phrases and len(w) - len(b) <= 3), w)  # ("makaronilåda")
        if base != w:
            self._local.shown.setdefault(base, self._local.shown.get(w, w))
        return base

    def _known(self, word: str) -> bool:
        return word in self.vocabulary or word in self.fixed

    def _alternatives(self, request: Request) -> None:
        """For each narrowing word: the same word in the other languages (and those of its compound parts)."""
        for w in dict.fromkeys((*request.terms, *request.forms)):
            parts = self.languages.parts(w)
            # a compound is never read as one of its own parts, nor by a base form that cuts it to one
            # (simplemma's "makaronilåda" -> makaroni; Fineli aligns it with MAKARONI too): no casserole
            own = set(parts) if len(parts) > 1 else set()
            bases = [b for b in self.languages.lemmas(self._local.shown.get(w, w).lower()) if b not in own]
            found = [t for base in (w, *bases) for t in (base, *self.languages.translations(base))
                     if t != w and t not in own]
            if len(parts) > 1 and not found:  # a compound no aligned name holds: its parts, in every language
                found += [t for p in parts for t in (p, *self.languages.translations(p)) if len(p) >= 3]
            found = list(dict.fromkeys(found))
            if found:
                request.alternatives[w] = tuple(found)

    # -- the words -------------------------------------------------------------------------------
    def _read_words(self, seq: tuple[str, ...], request: Request) -> None:
        kinds: list[str] = []
        claims: list[str] = []
        avoid: set[str] = set()
        uses: list[str] = []
        terms: list[str] = []
        said: list[str] = []
        forms: list[str] = []
        excluded: list[str] = []
        i = 0
        while i < len(seq):
            step, what = self._phrase_at(seq, i)
            kind_of, value = what
            if kind_of == "stop" and (seq[i],) in self.without and i + 1 < len(seq):
                after_step, (after_kind, _) = self._phrase_at(seq, i + 1)
                base = self._base(seq[i + 1]) if after_kind == "word" else seq[i + 1]
                if base != seq[i + 1] and (base,) in self.avoid_phrases:  # "ilman kananmunia": eggs, a rule
                    seq = seq[:i + 1] + (base,) + seq[i + 2:]
                    continue
                if after_kind == "word":  # "ilman suolaa": salt is kept out of the words searched, not sought
                    excluded.append(seq[i + 1])
                    request.notes.append(f"read '{self._local.shown.get(seq[i], seq[i])} "
                                         f"{self._local.shown.get(seq[i + 1], seq[i + 1])}' as without "
                                         f"'{seq[i + 1]}' (no rule: it names no allergen or claim)")
                    i += 1 + after_step
                    continue
            said_here = " ".join(self._local.shown.get(w, w) for w in seq[i:i + step])
            if kind_of == "claim":
                claims.append(value)
                request.notes.append(f"read '{said_here}' as {CLAIMS[value]}")
            elif kind_of == "avoid":
                avoid.add(value)
                request.notes.append(f"read '{said_here}' as no {ALLERGENS[value]}")
            elif kind_of == "use":
                uses.append(value)
                # the use's own words still find products named by them ("whip" in "Heavy Whipping Cream")
                said.extend(w for w in seq[i:i + step] if w not in STOPWORDS and len(w) >= 4)
            elif kind_of == "brand":
                request.brand = value
                said.extend(seq[i:i + step])
            elif kind_of == "kind":
                kinds.extend(k for k in value if k not in kinds)
                said.extend(seq[i:i + step])
                forms.extend(self._form_words(seq[i:i + step], value))
                if seq[i:i + step] in self.knowledge.use_phrases:
                    uses.append(self.knowledge.use_phrases[seq[i:i + step]])
                # "vegan butter" names a kind and a claim: the claim is kept, never dropped
                claims.extend(self.claim_phrases[(w,)] for w in seq[i:i + step] if (w,) in self.claim_phrases)
            elif kind_of == "word":
                before = len(terms)
                self._read_word(seq[i], kinds, claims, avoid, terms, said, request.notes, forms)
                base = self._base(seq[i]) if len(terms) > before and terms[-1] == seq[i] else seq[i]
                if base != seq[i]:
                    # nothing read it as said ("-ton", compounds and misspellings come first: simplemma
                    # reads "sinapiton" as "sinappi"): by its base form, a kind ("kaurajuomaa") or a
                    # narrowing word ("mustikoita": mustikka)
                    del terms[-1], said[-1]
                    request.notes.append(f"read '{self._local.shown.get(seq[i], seq[i])}' as '{base}'")
                    if self._phrase_at(seq[:i] + (base,) + seq[i + 1:], i)[1][0] not in ("word", "stop"):
                        seq = seq[:i] + (base,) + seq[i + 1:]
                        continue
                    terms.append(base)
                    said.append(base)
            i += step
        for allergen in list(avoid):
            also = [a for a in AVOID_ALSO.get(allergen, ()) if a not in avoid]
            avoid.update(also)
            if also:
                request.notes.append(f"no {ALLERGENS[allergen]} also keeps out {', '.join(ALLERGENS[a] for a in also)}")
        if "gluten" in avoid and "gluten_free" not in claims:  # "without gluten" asks for gluten-free
            claims.append("gluten_free")
            request.notes.append("read 'no gluten' as gluten-free")
        request.kinds = tuple(kinds or animal_kinds(self, terms))
        request.claims = tuple(dict.fromkeys(claims))
        request.avoid = frozenset(avoid)
        request.uses = tuple(dict.fromkeys(uses))
        request.terms = tuple(terms)
        request.forms = tuple(dict.fromkeys(f for f in forms if (f,) not in self.claim_phrases))
        request.said = tuple(dict.fromkeys(said))
        request.excluded = tuple(excluded)

    def _phrase_at(self, seq: tuple[str, ...], i: int) -> tuple[int, tuple[str, object]]:
        """The longest phrase starting at ``i``: (words used, (what it is, value))."""
        for size in range(min(5, len(seq) - i), 0, -1):
            chunk = seq[i:i + size]
            if chunk in self.claim_phrases:
                return size, ("claim", self.claim_phrases[chunk])
            for cut in range(1, size):  # "without soy", "free from nuts", "ilman soijaa"
                if chunk[:cut] in self.without and chunk[cut:] in self.avoid_phrases:
                    return size, ("avoid", self.avoid_phrases[chunk[cut:]])
            if size >= 2 and chunk[-1] in self.free and chunk[:-1] in self.avoid_phrases:  # "nut free"
                return size, ("avoid", self.avoid_phrases[chunk[:-1]])
            if chunk in self.knowledge.kind_phrases and not (size == 1 and chunk[0] in STOPWORDS):
                # a kind first: "pastasås" is a kind and a use; never a stopword ("thé" folds to "the")
                return size, ("kind", self.knowledge.kind_phrases[chunk])
            if chunk in self.knowledge.use_phrases:
                return size, ("use", self.knowledge.use_phrases[chunk])
            if chunk in self.brand_phrases:
                return size, ("brand", self.brand_phrases[chunk])
        if seq[i] in STOPWORDS or (seq[i],) in self.without:  # "ilman" alone is no word to search for
            return 1, ("stop", None)
        return 1, ("word", None)

    def _form_words(self, chunk: tuple[str, ...], kind_ids) -> list[str]:
        """The words of an alias said that its kinds' own labels do not hold: what narrows the kind. A
        compound whose head is a label's word or part keeps its other parts ("appelsiinimehu" under juice,
        mehu: appelsiini; "havredryck" under plant drink, växtdryck: havre)."""
        label_words = {w for k in kind_ids for w in self.label_parts[k]}
        if any(chunk == words(label) for k in kind_ids for label in self.knowledge.kinds[k].labels.values()):
            return []
        out = []
        for w in chunk:
            if w in label_words or w in STOPWORDS or len(w) < 3:
                continue
            parts = self.languages.split_said(w, self._known)
            if len(parts) > 1 and (parts[-1] in label_words or any(p in label_words for p in parts)):
                # "kalkonbröst" under turkey: bröst narrows it
                out.extend(p for p in parts if p not in label_words and len(p) >= 3)
            else:
                out.append(w)
        return out

    def _read_word(self, word: str, kinds, claims, avoid, terms, said, notes, forms) -> None:
        allergen = self._free_compound(word)
        if allergen:
            avoid.add(allergen)
            notes.append(f"read '{self._local.shown.get(word, word)}' as no {ALLERGENS[allergen]}")
            return
        # a word Fineli's names hold whole is a thing of its own, never a kind read by its head or by a
        # near spelling ("surmjölk" is soured milk, not milk; "kirjolohifilee" is no "kirjolohi")
        typed = self._local.shown.get(word, word).lower()
        whole = bool(self.languages.translations(word) and word in self.languages.lexicon
                     or any(self.languages.translations(b) for b in self.languages.lemmas(typed)
                            if len(b) >= len(word) - 3)  # an inflection's base ("strawberries"), no stem cut short
                     or any(self._known(o) for o in regional(word))) and not form_compound(self, word)  # "filmjölk": Finland's "fil" (modifiers.py)
        for head in () if whole else kind_heads(self, word):  # "luomumunat": organic + eggs; "kauramaito": oat + milk
            if word.endswith(head) and len(word) - len(head) >= 3:
                prefix = word[: -len(head)]
                claim = self.claim_phrases.get((prefix,))
                joined = joined_kinds(self, prefix, head)  # "peanutbutter": peanut butter, no butter
                if claim:
                    claims.append(claim)
                    notes.append(f"read '{self._local.shown.get(word, word)}' as {CLAIMS[claim]} {head}")
                else:
                    terms.append(prefix)
                kinds.extend(k for k in joined or self.knowledge.kind_phrases[(head,)] if k not in kinds)
                said.append(word)
                return
        if not whole and word not in self.vocabulary and read_compound(self, word, kinds, claims, terms, said, notes):
            return  # "kycklingbröst": chicken, bröst (compound_reading.py)
        if word not in self.vocabulary and len(word) >= 5:
            claim_word = _nearest(word, self.claim_single, lambda w: self.claim_phrases[(w,)])
            if claim_word:
                claim = self.claim_phrases[(claim_word,)]
                claims.append(claim)
                notes.append(f"read '{self._local.shown.get(word, word)}' as {CLAIMS[claim]} "
                             f"(the nearest claim word, '{claim_word}')")
                return
        if word not in self.vocabulary and len(word) >= 4 and not whole:
            kind_word = _nearest(word, self.kind_single, lambda w: tuple(self.knowledge.kind_phrases[(w,)]))
            if kind_word:
                kinds.extend(k for k in self.knowledge.kind_phrases[(kind_word,)] if k not in kinds)
                notes.append(f"read '{self._local.shown.get(word, word)}' as '{kind_word}'")
                said.append(kind_word)
                forms.extend(self._form_words((kind_word,), self.knowledge.kind_phrases[(kind_word,)]))
                return
        if not word.isdigit() or len(word) > 1:
            terms.append(word)
            said.append(word)

    def _free_compound(self, word: str) -> str | None:
        """Finnish "-ton/-tön", "-vapaa" and Swedish "-fri" compounds: pähkinätön, soijavapaa, nötfri, mjölkfri."""
        for suffix in FREE_WORD_SUFFIXES:
            if word.endswith(suffix) and len(word) > len(suffix) + 2:
                stem = word[: -len(suffix)]
                for allergen, stems in AVOID_STEMS.items():
                    if stem in stems or any(stem == s[:-1] for s in stems if len(s) >= 5):
                        return allergen
        return None

    def _check_contradictions(self, request: Request) -> None:
        if "vegan" in request.claims:
            animal = [w for w in words(request.text) if w in ANIMAL_WORDS]
            if animal:
                request.contradiction = True
                request.notes.append(f"'vegan' and '{animal[0]}' contradict: {animal[0]} comes from an animal; "
                                     "only products that are vegan by their data are shown")
        for claim in request.claims:
            if claim not in MEATLESS_CLAIMS:
                continue
            for kind_id in request.kinds:
                kind = self.knowledge.kinds[kind_id]
                clash = set(kind.contains) & ANIMAL_ALLERGENS if claim == "vegan" else set()
                if clash or kind.family in ("meat", "fish"):
                    request.contradiction = True
                    request.notes.append(f"'{CLAIMS[claim]}' and '{kind.label()}' contradict: "
                                         f"only products that are {CLAIMS[claim]} by their data are shown")
        for allergen in request.avoid:
            for kind_id in request.kinds:
                if allergen in self.knowledge.kinds[kind_id].contains:
                    request.contradiction = True
                    request.notes.append(f"'{self.knowledge.kinds[kind_id].label()}' holds {ALLERGENS[allergen]} "
                                         f"by its nature: only products without it by their data are shown")


def _nearest(word: str, candidates: list[str], meaning) -> str | None:
    """The nearest candidate within one edit (two for words of 8+ letters); None when none, or when
    two equally near candidates mean different things ("vegna": vegan and vegana both mean vegan)."""
    limit = 2 if len(word) >= 8 else 1
    best, best_d, tie = None, limit + 1, False
    for cand in candidates:
        if abs(len(cand) - len(word)) > limit:
            continue
        d = OSA.distance(word, cand, score_cutoff=limit)
        if d < best_d:
            best, best_d, tie = cand, d, False
        elif d == best_d and best is not None and meaning(cand) != meaning(best):
            tie = True
    return None if best is None or tie else best
