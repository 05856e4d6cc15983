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
from collections import Counter
from functools import lru_cache
from itertools import chain
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
    return tokenize(name)


def tokenize(text: str, stem: bool = False) -> list[str]:
    """Folded words of ``text``, identifiers split into their parts; ``stem``: light suffix stripping."""
    return words_of(word_runs(text), stem)


# Runs of word characters, accents off: the unit the word caches below are keyed by. A word part
# never crosses a run's edge, so splitting run by run gives the words splitting the whole text does.
_RUN_ASCII = re.compile(r"[A-Za-z0-9_]+")  # \w on ASCII text, 3x faster than \w+ (pandoc's 3.8 MB)
_RUN = re.compile(r"\w+")


def word_runs(text: str) -> list[str]:
    if text.isascii():
        return _RUN_ASCII.findall(text)
    return _RUN.findall(_strip_accents(text))


def words_of(runs: list[str], stem: bool = False) -> list[str]:
    """The words of these runs, in order (``tokenize`` once the runs are found)."""
    return list(chain.from_iterable(map(_WORDS_OF[stem].__getitem__, runs)))


class RunCache(dict):
    """A run of word characters -> what it reads as, worked out the first time the run is seen.

    ``map`` over the bound ``__getitem__`` does the lookups in C, so only a new run costs Python:
    the BM25 documents of the 8 largest-source semble repositories took 6.3 s CPU with the words
    split, folded and stemmed one by one. Bounded: past LIMIT distinct runs it starts again. An entry
    holds ~115 bytes (tracemalloc: the code tier's caches after zig, abseil-cpp, laravel, pandoc and
    cats, 367,429 entries, 42 MB), so each cache stays under ~12 MB in a long-lived process (the
    workbench, the MCP server, each parse worker); a higher bound mostly saved refilling between
    repositories, not within one."""

    LIMIT = 100_000

    def __init__(self, read) -> None:
        super().__init__()
        self.read = read

    def __missing__(self, run: str) -> tuple[str, ...]:
        if len(self) >= self.LIMIT:
            self.clear()
        value = self[run] = self.read(run)
        return value


def _parts(run: str) -> tuple[str, ...]:
    return tuple(part.casefold() for part in _PARTS.findall(run))


def _stemmed_parts(run: str) -> tuple[str, ...]:
    return tuple(stem_word(part.casefold()) for part in _PARTS.findall(run))


_WORDS_OF = {False: RunCache(_parts), True: RunCache(_stemmed_parts)}


def run_words(stem: bool) -> RunCache:
    """The cache ``tokenize`` reads a run's words from (a caller may build its own on top of it)."""
    return _WORDS_OF[stem]


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
    """BM25 over pre-tokenised documents (bm25s: a sparse document-term matrix, numpy backend).

    bm25s scores the queries; the matrix is built here from each document's word counts, with
    bm25s's Lucene formulas, in a few numpy passes: bm25s's own ``index`` counts every document's
    tokens in a Python loop (2.6 s CPU for the 8 largest-source semble repositories against 0.6 s
    here). The scores are bm25s's own (tests/engines/test_lexical.py; cobra: max difference 0)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self._build([Counter(d) for d in docs], k1, b)

    @classmethod
    def from_counts(cls, counts: Sequence[dict[str, int]], k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        """The index of documents given as word -> count (the code tier's ``symbol_counts``)."""
        index = cls.__new__(cls)
        index._build(counts, k1, b)
        return index

    def _build(self, counts: Sequence[dict[str, int]], k1: float, b: float) -> None:
        self.size = len(counts)
        self._model = None
        words = list(chain.from_iterable(counts))  # every document's distinct words, in order
        if not words:
            return
        # Word ids in order of first appearance, every step a C loop but the one over distinct words
        # (a setdefault per word per document was 3.0 of 4.4 s for zig, abseil-cpp and 5 more).
        vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
        terms = list(map(vocab.__getitem__, words))
        tfs = list(chain.from_iterable(map(dict.values, counts)))
        sizes = list(map(len, counts))
        term = np.asarray(terms, dtype=np.int32)
        doc = np.repeat(np.arange(len(counts), dtype=np.int32), sizes)
        self._set_model(len(counts), vocab, term, doc, np.asarray(tfs, dtype=np.float32), k1, b)

    @classmethod
    def from_entries(cls, n_docs: int, vocab: dict[str, int], term: np.ndarray, doc: np.ndarray, tf: np.ndarray,
                     k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        """The index of documents given as (word id, document, count) entries, each document's entries
        together in document order (a saved words index, engines/notes/store.py): the same scores as
        building it from the words, without a Python loop over them."""
        index = cls.__new__(cls)
        index.size, index._model = n_docs, None
        if len(term):
            index._set_model(n_docs, vocab, term, doc, np.asarray(tf, dtype=np.float32), k1, b)
        return index

    @classmethod
    def from_matrix(cls, n_docs: int, vocab: dict[str, int], matrix: dict[str, np.ndarray],
                    k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        """The index from its saved score matrix (``matrix()``: arrays that may be memory-mapped)."""
        import bm25s

        index = cls.__new__(cls)
        index.size, index._model = n_docs, None
        if len(matrix["data"]):
            model = bm25s.BM25(k1=k1, b=b, method="lucene")
            model.scores = {"data": matrix["data"], "indices": matrix["indices"], "indptr": matrix["indptr"],
                            "num_docs": n_docs}
            model.vocab_dict = vocab
            model.nonoccurrence_array = None
            index._model = model
        return index

    def matrix(self) -> dict[str, np.ndarray] | None:
        """The score matrix (word-major CSR: data, indices, indptr), to be saved; None for no words."""
        if self._model is None:
            return None
        return {k: self._model.scores[k] for k in ("data", "indices", "indptr")}

    def _set_model(self, n_docs: int, vocab: dict[str, int], term: np.ndarray, doc: np.ndarray, tf: np.ndarray,
                   k1: float, b: float) -> None:
        import bm25s  # imported here: only engines that rank lexically pay for it

        n_vocab = len(vocab)
        df = np.bincount(term, minlength=n_vocab)
        doc_len = np.bincount(doc, weights=tf, minlength=n_docs)
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)  # Lucene's idf, as bm25s
        tfc = tf / (k1 * ((1 - b) + b * doc_len[doc] / doc_len.mean()) + tf)  # Robertson's tf part
        # column by column (one per word), documents in order: the entries come document by document
        # (``doc`` never decreases), so a stable sort by word alone gives lexsort((doc, term))'s order,
        # in numpy's radix sort for int32 (100,000 notes' 8M entries: 2.9 s with lexsort)
        order = np.argsort(term, kind="stable")
        model = bm25s.BM25(k1=k1, b=b, method="lucene")
        model.scores = {"data": (idf[term] * tfc).astype(np.float32)[order], "indices": doc[order],
                        "indptr": np.concatenate(([0], np.cumsum(df))).astype(np.int64), "num_docs": n_docs}
        model.vocab_dict = vocab
        model.nonoccurrence_array = None  # Lucene's BM25 has no score for absent words
        self._model = model

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
