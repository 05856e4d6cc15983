"""Wide recall by several cheap means at once, every one inside the hard rules, fused by reciprocal rank.

Sources (each a ranked list of catalogue positions, kept for ``explain``):
  lexical  names in every language and the brand, a said word whole (1) or inside a compound (0.5)
  typo     a said word no product has, corrected (rapidfuzz) to the nearest word one does
  words    BM25 over names, brand and description: any word, rarer words weigh more
  standard BM25 over the same text as a standard setup reads it (engines.lexical.standard_tokenize:
           lower-case words, English stopwords out, Snowball stems: "batteries" meets "battery");
           it weighs STANDARD_WEIGHT in the fusion (free-text catalogues such as Icecat are ranked
           best by it: dev nDCG@10 0.723 alone against 0.642 for the fusion without it)
  translated  the lexical source over the narrowing words' alternatives: the same words in the other
           two languages from Fineli's aligned names ("appelsiini": orange, apelsin; "oat": kaura, havre)
  kinds    the knowledge map's kinds the words name (then their stand-ins), lifted by a named use
  vectors  the local embedder over one text per product (names, brand, kind, claims)
  code     a product code said outright
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz, process

from engines.fusion import rrf
from engines.knobs import value_of
from engines.lexical import BM25Index, standard_tokenize, top_of
from engines.products.catalogue import Catalogue, Product
from engines.products.knowledge import KnowledgeMap, words
from engines.products.request import Request
from engines.products.rules import RuleMasks
from engines.products.vocabulary import CLAIMS, STOPWORDS

SOURCES = ("code", "lexical", "typo", "words", "standard", "translated", "kinds", "vectors")
# How much of each list takes part in the fusion: the kinds list can hold a whole aisle (a request
# for "milk" names every milk), the others are precise at their heads and noisy in their tails.
QUOTAS = {"code": 5, "lexical": 60, "typo": 30, "words": 60, "standard": 60, "translated": 60, "kinds": 120,
          "vectors": 40}
# The standard BM25 leg counts three times in the fusion (every other source once); it takes part
# only when the request names no kind (below, in ``recall``). Chosen on the Icecat dev ratings only (fused order, nDCG@10: weight 1 0.671, 2 0.698,
# 3 0.715).
STANDARD_WEIGHT = 3.0
WEIGHTS = {"standard": STANDARD_WEIGHT}
RRF_K = 60  # the constant of Cormack et al.; not tuned here
TYPO_CUTOFF = 80  # rapidfuzz ratio: "mozarella" -> "mozzarella" 95, "yogourt" -> "yogurt" 92, "gin" -> "gun" 67
RARE = 3  # a word in fewer products than this is looked for in the other languages too ("oat": one Fineli name)
COMPOUND_MIN = 4  # a said word this long is also looked for inside compounds ("maito" in "täysmaito")


def product_text(product: Product, knowledge: KnowledgeMap) -> str:
    """The one text a product is embedded by: names, brand, its kind in three languages, its claims."""
    kinds = "; ".join(knowledge.kind_text(k) for k in product.kinds[:2])
    claims = ", ".join(CLAIMS[c] for c in product.claims if c in CLAIMS)
    parts = [" / ".join(product.all_names()), product.brand, kinds, claims]
    return ". ".join(p for p in parts if p)


@dataclass
class Recall:
    fused: list[tuple[int, float, dict[str, int]]]  # (catalogue position, fused score, {source: rank})
    lists: dict[str, list[int]]
    status: dict[str, str] = field(default_factory=dict)  # source -> answered | empty | skipped | unavailable
    reasons: dict[str, str] = field(default_factory=dict)
    corrections: dict[str, str] = field(default_factory=dict)  # typo: said word -> corrected word
    ms: dict[str, float] = field(default_factory=dict)


class RecallIndex:
    """Everything recall needs over one catalogue, built once."""

    def __init__(self, catalogue: Catalogue, knowledge: KnowledgeMap) -> None:
        self.catalogue = catalogue
        self.knowledge = knowledge
        products = catalogue.products
        self.masks = RuleMasks(products, knowledge)
        postings: dict[str, set[int]] = defaultdict(set)
        docs: list[list[str]] = []
        for i, p in enumerate(products):
            name_words = [w for n in p.all_names() for w in words(n)] + list(words(p.brand))
            for w in name_words:
                postings[w].add(i)
            docs.append(name_words + list(words(p.description)))
        self.postings = {w: np.fromiter(sorted(ids), np.int64) for w, ids in postings.items()}
        self.vocabulary = sorted(self.postings)
        self.bm25 = BM25Index(docs)
        self.standard = BM25Index([standard_tokenize(" ".join([*p.all_names(), p.brand, p.description]))
                                   for p in products])
        self.members: dict[str, list[int]] = defaultdict(list)  # kind -> positions, primary kind first
        secondary: dict[str, list[int]] = defaultdict(list)
        for i, p in enumerate(products):
            for rank, kind in enumerate(p.kinds):
                (self.members if rank == 0 else secondary)[kind].append(i)
        for kind, extra in secondary.items():
            self.members[kind].extend(extra)
        self.name_length = np.array([len(p.name) for p in products], dtype=np.int64)
        self._compounds: dict[str, list[str]] = {}

    # -- the sources ---------------------------------------------------------------------------
    def lexical(self, said: tuple[str, ...], allowed: np.ndarray) -> tuple[list[int], np.ndarray]:
        score = np.zeros(len(allowed), np.float32)
        for w in said:
            if w in self.postings:
                score[self.postings[w]] += 1.0
            if len(w) >= COMPOUND_MIN:
                for inside in self._inside(w):
                    score[self.postings[inside]] += 0.5
        score = np.where(allowed, score, 0.0)
        # ties: the shorter name first (a name that is mostly the said words), then catalogue order
        score = score - np.minimum(self.name_length, 200) * 1e-4 * (score > 0)
        return [i for i, _ in top_of(score, QUOTAS["lexical"])], score

    def _inside(self, w: str) -> list[str]:
        found = self._compounds.get(w)
        if found is None:
            found = [v for v in self.vocabulary if w in v and v != w]
            self._compounds[w] = found
        return found

    def typo(self, said: tuple[str, ...], allowed: np.ndarray) -> tuple[list[int], dict[str, str]]:
        corrections: dict[str, str] = {}
        for w in said:
            if w in self.postings or len(w) < 4 or w.isdigit():
                continue
            best = process.extractOne(w, self.vocabulary, scorer=fuzz.ratio,
                                      score_cutoff=value_of("products", "typo_cutoff", TYPO_CUTOFF))
            if best:
                corrections[w] = best[0]
        if not corrections:
            return [], corrections
        ranked, _ = self.lexical(tuple(corrections.values()), allowed)
        return ranked[: QUOTAS["typo"]], corrections

    def translated(self, request: Request, allowed: np.ndarray) -> list[int]:
        """Lexical over the alternatives of the narrowing words, with the kinds' and the words' own said
        words beside them (an alternative alone would rank "appelsiini" products over orange juices)."""
        # only for words this catalogue holds rarely or not at all: where it holds them, the other word sources speak
        # for them already, and a second lexical list would weigh them twice (Icecat's English words:
        # recall dev right first 74.3 -> 72.9 % with every word's translations in)
        extra = tuple(dict.fromkeys(t for w, alts in request.alternatives.items()
                                    if len(self.postings.get(w, ())) < RARE for t in alts))
        if not extra:
            return []
        ranked, _ = self.lexical(extra + request.said, allowed)
        return ranked[: QUOTAS["translated"]]

    def words(self, request: Request, allowed: np.ndarray) -> list[int]:
        query = [w for w in words(request.text) if w not in STOPWORDS and w not in request.excluded]
        scores = self.bm25.scores(query)
        return [i for i, _ in top_of(np.where(allowed, scores, 0.0), QUOTAS["words"])]

    def joined(self, said: tuple[str, ...]) -> tuple[str, ...]:
        """Two adjacent said words that some product writes as one ("smart watch": Smartwatch,
        "head set": Headset), as that one word: looked for beside the words as said."""
        return tuple(a + b for a, b in zip(said, said[1:]) if a + b in self.postings)

    def standard_words(self, request: Request, allowed: np.ndarray) -> list[int]:
        """BM25 as a standard setup ships it: the request's words through ``standard_tokenize``
        (and two adjacent words some product writes as one, as that word)."""
        query = standard_tokenize(request.text) + [t for j in self.joined(request.said) for t in standard_tokenize(j)]
        scores = self.standard.scores(query)
        return [i for i, _ in top_of(np.where(allowed, scores, 0.0), QUOTAS["standard"])]

    def kinds(self, request: Request, allowed: np.ndarray, lexical_score: np.ndarray) -> list[int]:
        ranked: list[int] = []
        if request.kinds:
            wanted = list(request.kinds)
            standins = [s for k in request.kinds for s in self.knowledge.kinds[k].standins if s not in wanted]
            # a stand-in the map ties to the named use comes first ("plant drink for coffee": milk serves coffee)
            standins.sort(key=lambda s: -sum(self.knowledge.serves(s, u) for u in request.uses))
            wanted += list(dict.fromkeys(standins))
        elif request.uses:
            wanted = [k for k, kind in self.knowledge.kinds.items() if all(u in kind.uses for u in request.uses)]
        else:
            return []
        seen: set[int] = set()
        for tier, kind in enumerate(wanted):
            members = [i for i in self.members.get(kind, ()) if allowed[i] and i not in seen]
            # within a kind: the products whose names carry the said words first
            members.sort(key=lambda i: -float(lexical_score[i]))
            ranked.extend(members)
            seen.update(members)
            if len(ranked) >= QUOTAS["kinds"]:
                break
        return ranked[: QUOTAS["kinds"]]

    def code(self, request: Request, allowed: np.ndarray) -> list[int]:
        if not request.code:
            return []
        found = self.catalogue.find_code(request.code)
        return [found] if found is not None and allowed[found] else []

    # -- all at once ---------------------------------------------------------------------------
    def recall(self, request: Request, vectors=None, sources: tuple[str, ...] = SOURCES,
               allowed: np.ndarray | None = None, words=None) -> Recall:
        """Every source inside the rules, fused. ``vectors``: a callable (request, allowed) -> (list, status, reason).

        ``words``: a callable (request, allowed) -> list answering the BM25 source instead of this index
        (a recall backend that holds the catalogue elsewhere, engines/products/backends/)."""
        allowed = self.masks.allowed(request) if allowed is None else allowed
        lists: dict[str, list[int]] = {}
        status: dict[str, str] = {}
        reasons: dict[str, str] = {}
        ms: dict[str, float] = {}
        corrections: dict[str, str] = {}

        def timed(name, fn):
            t = time.perf_counter()
            out = fn()
            ms[name] = round((time.perf_counter() - t) * 1000, 3)
            return out

        lexical_score = np.zeros(len(allowed), np.float32)
        if "code" in sources and request.code:
            lists["code"] = timed("code", lambda: self.code(request, allowed))
            # a code said outright is a lookup: no vectors, no other sources
            sources = ("code",)
        if "lexical" in sources:
            said = request.said + self.joined(request.said)
            lists["lexical"], lexical_score = timed("lexical", lambda: self.lexical(said, allowed))
        if "typo" in sources:
            lists["typo"], corrections = timed("typo", lambda: self.typo(request.said, allowed))
        if "words" in sources:
            lists["words"] = timed("words", lambda: (words or self.words)(request, allowed))
        if "translated" in sources:
            lists["translated"] = timed("translated", lambda: self.translated(request, allowed))
        if "standard" in sources:
            lists["standard"] = timed("standard", lambda: self.standard_words(request, allowed))
        if "kinds" in sources:
            # within a kind, the products whose names carry the narrowing words too ("nötfärs": nöt) come first
            narrowing = tuple(f for f in request.forms if f not in request.said)
            within = self.lexical(request.said + narrowing, allowed)[1] if narrowing else lexical_score
            lists["kinds"] = timed("kinds", lambda: self.kinds(request, allowed, within))
        if "vectors" in sources and vectors is not None and request.text.strip():
            found, state, reason = timed("vectors", lambda: vectors(request, allowed))
            lists["vectors"] = found
            if state != "answered":
                status["vectors"], reasons["vectors"] = state, reason or ""
        for name, ids in lists.items():
            status.setdefault(name, "answered" if ids else "empty")
        named = {name: [str(i) for i in ids] for name, ids in lists.items()}
        # the standard leg takes part only for words the knowledge map reads no kind in: where it names
        # one, the kinds list holds the aisle, and two word sources (lexical, words) already speak for
        # the words (food set recall, dev: 97.3 % without the leg, 96.4 % with it weighing 1, 94.2 % 3)
        quotas = {**QUOTAS, "vectors": value_of("products", "vectors_quota", QUOTAS["vectors"]),
                  **({"standard": 0} if request.kinds else {})}  # knobs: engines/products/knobs.py
        weights = {"standard": value_of("products", "standard_weight", STANDARD_WEIGHT)}
        fused = [(int(doc), score, ranks) for doc, score, ranks
                 in rrf(named, k=value_of("products", "rrf_k", RRF_K), quotas=quotas, weights=weights)]
        return Recall(fused, lists, status, reasons, corrections, ms)
