"""The kind a request's words end on (issue 58): "fruit yogurt" is a yogurt, "chicken soup" a soup, "red
wine vinegar" a vinegar, "egg noodles" noodles.

The reader hears two kinds in such words (fresh fruit and yogurt) and the judge calls a row of either the
thing. In English, and in a Finnish or Swedish phrase of two nouns, the last word names what is asked and
the words before it narrow it: a row of another kind than the head's (one the narrowing words name, or a
kin the judge let through: a canned fruit for "apple cider vinegar") is at most a stand-in, with the reason
on the row ("a fresh fruit: the words ask for a yogurt"). Found on dev (food_words dev "fruit
yogurt": once the strawberry yogurt was a flavoured variant, "Fruit Snacks" led as exact).

Only where the head follows the narrowing kind word directly: "sardines in oil" and "bread and butter"
are no oil and no butter, and a use ("plant drink for coffee") names no kind asked. A row whose name
carries the head's words is left as the judge labelled it ("Chicken Flavor Noodle Soup" for "chicken soup").
A row of the head's kind lacking a narrowing kind's word is a variant, after those carrying it: a cake
without chocolate is no chocolate cake, and still a cake.
"""

from __future__ import annotations

from typing import Sequence

from engines.lexical import fold
from engines.products.catalogue import Product
from engines.products.distinguishing import _held, carries_word
from engines.products.judge import Judgement
from engines.products.knowledge import KnowledgeMap, words
from engines.products.languages import Words
from engines.products.request import Request
from engines.products.vocabulary import STOPWORDS

NOT_THE_WORDS = ("pack", "code", "claim", "avoid", "brand")  # what follows the kind words narrows by rule, not by name
HEAD_SIZES = (3, 2, 1)  # a kind phrase of up to three words ("extra virgin olive oil" ends on "olive oil")
DEMOTED = 0.55  # below any match (0.7 at least), above the rules judge's other stand-ins (0.35-0.6 x share)


def head(request: Request, knowledge: KnowledgeMap) -> tuple[tuple[str, ...], frozenset[str], list[str]]:
    """(the head phrase, the kinds asked that it names, the words before it) when the words name other
    kinds asked right before it; ((), empty, []) otherwise."""
    if len(request.kinds) < 2 or request.code:
        return (), frozenset(), []
    seq = [w for entry in request.words if entry.get("as") not in NOT_THE_WORDS
           for w in words(fold(str(entry.get("word", ""))))]
    for size in HEAD_SIZES:
        if len(seq) <= size:
            continue
        phrase = tuple(seq[-size:])
        kinds = frozenset(knowledge.kind_phrases.get(phrase, ())) & set(request.kinds)
        if not kinds:
            continue
        before = seq[-size - 1]
        if before in STOPWORDS or not set(request.kinds) - kinds:
            return (), frozenset(), []
        return phrase, kinds, [w for w in seq[:-size] if w not in STOPWORDS]
    return (), frozenset(), []


def ends_on_head(request: Request, candidates: Sequence[Product], judgements: list[Judgement],
                 knowledge: KnowledgeMap, languages: Words) -> list[Judgement]:
    """Every match of another kind than the head's becomes a stand-in; an exact row of
    the head's kind lacking a narrowing word, a variant."""
    phrase, kinds, narrowing = head(request, knowledge)
    if not kinds:
        return judgements
    wanted = " ".join(knowledge.kinds[k].label() for k in sorted(kinds) if k in knowledge.kinds)
    out = []
    for product, j in zip(candidates, judgements):
        kind = product.kinds[0] if product.kinds else None
        if j.label in ("exact", "variant") and kind not in kinds:
            named = {w for n in product.all_names() for w in words(n)}
            if not all(w in named for w in phrase):
                label = knowledge.kinds[kind].label() if kind in knowledge.kinds else kind
                j = Judgement("standin", DEMOTED, f"a {label}: the words ask for a {wanted}")
        elif j.label == "exact" and kind in kinds:
            held = _held(product, languages)
            lacking = [w for w in narrowing if not carries_word(w, product, request, languages, held)]
            if lacking:
                j = Judgement("variant", 0.7, f"'{', '.join(lacking)}' not found in its name")
        out.append(j)
    return out
