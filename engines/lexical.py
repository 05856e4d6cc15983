"""Words for lexical search: case and accent folding, identifier splitting, light stemming, and BM25.

Shared by the code and products engines. ``tokenize`` turns text (prose or source) into folded
words, with ``snake_case``, ``CamelCase`` and digit runs split into their parts, so the query
"rate limit" meets ``RateLimiter`` and ``rate_limit``. ``BM25Index`` ranks pre-tokenised documents.

The BM25 library was chosen by measurement (`.venv/bin/python -m engines.eval.code_tune --part library`:
the 6,267 CoSQA functions, 500 dev queries, same tokens, 2 shared cores): bm25s answered 26,619
queries/s (0.04 ms each) against rank-bm25's 367 (2.7 ms), with the same quality (MRR@10 0.350 against
0.351); bm25s builds slower (139 ms against 60 ms), once. It scores from a precomputed sparse matrix
where rank-bm25 loops over every document per query word. An earlier run under load: 14,005 against
69 queries/s.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Sequence

import numpy as np

# Words: an ASCII upper-case run that ends before Upper+lower (HTTP in HTTPServer), a word of
# lower-case letters (any non-ASCII letter counts as one) after at most one capital, an upper-case
# run, or a digit run. Underscores, punctuation and spaces fall between words.
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+")


def fold(text: str) -> str:
    """Case-fold and strip accents: "Crème BRÛLÉE" -> "creme brulee"."""
    return _strip_accents(text.casefold())


def _strip_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def split_identifier(name: str) -> list[str]:
    """``rate_limit`` -> rate limit; ``RateLimiter`` -> rate limiter; ``HTTP2Stream`` -> http 2 stream."""
    # One regex pass over the whole text, then one lower() over the joined parts: 3x faster than
    # splitting word by word (1.9 s -> 0.6 s for the 6,267 CoSQA functions' documents).
    parts = _PARTS.findall(_strip_accents(name))  # accents off first: "BRÛLÉE" stays one word
    if not parts:
        return []
    return " ".join(parts).casefold().split()


def tokenize(text: str, stem: bool = False) -> list[str]:
    """Folded words of ``text``, identifiers split into their parts; ``stem``: light suffix stripping."""
    words = split_identifier(text)
    if stem:
        return [stem_word(w) for w in words]
    return words


@lru_cache(maxsize=65536)
def stem_word(word: str) -> str:
    """A light English stemmer: plurals, -ing, -ed, -ly (``limiting`` -> limit, ``retries`` -> retry).

    Deliberately weaker than Porter: it never touches words of four letters or fewer, so code
    words such as ``args``, ``bytes`` -> ``byte`` stay recognisable and short names stay whole.
    """
    if len(word) <= 4 or not word.isalpha():
        return word
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""), ("ed", ""), ("ly", ""),
                         ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not word.endswith(("tches", "shes", "xes", "sses", "zes")):
                continue  # "matches" -> "match", but "caches" -> "cache" by the plain "s" rule
            base = word[: len(word) - len(suffix)] + keep
            if suffix in ("ing", "ed") and len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # "stopped" -> "stop", "running" -> "run"; "called" keeps "call"
            return base
    return word


# The analyzer a standard BM25 setup ships (bm25s.tokenize with PyStemmer's Snowball English stemmer and
# bm25s's English stopwords): words of two or more word characters, lower-cased, stopwords out,
# stemmed. The evaluation baselines use it so they are what people would build, not our tuned reading;
# with it, `bm25` reproduces the plain baselines (vaswani nDCG@10 0.428, cranfield 0.373 over
# title + abstract as written).
_STANDARD_WORD = re.compile(r"(?u)\b\w\w+\b")


@lru_cache(maxsize=1)
def _standard_parts():
    import Stemmer  # PyStemmer: the Snowball stemmers in C, the stemmer bm25s documents
    from bm25s.stopwords import STOPWORDS_EN

    # No word cache (PyStemmer keeps 10,000 by default): it saved only 0.13 s against 0.16 s over
    # Vaswani's 11,429 notes, and it grew the heap by every new word a flood of notes brought in,
    # which the flood test (tests/reliability/test_reliability_flood.py) rightly reads as memory not given back.
    return Stemmer.Stemmer("english", 0), frozenset(STOPWORDS_EN)


def standard_tokenize(text: str) -> list[str]:
    """``text`` as a standard English BM25 setup reads it: lower-case words, no stopwords, Snowball stems."""
    stemmer, stopwords = _standard_parts()
    return stemmer.stemWords([w for w in _STANDARD_WORD.findall(text.lower()) if w not in stopwords])


class BM25Index:
    """BM25 over pre-tokenised documents (bm25s: a sparse document-term matrix, numpy backend)."""

    def __init__(self, docs: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.size = len(docs)
        self._model = None
        if any(docs):
            import bm25s  # imported here: only engines that rank lexically pay for it

            self._model = bm25s.BM25(k1=k1, b=b, method="lucene")
            self._model.index([list(d) for d in docs], show_progress=False)

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """One score per document (0 where no query word occurs)."""
        model = self._model
        if model is None:
            return np.zeros(self.size, dtype=np.float32)
        ids = [model.vocab_dict[w] for w in query if w and w in model.vocab_dict]
        if not ids:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(model.get_scores_from_ids(ids), dtype=np.float32)

    def top(self, query: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The best ``k`` documents with a score above 0, best first (ties: corpus order)."""
        return top_of(self.scores(query), k)


def top_of(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` highest positive scores as (index, score), best first, ties by index."""
    if k <= 0 or scores.size == 0:
        return []
    positive = np.flatnonzero(scores > 0)
    if positive.size > k:
        positive = positive[np.argpartition(-scores[positive], k - 1)[:k]]
    order = sorted(positive.tolist(), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]
