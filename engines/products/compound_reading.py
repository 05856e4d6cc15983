"""A compound no catalogue, lexicon or knowledge-map phrase holds whole, read by its parts (issue 46).

"kycklingbröst" is chicken (the kind its first part names) narrowed by "bröst" (the cut); "lammfärs" is
minced meat (the kind its head names, through Fineli's aligned names: färs -> jauheliha) narrowed by
"lamm"; "vildsvinsfärs" minced meat narrowed by "vildsvin", which no product's name holds: nothing is
the thing. The head (last part) names the kind where it can, else the first part that names one does;
every other part is a word that narrows it (or a claim: "luomu", "eko"). Parts come from
``Words.split_said``: the lexicon's words, the catalogue's own and the animals' names (modifiers.py),
the head also a bound part ("bröst" of "bröstfilé").
"""

from __future__ import annotations

from engines.products.modifiers import ANIMAL_OF, FORM_OF, regional


def kinds_named(reader, word: str, translated: bool = True) -> list[str]:
    """The kinds one folded word names: as a kind phrase, else (the head only: a modifier's translations
    wander, "fläsk" -> bacon) through its translations ("fars": jauheliha)."""
    found = reader.knowledge.kind_phrases.get((word,))
    if found or not translated:
        return list(found or ())
    for other in reader.languages.translations(word):
        found = reader.knowledge.kind_phrases.get((other,))
        if found:
            return list(found)
    return []


def joined_kinds(reader, prefix: str, head: str) -> list[str]:
    """The kinds the first part and a name of the head's kind name together: "maapähkinä" + "voita" is
    maapähkinävoi, peanut butter; "peanut" + "butter" is peanut butter, never butter narrowed by peanut
    (issue 58: food_words dev "maapähkinävoita", "peanutbutter", "almondbutter" were butter said "not sold")."""
    phrases = reader.knowledge.kind_phrases
    heads = {p[0] for p, kinds in phrases.items() if len(p) == 1 and set(kinds) & set(phrases.get((head,), ()))}
    for name in sorted(heads | {head}):
        found = phrases.get((prefix + name,)) or phrases.get((prefix, name))
        if found:
            return list(found)
    return []


def form_compound(reader, word: str) -> bool:
    """A word Fineli's names hold whole that is a kind and a form ("laxfilé": lax + filé, "lohifilee"):
    read by its parts where no kind phrase holds it whole (issue 58: "laxfilé" was said "not sold",
    salmon never read). "kirjolohifilee" stays whole: "kirjolohi" names no kind."""
    if reader.knowledge.kind_phrases.get((word,)):
        return False
    parts = reader.languages.parts(word)
    return len(parts) >= 2 and parts[-1] in FORM_OF and any(kinds_named(reader, p, False) for p in parts[:-1])


def animal_kinds(reader, terms) -> list[str]:
    """Where no word named a kind, the kinds an animal said names ("broilerin rintafilee": chicken)."""
    return list(dict.fromkeys(k for t in terms if t in ANIMAL_OF for k in reader.knowledge.kind_phrases.get(
        (ANIMAL_OF[t],), ())))


def read_compound(reader, word: str, kinds: list, claims: list, terms: list, said: list, notes: list) -> bool:
    """Reads ``word`` by its parts into the lists given; False (nothing added) when it splits into none."""
    known = lambda w: w in reader.vocabulary or w in ANIMAL_OF  # noqa: E731
    parts = reader.languages.split_said(word, known)
    base = reader._base(word)
    if any(reader._known(other) or other in reader.languages.lexicon for other in regional(word)) \
            or base != word and not (len(parts) > 1 and base == parts[0] and parts[-1] in FORM_OF):
        # a known base form or the other region's word ("kanelbullar": örfil) reads it (languages.py); not a
        # base that is the compound's first part cut from a form ("lammasfärs": simplemma's "lammas")
        return False
    lexicon = reader.languages.lexicon
    if len(parts) < 2 or not any(p in lexicon or p in ANIMAL_OF or p in reader.languages.splitter.bound
                                 for p in parts):
        return False  # a Finnish or Swedish part at least: "earbuds" is no ear + buds (Icecat dev: 1.0 -> 0.39 nDCG@10)
    head_kinds = kinds_named(reader, parts[-1])
    rest = list(parts[:-1]) if head_kinds else list(parts)
    if not head_kinds:
        for part in parts[:-1]:
            head_kinds = kinds_named(reader, part, translated=False)
            if head_kinds:
                rest.remove(part)
                break
    kinds.extend(k for k in head_kinds if k not in kinds)
    for part in rest:
        claim = reader.claim_phrases.get((part,))
        if claim:
            claims.append(claim)
        elif (len(part) >= 3 or part in ANIMAL_OF) and part not in terms:
            terms.append(part)
    said.extend(dict.fromkeys((word, *parts)))
    shown = reader._local.shown.get(word, word)
    kind_note = f" (kind: {', '.join(head_kinds)})" if head_kinds else ""
    notes.append(f"read '{shown}' as {' + '.join(parts)}{kind_note}")
    return True
