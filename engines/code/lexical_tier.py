"""The lexical tier: BM25 over symbol documents whose fields are weighted by repetition.

A symbol's document is its name words, docstring, signature (with decorators and bases) and own
source, each field's words repeated by the field's weight: BM25F's idea at plain BM25's price (one
index, one lookup per query word). Built inline, before the first answer.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Mapping, Sequence

from engines.gcpause import paused_gc
from engines.knobs import value_of
from engines.code.ranking import CodeShape, rerank
from engines.code.symbols import Symbol
from engines.code.words import STEM
from engines.lexical import BM25Index, RunCache, run_words, tokenize, word_runs

TIER = "lexical"

# Repeats per field, chosen on CoSQA dev-500 only (`.venv/bin/python -m engines.eval.tuning.code_fields --part
# lexical`; 48 settings). The source already holds the def line and the docstring, so with every
# field once, name, docstring and signature words count twice and body words once. MRR@10: all once
# 0.347; name 2 0.350 (recall@10 0.552); name 5 0.350; docstring 2 lost (0.335), docstring 3 more so
# (0.324): CoSQA's web queries are phrased unlike docstrings. Name 2 is the smallest weight within
# 0.001 of the best. Stemming: +0.016 (name 2 unstemmed 0.331), Snowball's since 2026-12-06 (words.py).
# "path": the words of the file's name and folder, once (semble dev, 42 repositories, mean NDCG@10:
# +0.002, 0.8239 -> 0.8258); CoSQA's functions have no path, so nothing changes there.
FIELD_WEIGHTS: Mapping[str, int] = {"name": 2, "docstring": 1, "signature": 1, "body": 1, "path": 1}
# Whole identifiers as words too (``RateLimiter`` -> ratelimiter beside rate, limiter): the exact name
# outranks a chunk that only holds its parts. semble dev 0.8170 -> 0.8258, symbol queries 0.944 ->
# 0.950. In bodies only CamelCase ones: snake_case compounds there lengthened CoSQA's Python
# functions enough to cost its lexical MRR@10 0.350 -> 0.343 (CamelCase only: 0.348, within noise).
COMPOUNDS = True
PATH_DEPTH = 2  # the file and its folder
RERANK_POOL = 100  # BM25's head that the code-aware ranking re-orders (semble dev: 50 0.813, 200 0.813, 400 0.816)
# BM25 parameters: the libraries' defaults (not tuned).
K1, B = 1.5, 0.75


def bm25_in_force() -> dict[str, float]:
    """k1 and b in force (engines/code/knobs.py's bm25_k1 and bm25_b, a corpus's own or config.toml's):
    K1 and B are their defaults."""
    return {"k1": value_of("code", "bm25_k1", K1), "b": value_of("code", "bm25_b", B)}


def symbol_counts(symbol: Symbol, weights: Mapping[str, int] = FIELD_WEIGHTS,
                  stem: bool | str = STEM) -> dict[str, int]:
    """The symbol's BM25 document as word -> count: each field's words (name words, docstring,
    signature with decorators and bases, its own source, the file's path words) counted by the
    field's weight, and the whole identifiers of its name and, CamelCase only, of its body."""
    name = symbol.qualname.replace("<locals>", "")
    fields = [("name", name, True), ("docstring", symbol.docstring, None),
              ("signature", " ".join((symbol.signature, *symbol.decorators, *symbol.bases)), None),
              ("body", symbol.source, False)]
    if symbol.path and FIELD_WEIGHTS.get("path"):
        fields.append(("path", "/".join(symbol.rel.split("/")[-PATH_DEPTH:]).rsplit(".", 1)[0], None))
    counts: Counter[str] = Counter()
    for field, text, snake in fields:
        weight = int(weights.get(field, 1))
        if weight <= 0 or not text:
            continue
        words = chain.from_iterable(map(_field_words(stem, snake if COMPOUNDS else None).__getitem__, word_runs(text)))
        if weight == 1:
            counts.update(words)
        else:
            words = list(words)
            for _ in range(weight):
                counts.update(words)
    return counts


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")  # a word boundary inside: RateLimiter, HTTPServer


def compounds(text: str, snake: bool = True) -> list[str]:
    """Whole identifiers of two or more parts, folded (``RateLimiter`` -> ratelimiter): an exact
    name outranks a chunk that merely holds its words."""
    return [folded for run in word_runs(text) for folded in _compounds(run, snake)]  # a query's: short, not cached


def _compounds(run: str, snake: bool) -> tuple[str, ...]:
    return tuple(ident.lower().replace("_", "") for ident in _IDENT.findall(run)
                 if _CAMEL.search(ident) or (snake and "_" in ident.strip("_")))


_FIELD_WORDS: dict[tuple[bool | str, bool | None], RunCache] = {}


def _field_words(stem: bool | str, snake: bool | None) -> RunCache:
    """A run -> its words and then, unless ``snake`` is None, its compounds: one lookup for both
    (symbol_counts of the 71,434 symbols of zig, abseil-cpp, laravel, pandoc and cats: 7.3 s CPU
    with the two looked up apart, 6.4 s with one lookup)."""
    found = _FIELD_WORDS.get((stem, snake))
    if found is None:
        words = run_words(stem)
        read = (lambda run: words[run]) if snake is None else (lambda run: words[run] + _compounds(run, snake))
        found = _FIELD_WORDS[(stem, snake)] = RunCache(read)
    return found


def symbol_document(symbol: Symbol, weights: Mapping[str, int] = FIELD_WEIGHTS, stem: bool | str = STEM) -> list[str]:
    """The same document as a list of words (for libraries that take token lists: the evaluation's BM25Okapi)."""
    return [w for w, n in symbol_counts(symbol, weights, stem).items() for _ in range(n)]


@dataclass
class LexicalIndex:
    """BM25 over a list of symbols; ``search`` returns (position, score) best first."""

    symbols: list[Symbol]
    weights: Mapping[str, int]
    stem: bool | str
    index: BM25Index
    shape: CodeShape

    @classmethod
    def build(cls, symbols: Sequence[Symbol], weights: Mapping[str, int] = FIELD_WEIGHTS,
              stem: bool | str = STEM, documents: Sequence[Mapping[str, int]] | None = None) -> "LexicalIndex":
        """``documents``: ``symbol_counts(s, weights, stem)`` for each symbol, when already counted
        (by the load, beside the parse)."""
        with paused_gc():  # millions of short-lived words; the collector finds nothing (gcpause.py)
            docs = documents if documents is not None else [symbol_counts(s, weights, stem) for s in symbols]
            return cls(list(symbols), weights, stem, BM25Index.from_counts(docs, **bm25_in_force()), CodeShape(symbols))

    @classmethod
    def of_index(cls, index, previous: "LexicalIndex | None" = None) -> "LexicalIndex":
        """The index over a code index's columns (code_index.py): its stored word counts, no symbol
        made. The BM25 matrix is the one the cache kept when the rows are the same, ``previous``'s
        patched when only some files changed (``index.patch``), else built from the counts."""
        kept, bm25 = index.bm25, None
        if kept is not None and kept[4:] == tuple(bm25_in_force().values()) and len(kept[2]) - 1 <= len(index.vocabulary):
            bm25 = BM25Index.from_matrix(*kept[:4], len(index), index.vocabulary.ids, **bm25_in_force())
        elif index.patch is not None and previous is not None:
            bm25 = previous.index.patched(index.patch[0], len(index), *index.patch[1:], index.vocabulary.ids,
                                          **bm25_in_force())
        if bm25 is None:
            first, terms, counts = index.documents()
            bm25 = BM25Index.from_rows(first, terms, counts, index.vocabulary.ids, **bm25_in_force())
        matrix = bm25.matrix()
        index.bm25 = None if matrix is None else (*matrix, *bm25_in_force().values())
        index.patch = None  # used: the renumbering is not kept alive with the index
        return cls(index.symbols(), FIELD_WEIGHTS, STEM, bm25, index.shape())

    def query_words(self, query: str) -> list[str]:
        return tokenize(query, self.stem) + (compounds(query) if COMPOUNDS else [])

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """BM25's head re-ranked by what the query asks of code (ranking.py), best ``k`` first."""
        candidates = self.index.top(self.query_words(query), max(k, RERANK_POOL))
        return rerank(query, candidates, self.shape, k)

    def rerank(self, query: str, candidates: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
        """Any ranking of these symbols (the fused one) re-ordered by the code-aware ranking."""
        return rerank(query, candidates, self.shape, k)

    def plain(self, query: str, k: int) -> list[tuple[int, float]]:
        """Fielded BM25 alone, without the code-aware ranking (the evaluation's ablation)."""
        return self.index.top(self.query_words(query), k)

    def matches(self, query: str) -> int:
        """How many symbols hold at least one query word (the answer's uncapped total)."""
        return int((self.index.scores(self.query_words(query)) > 0).sum())
