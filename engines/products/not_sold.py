""""We do not sell that", checked before it is said (issue 46).

The judge may call every recalled row a stand-in while one of them is the thing: its name carries every
part of the request, only the reader did not see it (a compound it could not split, a regional word).
Before the answer says "not sold", each recalled row's name is read against the request's parts (each
word said, a compound by its parts; a part also in its other languages and the other region's word);
a row whose name carries all of them is shown as a variant, and nothing is said (a row of another kind
of the same family too: issue 58). A false "not sold" is
the costliest answer a wholesaler's search box gives; one shown variant too many is not.

When "not sold" stands, the answer carries why (``not_sold`` in its extras): the kinds looked for, the
parts looked for, and the first recalled rows with the judge's label and reason for each.
"""

from __future__ import annotations

from typing import Sequence

from engines.products.catalogue import Product
from engines.products.judge import Judgement, another_animal
from engines.products.knowledge import KnowledgeMap, words
from engines.products.languages import Words
from engines.products.modifiers import ANIMAL_OF
from engines.products.request import Request
from engines.products.vocabulary import STOPWORDS

REASON_ROWS = 5  # recalled rows listed with why each is not the thing
CARRIED_CONFIDENCE = 0.55  # below any match the judge labels itself (0.7 at least), above every stand-in (0.6 at most)


def request_parts(request: Request, languages: Words) -> list[str]:
    """The parts a product's name must carry to be the thing: every content word said, a compound by its parts."""
    known = lambda w: w in ANIMAL_OF  # noqa: E731
    out: list[str] = []
    for w in dict.fromkeys((*request.said, *request.terms)):
        if w in STOPWORDS or w.isdigit():
            continue
        parts = languages.split_said(w, known)
        # every word said counts ("pc" of "gaming pc"); a compound's parts of 3 letters and more
        out.extend(p for p in parts if (len(p) >= 3 or len(parts) == 1) and p not in STOPWORDS)
    return list(dict.fromkeys(out))


def carries(product: Product, parts: Sequence[str], request: Request, languages: Words) -> bool:
    """Every part is in the product's name: as a word, a compound's part, inside a word (4+ letters), or
    as one of its other-language or other-region words."""
    name_words = {w for n in product.all_names() for w in words(n)}
    held = name_words | {p for w in name_words for p in languages.parts(w)}

    def has(part: str) -> bool:
        # and the other names of the names that pair back with it: "soya" is soija, which is "soy" (issue 58:
        # food_words dev "soya milk" was said "not sold" over "Organic Unsweetened soy milk")
        paired = [t for t in languages.translations(part) if part in languages.translations(t)]
        options = (part, *languages.translations(part), *request.alternatives.get(part, ()),
                   *(o for t in paired for o in languages.translations(t)))
        return any(o in held or (len(o) >= 4 and any(o in w for w in name_words)) for o in options)

    return bool(parts) and all(has(p) for p in parts)


def _same_family(request: Request, product: Product, knowledge: KnowledgeMap, parts: Sequence[str] = ()) -> bool:
    """A product of another kind of the family asked for, that the words said name too: "LAKTOOSITON
    MAITOJUOMA" is milk to the catalogue, flavoured milk to the words "laktoositon maitojuoma", which
    say "maito". A row whose own kind no word said names is another thing carrying the word as its
    flavour: "White chocolate macadamia" cookies for "vegan chocolate" (issue 58: food_words dev, the
    vegan cookie lifted "not sold" that was true)."""
    families = {knowledge.family(k) for k in request.kinds if k in knowledge.kinds}
    if not (product.kinds and product.kinds[0] in knowledge.kinds and knowledge.family(product.kinds[0]) in families):
        return False
    said = {*request.said, *request.terms, *request.forms, *parts}
    return any(product.kinds[0] in kinds and all(w in said for w in phrase)
               for phrase, kinds in knowledge.kind_phrases.items())


def checked(request: Request, pool: Sequence[Product], judgements: list[Judgement], languages: Words,
            knowledge: KnowledgeMap, settled=lambda product: False) -> tuple[list[Judgement], dict | None]:
    """(judgements, why) where nothing was a match: rows whose names carry every part become variants
    (why None); otherwise why says what was looked for and what recall found. ``settled``: rows code
    already knows are another thing whatever their words (distinguishing.other_source)."""
    if request.empty or request.code or any(j.label in ("exact", "variant") for j in judgements):
        return judgements, None
    parts = request_parts(request, languages)
    out = []
    lifted = 0
    for product, j in zip(pool, judgements):
        other_animal = another_animal(request, product, knowledge, languages.parts)
        if (j.label == "standin" or j.label == "no" and _same_family(request, product, knowledge, parts)) \
                and other_animal is None and carries(product, parts, request, languages) and not settled(product):
            out.append(Judgement("variant", CARRIED_CONFIDENCE, f"its name carries every part said "
                                                                f"({', '.join(parts)}); {j.why}"))
            lifted += 1
        else:
            out.append(j)
    if lifted:
        return out, None
    why = {"kinds": [knowledge.kinds[k].label() for k in request.kinds if k in knowledge.kinds],
           "parts": parts,
           "recalled": [{"id": p.id, "name": p.name, "label": j.label, "why": j.why}
                        for p, j in list(zip(pool, judgements))[:REASON_ROWS]]}
    return judgements, why
