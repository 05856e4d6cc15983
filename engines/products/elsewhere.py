"""Before "we do not sell that": a row filed under another kind whose name is the thing said (issue 58).

The reader names one kind from the words and the catalogue may file the thing under another: the demo
files minced turkey ("Macinato di tacchino") under minced meat, while "kalkkunajauheliha" and "ground
turkey" read as turkey; it files "Original Ginger Beer" under sodas while "ginger beer" reads as beer.
Recall, looking among the kinds read, never brings such a row (or brings it and the judge calls it another
thing), and "not sold" was said falsely (food_words dev). So when "not sold" is about to stand, BM25 over
every word said and its other names (translations, an animal's and a form's names in the catalogues'
languages: tacchino, macinato) reads the catalogue, and a row is the thing, shown as a variant saying why,
when its name carries every part said, each as a whole word or a compound's part, and begins or ends with
the last one (the head: "Macinato di tacchino", "Original Ginger Beer"). "Tahoe White Chocolate Macadamia"
is a cookie, no white chocolate: the head said is inside its name, neither first nor last. One word said
is never enough ("gin" is no ginger beer).
"""

from __future__ import annotations

from typing import Sequence

from engines.lexical import top_of
from engines.products.catalogue import Product
from engines.products.distinguishing import mutual, same_words
from engines.products.judge import Judgement
from engines.products.knowledge import naming_words, words
from engines.products.languages import Words
from engines.products.not_sold import CARRIED_CONFIDENCE, request_parts
from engines.products.request import Request

READ = 20  # rows read, best BM25 first: the demo's kinds hold 3-18 rows, and the thing names itself


def other_names(part: str, languages: Words, kind_phrases) -> set[str]:
    """The part and its other names: an animal's, a form's, a flavour's (modifiers.py, distinguishing.py),
    and the translations that translate back to it, but those naming another kind than the part does:
    Fineli's "jäätelö" pairs both ways with "cream" (of "ice cream"), and a strawberry yogurt starting
    "Cream on Top" is no strawberry ice cream (food_words dev "mansikkajäätelö")."""
    own = set(kind_phrases.get((part,), ()))
    return {part, *same_words(part), *(t for t in mutual(part, languages)
                                       if not own or not set(kind_phrases.get((t,), ())) - own)}


def carried_elsewhere(request: Request, products: Sequence[Product], bm25, allowed, languages: Words,
                      kind_phrases, shown=frozenset()) -> list[tuple[int, Judgement]]:
    """(position, variant judgement) for rows whose names are the thing said, but those ``shown`` as matches."""
    brand = words(request.brand or "")  # a brand said is the row's brand, not a word of its name ("Reed's ginger beer")
    parts = [p for p in request_parts(request, languages) if p not in brand]
    if len(parts) < 2 or request.code:
        return []
    names = [other_names(p, languages, kind_phrases) for p in parts]
    scores = bm25.scores(sorted({w for n in names for o in n for w in words(o)}))
    out = []
    for pos, _ in top_of(scores, READ):
        if pos in shown or not allowed[pos] or brand and words(products[pos].brand or "") != brand:
            continue
        first = [words(n) for n in products[pos].all_names()]
        held = {w for seq in first for w in seq}
        held |= {p for w in held for p in languages.parts(w) if len(p) >= 3}
        named = naming_words(products[pos].name)
        if named and all(n & held for n in names) and names[-1] & {named[0], named[-1]}:
            kind = products[pos].kinds[0].replace("_", " ") if products[pos].kinds else "product"
            out.append((pos, Judgement("variant", CARRIED_CONFIDENCE, f"filed as a {kind}; its name carries every "
                                                                      f"part said ({', '.join(parts)})")))
    return out


def lifted_elsewhere(request: Request, engine, allowed, positions: list[int], judgements: list[Judgement],
                     ranks: dict) -> bool:
    """The rows ``carried_elsewhere`` finds become variants among the judged ones, added where recall did not
    bring them (in place); True when there was one."""
    shown = {pos for pos, j in zip(positions, judgements) if j.label in ("exact", "variant")}
    found = carried_elsewhere(request, engine.products, engine.index.bm25, allowed, engine.reader.languages,
                              engine.knowledge.kind_phrases, shown)
    for pos, j in found:
        if pos in positions:  # judged already: recall brought it, the judge called it another thing
            judgements[positions.index(pos)] = j
            continue
        positions.append(pos)
        judgements.append(j)
        ranks.setdefault(pos, (0.0, {}))
    return bool(found)
