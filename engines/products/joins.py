"""Words said apart that the catalogue's names write as one word: read as that word.

Finnish and Swedish write as one compound what English says in two or three words. Two ways to find it:
- both words translated and joined ("oat porridge": kaura + puuro, kaurapuuro; "salmon soup": lohikeitto;
  ``Words.joined``), where at least one word is translated (two English words a name writes as one,
  "smart watch", are the judge's);
- the phrase as Fineli's English names say it, aligned with one Finnish or Swedish word
  (``Words.phrase``: "whole milk" -> täysmaito, helmjölk; "soured milk" -> surmjölk; "buttermilk",
  written closed, as "butter milk" -> kirnupiimä; a Swedish or Finnish compound no name holds by its parts'
  English words: "ugnspannkaka", oven + pancake -> pannukakku), where no join was found.
Either way only into a word the catalogue's names hold, never a phrase the reader knows as said (a
kind's alias, a claim, an allergen, a brand: "oat drink" stays the kind). A kind's alias said whole keeps
its kind; its phrase's words go to its narrowing words' alternatives instead (``phrase_alternatives``).
"""

from __future__ import annotations

from engines.products.vocabulary import STOPWORDS

PHRASE_SIZES = (3, 2)  # the longest phrase first: "soured butter milk" before "butter milk"


def joined(reader, seq: tuple[str, ...], request) -> tuple[str, ...]:
    """``seq`` with every run said apart that one catalogue word says replaced by that word (noted)."""
    if not reader.vocabulary:
        return seq
    # words of a rule said in several words are never part of a join: "low fat milk" keeps the claim
    # low-fat ("fat milk" alone would be kevytmaito, and "low" a word to search)
    ruled = {j for size in (2, 3, 4) for i in range(len(seq) - size + 1) if seq[i:i + size] in reader.never_joined
             for j in range(i, i + size)}
    out, i = [], 0
    while i < len(seq):
        size, word = 1, None
        if i + 1 < len(seq) and not ruled & {i, i + 1}:
            word = _compound_of(reader, seq[i], seq[i + 1])
            size = 2
        if word is None and i not in ruled:
            size, word = _phrase_at(reader, seq[:min((j for j in ruled if j > i), default=len(seq))], i)
        if word:
            shown = " ".join(reader._local.shown.get(w, w) for w in seq[i:i + size])
            reader._local.shown.setdefault(word, shown)
            request.notes.append(f"read '{shown}' as '{word}'")
            out.append(word)
            i += size
        else:
            out.append(seq[i])
            i += 1
    return tuple(out)


def _free(reader, run: tuple[str, ...], foods_too: bool = False) -> bool:
    """No word of the run is a rule or a stopword, and no part of it is a phrase the reader knows.
    ``foods_too``: an allergen's word alone is a food there ("milk" of "soured milk"); "without" is not."""
    rules = reader.never_joined - set(reader.avoid_phrases) if foods_too else reader.never_joined
    if any(not w.isalpha() or len(w) < 3 or w in STOPWORDS or (w,) in rules for w in run):
        return False
    for size in range(2, len(run) + 1):
        for start in range(len(run) - size + 1):
            sub = run[start:start + size]
            if sub in reader.knowledge.kind_phrases or sub in reader.never_joined:
                return False
    return True


def _compound_of(reader, *pair: str) -> str | None:
    if not _free(reader, pair):  # "oat drink" as said
        return None
    return reader.languages.joined(*pair, reader.vocabulary.__contains__)


def _phrase_at(reader, seq: tuple[str, ...], i: int) -> tuple[int, str | None]:
    for size in PHRASE_SIZES:
        run = seq[i:i + size]
        if len(run) == size and _free(reader, run, foods_too=True):
            word = _held(reader, reader.languages.phrase(run))
            if word:
                return size, word
    word = seq[i]
    if word not in reader.vocabulary and _free(reader, (word,), foods_too=True):
        found = _held(reader, reader.languages.closed_phrase(word)) or _compound_phrase(reader, word)
        if found:
            return 1, found
    return 1, None


def _compound_phrase(reader, word: str) -> str | None:
    """A Finnish or Swedish compound no name holds whose parts say, in English, a phrase Fineli names by one
    word: "ugnspannkaka" (ugn + pannkaka: oven, pancake) and "uunipannukakku" are pannukakku."""
    parts = reader.languages.parts(word)
    if len(parts) != 2:
        return None
    for first in reader.languages.translations(parts[0]):
        for second in reader.languages.translations(parts[1]):
            found = _held(reader, reader.languages.phrase((first, second)))
            if found:
                return found
    return None


def _held(reader, words: tuple[str, ...]) -> str | None:
    return next((w for w in words if w in reader.vocabulary), None)


def phrase_alternatives(reader, request) -> None:
    """A kind's alias said whole ("whole milk": milk, narrowed by "whole") keeps its kind; the words its
    phrase says in Finnish and Swedish are alternatives of its narrowing words (täysmaito for "whole")."""
    said = request.said
    for size in PHRASE_SIZES:
        for start in range(len(said) - size + 1):
            run = said[start:start + size]
            if run not in reader.knowledge.kind_phrases:
                continue
            found = reader.languages.phrase(run)
            for w in run:
                if found and w in request.forms + request.terms:
                    request.alternatives[w] = tuple(dict.fromkeys((*request.alternatives.get(w, ()), *found)))
