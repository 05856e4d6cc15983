"""Readings the reader missed (issue 58): a kind's alias said in the plural or in two words, a compound on a
short kind word.

- "rice drinks", "energy bars": a kind's alias of several words whose last word is said in the plural is
  read as the alias ("rice drink"), with a note; before, "rice" alone named a kind and "drinks" narrowed it
  (rice first, the rice drinks nowhere).
- "chick peas", "pop corn": two words whose concatenation is a kind's one-word alias are that alias (before,
  "peas" named canned vegetables and "chick" narrowed it).
- "jasminris", "sushiris": a word no catalogue or lexicon holds, ending in a three-letter kind word
  ("ris", "tee", "kex"), is that kind narrowed by the rest, when the rest is five letters at least. The
  reader's heads are four letters at least (``KnowledgeMap.kind_heads``) because a shorter one ends too many
  words by chance: "paris", "kris", "graham", "origin", "compost" keep a part of four letters or fewer and
  stay whole; a word the catalogue holds ("soundbar") is never cut, nor one that splits into known parts
  ("kycklingbröst": kyckling + bröst, never "kycklingbr" + "öst", cheese: words dev, fineli_sv dev) or ends in
  a known part longer than the kind word ("ankbröst": bröst).
"""

from __future__ import annotations

from engines.products.vocabulary import STOPWORDS

SHORT_HEAD = 3
MIN_REST = 5  # the rest before a 3-letter head: "jasmin|ris", "kamomilla|tee"; "gra|ham", "comp|ost" stay whole


def singular_aliases(reader, seq: tuple[str, ...], request) -> tuple[str, ...]:
    """``seq`` with the last word of a plural alias said ("rice drinks") put in its base form ("drink"), and
    two words written as one kind's one-word alias ("chick peas": chickpeas) read as that alias."""
    out = list(closed_aliases(reader, seq, request))
    for i in range(len(out)):
        for size in (3, 2):
            chunk = tuple(out[i:i + size])
            if len(chunk) < size or chunk in reader.knowledge.kind_phrases:
                continue
            # by the reader's base form, or simplemma's where the catalogue holds the plural ("bars")
            bases = (reader._base(chunk[-1]), *reader.languages.lemmas(chunk[-1]))
            base = next((b for b in bases if b != chunk[-1] and (*chunk[:-1], b) in reader.knowledge.kind_phrases), None)
            if base:
                request.notes.append(f"read '{reader._local.shown.get(chunk[-1], chunk[-1])}' as '{base}'")
                out[i + size - 1] = base
                break
    return tuple(out)


def closed_aliases(reader, seq: tuple[str, ...], request) -> list[str]:
    """Two words said apart ("chick peas", "pop corn", "kanan munat") whose concatenation is a kind's alias of
    one word: that word. Only a kind's alias, never any word a name holds ("smart watch" is the judge's,
    judge.py), and never a pair the reader already knows as said ("rice drink")."""
    out, i = [], 0
    while i < len(seq):
        pair = tuple(seq[i:i + 2])
        closed = "".join(pair)
        if len(pair) == 2 and pair not in reader.knowledge.kind_phrases and (closed,) in reader.knowledge.kind_phrases \
                and all(len(w) >= 3 and w not in STOPWORDS and (w,) not in reader.never_joined for w in pair):
            shown = " ".join(reader._local.shown.get(w, w) for w in pair)
            reader._local.shown.setdefault(closed, shown)
            request.notes.append(f"read '{shown}' as '{closed}'")
            out.append(closed)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return out


def kind_heads(reader, word: str) -> list[str]:
    """The kind words ``word`` may end in: the reader's heads, and a 3-letter one after a long unknown rest."""
    heads = reader.knowledge.kind_heads
    if word in reader.vocabulary or word in reader.languages.lexicon or len(word) < SHORT_HEAD + MIN_REST \
            or len(reader.languages.split_said(word, reader._known)) > 1:
        return heads  # a compound of known parts is read by them: "kycklingbröst" is no "kycklingbr" + ost (cheese)
    splitter = reader.languages.splitter
    if any(t in splitter.lexicon or t in splitter.bound or reader._known(t)
           for t in (word[cut:] for cut in range(1, len(word) - SHORT_HEAD))):
        return heads  # the longest known tail is the head, as in compounds.py: "ankbröst" ends in bröst, not öst
    short = [p[0] for p in reader.knowledge.kind_phrases if len(p) == 1 and len(p[0]) == SHORT_HEAD
             and word.endswith(p[0])]
    return [*heads, *short]
