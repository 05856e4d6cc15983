"""Every word of a request and what it became (issue 58): ``understood.words`` in the answer.

"oat milk" -> oat: source (a plant drink must carry it), milk: kind (plant drink). No word disappears:
a word nothing read is said to be searched as typed, a stopword or a word after "without" that names no
rule is "not used" with the reason. Read after the reader, from what it kept (request.py fields), so
the reader itself stays as it was.
"""

from __future__ import annotations

import re

from engines.lexical import fold
from engines.products.distinguishing import FLAVOUR_WORDS, FORM_WORDS, PLAIN_WORDS, distinguishing, strict_words
from engines.products.knowledge import words
from engines.products.modifiers import ANIMAL_OF
from engines.products.product import MULTIPACK, SINGLE
from engines.products.request import CODE, Request
from engines.products.vocabulary import ALLERGENS, CLAIMS, STOPWORDS



def _spans(text: str) -> list[tuple[int, int]]:
    folded = fold(text)
    out = []
    code = CODE.search(folded)
    if code:
        out.append(code.span(1))
    pack = MULTIPACK.search(folded) or SINGLE.search(folded)
    if pack:
        out.append(pack.span())
    return out


def account(reader, request: Request, kind_names: frozenset[str], kind_rows=None) -> list[dict]:
    """[{"word": as typed, "as": kind|claim|avoid|use|brand|pack|code|source|animal|form|property|flavour|
    word|not used, "detail": ...}] for every word of the request, in the order typed."""
    languages = reader.languages
    # distinguishing words narrow a kind: with no kind read, none is checked (check_words), so none is said
    in_order = distinguishing(request, languages, kind_names) if request.kinds else []
    wanted = set(in_order)
    # which of them the rows are checked for (check_words): a word no row of the kind states ("ground" of
    # "ground turkey") leaves a row lacking it a variant, and is said so, not "at most a stand-in"
    strict = set(strict_words(request, in_order, languages, kind_names, reader.vocabulary, kind_rows)) \
        if wanted else set()
    kinds = ", ".join(reader.knowledge.kinds[k].label() for k in request.kinds if k in reader.knowledge.kinds)
    claim_words = {w for phrase in reader.claim_phrases for w in phrase}
    avoid_words = {w for phrase in reader.avoid_phrases for w in phrase} | {w for p in reader.without for w in p}
    brand_words = {w for phrase in reader.brand_phrases for w in phrase}
    kind_words = {w for phrase in reader.knowledge.kind_phrases for w in phrase}
    use_words = {w for phrase in reader.knowledge.use_phrases for w in phrase}
    spans = _spans(request.text)
    folded_text = fold(request.text)
    out = []
    for match in re.finditer(r"[^\W_]+", folded_text):
        typed = request.text[match.start():match.end()] if len(folded_text) == len(request.text) else match.group(0)
        w = match.group(0)
        inside = next((s for s in spans if s[0] <= match.start() < s[1]), None)
        if inside is not None:
            role = "code" if request.code and request.code in folded_text[inside[0]:inside[1]] else "pack"
            out.append({"word": typed, "as": role, "detail": request.code if role == "code" else str(request.pack)})
            continue
        out.append({"word": typed, **_role(w, request, reader, wanted, strict, kinds, claim_words, avoid_words, brand_words,
                                          kind_words, use_words)})
    return out


def _role(w, request, reader, wanted, strict, kinds, claim_words, avoid_words, brand_words, kind_words, use_words) -> dict:
    base = reader.languages.base(w, reader._known) if w.isalpha() else w
    parts = [p for x in (w, base) for p in reader.languages.split_said(x, reader._known)] if w.isalpha() else [w]
    mine = [x for x in (w, base, *parts) if x in wanted]
    if w in request.excluded:
        return {"as": "not used", "detail": "said after 'without'; it names no allergen or claim, so it is kept "
                                            "out of the words searched"}
    if mine:
        what = mine[0]
        cls = "animal" if what in ANIMAL_OF else "form" if what in FORM_WORDS else "source"
        rest = f"; kind: {kinds}" if w not in mine or len(parts) > 1 else ""
        if what in strict:
            return {"as": cls, "detail": f"'{what}': a row of the kind lacking it is at most a stand-in{rest}"}
        return {"as": cls, "detail": f"'{what}': no row of the kind is checked for it (none states it, or it is "
                                     f"no food of its own), so a row lacking it is at most a variant{rest}"}
    if (w in PLAIN_WORDS or base in PLAIN_WORDS) and w not in words(fold(request.brand or "")):  # not "Nature Valley"
        return {"as": "property", "detail": "plain: a flavoured row is at most a stand-in"}
    if w in claim_words and request.claims:
        return {"as": "claim", "detail": ", ".join(CLAIMS[c] for c in request.claims)}
    if request.avoid and (w in avoid_words or any(w.startswith(s) for s in ("ilman", "utan", "without"))):
        return {"as": "avoid", "detail": ", ".join(sorted(ALLERGENS[a] for a in request.avoid))}
    if request.brand and w in brand_words:
        return {"as": "brand", "detail": request.brand}
    if w in STOPWORDS:
        return {"as": "not used", "detail": "a stopword"}
    if request.kinds and w not in request.terms and base not in request.terms \
            and (w in kind_words or base in kind_words or w in request.said or base in request.said):
        return {"as": "kind", "detail": kinds}
    if request.uses and w in use_words:
        return {"as": "use", "detail": ", ".join(request.uses)}
    if w in FLAVOUR_WORDS and (w in request.terms or base in request.terms):
        return {"as": "flavour", "detail": "searched in names; a row without it is a variant"}
    if not request.kinds and len(request.terms) > 1 and w == request.terms[-1]:
        return {"as": "word", "detail": "searched as said, the head: the last word said is what the product is, so a "
                                        "name holding it only before another word said is a stand-in "
                                        "('printer label' for 'label printer')"}
    if w in request.terms or base in request.terms or any(p in request.terms for p in parts):
        return {"as": "word", "detail": "searched as said: no kind or rule reads it, and no lexicon knows it as a "
                                        "food word, so a row lacking it is a variant, never a stand-in"}
    if w in STOPWORDS:
        return {"as": "not used", "detail": "a stopword"}
    if request.claims and w in reader.free:
        return {"as": "claim", "detail": ", ".join(CLAIMS[c] for c in request.claims)}
    closed = next((s for s in request.said if len(s) > len(w) and (s.startswith(w) or s.endswith(w))
                   and (s,) in reader.knowledge.kind_phrases), None)  # "chick" of "chick peas": chickpeas
    if request.kinds and closed:
        return {"as": "kind", "detail": f"{kinds} (said apart: '{closed}')"}
    if any(note for note in request.notes if w in fold(note)):
        return {"as": "not used", "detail": next(n for n in request.notes if w in fold(n))}
    return {"as": "not used", "detail": "no kind, rule, brand or word of the catalogue reads it"}
