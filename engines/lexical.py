"""Words for lexical search: case and accent folding, identifier splitting, stemming (light for notes and
products, Snowball for code), and BM25.

Shared by the code and products engines. ``tokenize`` turns text (prose or source) into folded
words, with ``snake_case``, ``CamelCase`` and digit runs split into their parts, so the query
"rate limit" meets ``RateLimiter`` and ``rate_limit``. ``BM25Index`` ranks pre-tokenised documents.

The BM25 library was chosen by measurement (`.venv/bin/python -m engines.eval.tuning.code_fields --part library`:
the 6,267 CoSQA functions, 500 dev queries, same tokens, 2 shared cores): bm25s answered 26,619
queries/s (0.04 ms each) against rank-bm25's 367 (2.7 ms), with the same quality (MRR@10 0.350 against
0.351); bm25s builds slower (139 ms against 60 ms), once. It scores from a precomputed sparse matrix
where rank-bm25 loops over every document per query word. An earlier run under load: 14,005 against
69 queries/s.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from functools import lru_cache
from itertools import chain
from typing import Callable, Sequence

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


def tokenize(text: str, stem: bool | str = False) -> list[str]:
    """Folded words of ``text``, identifiers split into their parts; ``stem``: True for light suffix
    stripping (``stem_word``), ``SNOWBALL`` for the code engine's Snowball stems (``snowball_word``)."""
    return words_of(word_runs(text), stem)


# Runs of word characters, accents off: the unit the word caches below are keyed by. A word part
# never crosses a run's edge, so splitting run by run gives the words splitting the whole text does.
_RUN_ASCII = re.compile(r"[A-Za-z0-9_]+")  # \w on ASCII text, 3x faster than \w+ (pandoc's 3.8 MB)
_RUN = re.compile(r"\w+")


def word_runs(text: str) -> list[str]:
    if text.isascii():
        return _RUN_ASCII.findall(text)
    return _RUN.findall(_strip_accents(text))


def words_of(runs: list[str], stem: bool | str = False) -> list[str]:
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


def _stemmed_parts(stem) -> Callable[[str], tuple[str, ...]]:
    return lambda run: tuple(stem(part.casefold()) for part in _PARTS.findall(run))


SNOWBALL = "snowball"  # a ``stem`` value: the code engine's stemmer (engines/code/words.py)


def run_words(stem: bool | str) -> RunCache:
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


_SNOWBALL = threading.local()  # PyStemmer's stemmers are not to be shared between threads (its docs)


@lru_cache(maxsize=65536)
def snowball_word(word: str) -> str:
    """Snowball's English stem (PyStemmer) of a word of five letters or more: ``confirmation`` ->
    confirm, ``tokenizer`` -> token. Words of four letters or fewer, and words with digits, stay whole
    as ``stem_word`` keeps them (``args``, ``utf8``)."""
    if len(word) <= 4 or not word.isalpha():
        return word
    stemmer = getattr(_SNOWBALL, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _SNOWBALL.stemmer = Stemmer.Stemmer("english", 0)  # no cache of its own: lru_cache above
    return stemmer.stemWord(word)


_WORDS_OF = {False: RunCache(_parts), True: RunCache(_stemmed_parts(stem_word)),
             SNOWBALL: RunCache(_stemmed_parts(snowball_word))}


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
        self._model = self._tf = None
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
        self._score(term, doc, np.asarray(tfs, dtype=np.float32), len(counts), vocab, k1, b)

    @classmethod
    def from_rows(cls, doc_first: np.ndarray, terms: np.ndarray, counts: np.ndarray, vocab: dict[str, int],
                  k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        """The index of documents given as a sparse matrix's rows: document i's words are the ids
        ``terms[doc_first[i]:doc_first[i+1]]`` of ``vocab`` (word -> id), each ``counts`` times. Scores
        are those ``from_counts`` gives the same documents (ids in another order change no sum)."""
        index = cls.__new__(cls)
        index.size = n_docs = len(doc_first) - 1
        index._model = index._tf = None
        if len(terms):
            doc = np.repeat(np.arange(n_docs, dtype=np.int32), np.diff(doc_first))
            index._score(np.asarray(terms, dtype=np.int32), doc, np.asarray(counts, dtype=np.float32), n_docs,
                         vocab, k1, b, keep=True)
        return index

    @classmethod
    def from_entries(cls, n_docs: int, vocab: dict[str, int], term: np.ndarray, doc: np.ndarray, tf: np.ndarray,
                     k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        """The index of documents given as (word id, document, count) entries, each document's entries
        together in document order (a saved words index, engines/notes/store.py): the same scores as
        building it from the words, without a Python loop over them."""
        index = cls.__new__(cls)
        index.size, index._model, index._tf = n_docs, None, None
        if len(term):
            index._score(np.asarray(term, dtype=np.int32), np.asarray(doc, dtype=np.int32),
                         np.asarray(tf, dtype=np.float32), n_docs, vocab, k1, b)
        return index

    @classmethod
    def from_matrix(cls, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, tf: np.ndarray | None,
                    n_docs: int, vocab: dict[str, int], k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        """An index whose word-major score matrix was kept (``matrix()`` of an index of the same
        documents): nothing computed."""
        import bm25s

        index = cls.__new__(cls)
        index.size, index._words = n_docs, len(indptr) - 1
        if not len(data):  # no word in any document: nothing to score
            index._model = index._tf = None
            return index
        model = bm25s.BM25(k1=k1, b=b, method="lucene")
        model.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": n_docs}
        model.vocab_dict = vocab
        model.nonoccurrence_array = None
        index._model, index._tf = model, tf
        return index

    def matrix(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None:
        """(data, indices, indptr, counts or None) of the word-major matrix; None for an empty index."""
        if self._model is None:
            return None
        scores = self._model.scores
        return scores["data"], scores["indices"], scores["indptr"], getattr(self, "_tf", None)

    def _score(self, term: np.ndarray, doc: np.ndarray, tf: np.ndarray, n_docs: int, vocab: dict[str, int],
               k1: float, b: float, keep: bool = False) -> None:
        """bm25s's Lucene scores of every (document, word) pair, as its word-major sparse matrix."""
        order = _word_major(term)  # column by column (one per word), documents in order
        self._fill(term[order], doc[order], tf[order], n_docs, vocab, k1, b, keep)

    def _fill(self, term: np.ndarray, doc: np.ndarray, tf: np.ndarray, n_docs: int, vocab: dict[str, int],
              k1: float, b: float, keep: bool) -> None:
        """The matrix from its entries in word-major order; ``keep``: hold on to the counts (``patched``)."""
        import bm25s  # imported here: only engines that rank lexically pay for it

        n_vocab = self._words = len(vocab)
        df = np.bincount(term, minlength=n_vocab)
        doc_len = np.bincount(doc, weights=tf, minlength=n_docs)  # whole counts: exact in any order
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)  # Lucene's idf, as bm25s
        # Robertson's tf part; the length norm worked out once a document, then spread (the same float64
        # operations on the same values as per entry: the same bits, three passes over the entries fewer)
        norm = k1 * ((1 - b) + b * doc_len / doc_len.mean())
        tfc = tf / (norm[doc] + tf)
        model = bm25s.BM25(k1=k1, b=b, method="lucene")
        model.scores = {"data": (idf[term] * tfc).astype(np.float32), "indices": doc,
                        "indptr": np.concatenate(([0], np.cumsum(df))).astype(np.int64), "num_docs": n_docs}
        model.vocab_dict = vocab
        model.nonoccurrence_array = None  # Lucene's BM25 has no score for absent words
        self._model = model
        self._tf = tf if keep else None

    def patched(self, old_to_new: np.ndarray, n_docs: int, terms: np.ndarray, docs: np.ndarray, counts: np.ndarray,
                vocab: dict[str, int], k1: float = 1.5, b: float = 0.75) -> "BM25Index | None":
        """This index with its documents renumbered (``old_to_new``: each old document's new number, -1
        for one gone) and new documents' entries added (word ids, new document numbers, counts): the
        scores ``from_rows`` gives the new documents, without its sort over every entry (a watcher's
        edit of one file in a 180,000-symbol tree). None when it cannot be patched (no counts kept,
        documents reordered): build it again."""
        model, kept_tf = self._model, getattr(self, "_tf", None)
        alive = old_to_new[old_to_new >= 0]
        if model is None or kept_tf is None or (alive.size > 1 and bool(np.any(np.diff(alive) <= 0))):
            return None
        indptr, old_docs = model.scores["indptr"], model.scores["indices"]
        renumbered = old_to_new.astype(np.int32, copy=False)[old_docs]
        keep = renumbered >= 0
        removed = np.flatnonzero(~keep)  # few: the replaced files' entries; their words found by bisection
        gone = np.bincount(np.searchsorted(indptr, removed, side="right") - 1, minlength=len(indptr) - 1)
        kept_ptr = indptr - np.concatenate(([0], np.cumsum(gone)))
        term = np.repeat(np.arange(len(indptr) - 1, dtype=np.int32), np.diff(kept_ptr))
        doc, tf = renumbered[keep], kept_tf[keep]
        order = np.lexsort((docs, terms))
        new_term, new_doc = terms[order].astype(np.int32), docs[order].astype(np.int32)
        # Where each new entry goes: within its word's run of documents (few entries: a Python loop over
        # them, not a key over every entry).
        limit = len(kept_ptr) - 1
        at = np.array([kept_ptr[t] + np.searchsorted(doc[kept_ptr[t]:kept_ptr[t + 1]], d) if t < limit
                       else len(doc) for t, d in zip(new_term.tolist(), new_doc.tolist())], dtype=np.int64)
        index = BM25Index.__new__(BM25Index)
        index.size, index._model = n_docs, None
        at = at.tolist()
        index._fill(_insert_at(term, at, new_term), _insert_at(doc, at, new_doc),
                    _insert_at(tf, at, counts[order].astype(np.float32)), n_docs, vocab, k1, b, keep=True)
        return index

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """One score per document (0 where no query word occurs)."""
        model = self._model
        if model is None:
            return np.zeros(self.size, dtype=np.float32)
        vocab, known = model.vocab_dict, self._words
        # ``known``: the words there were when the matrix was built; a shared vocabulary may have grown since
        ids = [vocab[w] for w in query if w and w in vocab and vocab[w] < known]
        if not ids:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(model.get_scores_from_ids(ids), dtype=np.float32)

    def top(self, query: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The best ``k`` documents with a score above 0, best first (ties: corpus order)."""
        return top_of(self.scores(query), k)


def _insert_at(values: np.ndarray, at: list[int], new: np.ndarray) -> np.ndarray:
    """``np.insert(values, at, new)`` for sorted ``at``, as one copy per run between insertions: an edit
    inserts a few thousand entries among millions, where np.insert's mask over every entry took 0.08 s
    a call (the monorepo, three calls an edit)."""
    out = np.empty(len(values) + len(new), dtype=values.dtype)
    start = 0
    for i, position in enumerate(at):
        out[start + i:position + i] = values[start:position]
        out[position + i] = new[i]
        start = position
    out[start + len(at):] = values[start:]
    return out


def _word_major(term: np.ndarray) -> np.ndarray:
    """The order that sorts entries by word id, keeping document order within a word (they come
    document by document): two stable passes over 16-bit halves, which numpy sorts by radix in linear
    time, where one ``lexsort`` over (document, word) took most of a large index's build."""
    low = np.argsort((term & 0xFFFF).astype(np.uint16), kind="stable")
    high = np.argsort((term[low] >> 16).astype(np.uint16), kind="stable")
    return low[high]


def top_of(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` highest positive scores as (index, score), best first, ties by index."""
    if k <= 0 or scores.size == 0:
        return []
    positive = np.flatnonzero(scores > 0)
    if positive.size > k:
        positive = positive[np.argpartition(-scores[positive], k - 1)[:k]]
    order = sorted(positive.tolist(), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]
