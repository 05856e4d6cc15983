"""Ranking that knows code: what BM25 found, re-ordered by what a code reader means by a query.

BM25 sees bags of words. A person searching code asks one of two things:

- **a symbol** (``HTTPAdapter``, ``field_validator``, ``Sinatra::Base``, ``app.route``): the answer
  is where that symbol is *defined*, better still in a file named after it. Symbols here are parsed,
  so "defines" is a lookup of names, not a regular expression over source; a definer that BM25 left
  out is brought in.
- **a question in words** ("how are routes registered", "session management"): the answer is a
  file, and a file is usually named for what it does, so files whose name or folder shares the
  query's words (prefix-tolerant: dependency ~ dependencies, route ~ routing) rise; a file with
  several good chunks lifts its best one; and a second, third chunk of one file gives way to other
  files, so ten rows show more than one or two files.

Test, example and compatibility paths sink (a reader looks for the code, not its tests). Every
constant below was chosen on semble's dev repositories only (`olai-tui eval code --dataset semble
--split dev`), never on its held-out ones; CoSQA (no paths, web questions) is left as it was.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from engines.code.words import stem_word
from engines.lexical import split_identifier

# A query that is one identifier, possibly qualified: Foo, fooBar, foo_bar, _private, a.b, A::B, a->b,
# A\B (PHP), Foo#bar (Ruby docs). A plain lower-case word ("session") is a word, not a symbol.
_SYMBOL_QUERY = re.compile(r"^(?:[A-Za-z_$][\w$]*(?:(?:::|->|\\|\.|#)[A-Za-z_$][\w$]*)+"
                           r"|_[\w$]*|[A-Za-z$][\w$]*[A-Z_][\w$]*|[A-Z][\w$]*)[?!]?$")
# Identifiers inside a question: CamelCase, camelCase, snake_case.
_EMBEDDED = re.compile(r"\b(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*[A-Z]\w*|[a-z][a-z0-9]*_[a-z0-9_]+)\b")
_SEPARATORS = re.compile(r"::|->|\\|\.|#")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from get has have how i if in into is it its not of on or "
    "our the their then there these this to was we what when where which who why will with you your".split())

# Additive boosts in units of the best candidate's score (so they mean the same on any corpus).
# Measured on semble's 42 dev repositories, mean NDCG@10 (the shipped setting scores 0.843; each line
# moves one constant): BM25 alone (fielded, no re-ranking) 0.646.
DEFINES = 3.0  # a chunk defining the queried symbol (1.5: 0.836, symbol queries 0.95 -> 0.90; 5: same)
DEFINES_IN_NAMESAKE_FILE = 1.5  # ... times this when the file's stem is the symbol's name (1.0: 0.836; 2.0: same)
# Several definitions of one name (Contracts/Container.php and Container/Container.php, a facade and
# the class): x this share of the boost by length, the fullest gets it all (0.1: 0.853, symbol 0.948;
# 0.3: 0.853, 0.953; 0.5: 0.851, 0.952; none: 0.852, 0.946).
FULLEST = 0.3
EMBEDDED_DEFINES = 0.5  # a symbol named inside a question: half the weight, it may be incidental (0: -0.010; 1.0: +0.001)
PATH_WORDS = 1.0  # x the share of the question's words found in the file's stem and folder (0.7: 0.842; 1.3: 0.837)
STEM_NAMED = 0.3  # more when the file's whole stem is one of the question's words, or two in a row (0: 0.822; 0.6: 0.835)
COHERENCE = 0.2  # x the file's summed candidate score / the best file's sum, added to its best chunk (0: -0.018; 0.4: +0.001)
SATURATION = 0.5  # the n-th extra chunk of a file already shown keeps SATURATION ** n of its score (1.0, none: -0.026)
# ... unless it stands on its own (``stand_alone``): its own name is the question's words and the meaning
# tier ranks it among its first STANDS_ALONE_TOP. semble's targets are whole files (969 of its 986), so
# there a second chunk of a shown file can only push another file down: the default answer, semble dev
# (`olai-tui eval code --dataset semble --configs default --fresh`), by the meaning's first 1 / 2 / 3 /
# 5 / 10: 0.8710 / 0.8709 / 0.8704 / 0.8699 / 0.8685 (0.8714 without; at 3 -0.0010 [-0.0016, -0.0004]
# paired over the 829 queries, 17 down, none up; architecture 0.8019 -> 0.8002). Without the meaning's
# word (every named chunk kept whole) lexical fell to 0.8541. 3: click's confirm() for "prompt the user
# for confirmation", the table's third, was halved behind prompt() in termui.py and shown 4th. The
# trained table's fusion only: after MiniLM's blend it cost 0.0010 / 0.0014 / 0.0020 at 1 / 2 / 3.
STANDS_ALONE_TOP = 3
# Tried and not kept: a whole-file BM25 (a file's chunks as one document) lifting its chunks: x0.25
# -0.001, x0.5 -0.006 (long files win everything); path words weighted by idf: +0.000.
# Shortest shared prefix for a word, or its stem, to match a path part (config ~ configuration, req ~
# request, reads -> read ~ Readers/). The stem's prefix too: semble dev 0.8609 -> 0.8619 (7 up, 6 down).
PREFIX = 3
# Words that name the same kind of file where no shared prefix says so: "string helpers" ~ StringUtils
# (semble dev 0.850 -> 0.852).
PATH_SYNONYMS = {"helper": "util", "helpers": "util", "utility": "util", "utilities": "util", "utils": "util",
                 "context": "ctx", "message": "msg", "messages": "msg", "database": "db"}
# Multiplicative penalties by path: tests and examples are rarely what is asked for. A test_ prefix
# marks a test only where that is the convention (Python, C, C++, Lua): bats-core's test_functions.bash
# is the framework itself (bats-core 0.714 -> 0.93 when it stopped sinking; dev 0.844 -> 0.850).
PENALTIES = ((re.compile(r"(?:^|/)(?:tests?|__tests__|spec|specs|testing|testdata)/|(?:^|/)test_[^/]*\.(?:py|c|cc|cpp|lua)$|"
                         r"_(?:test|spec)\.[a-z]+$|[^/](?:Tests?|Spec|Suite)\.[a-z]+$|\.(?:test|spec)\.[jt]sx?$"), 0.3),
             (re.compile(r"(?:^|/)(?:_?examples?|docs?_src|benchmarks?)/"), 0.3),
             (re.compile(r"(?:^|/)(?:_?compat|legacy|deprecated)/"), 0.3),
             (re.compile(r"(?:^|/)__init__\.py$"), 0.5),
             (re.compile(r"\.d\.ts$"), 0.7),
             # Python's private modules and packages (_internal/, _termui_impl.py: PEP 8's leading
             # underscore): the public module is what a question names (semble dev 0.8599 -> 0.8608,
             # pydantic 0.808 -> 0.840, click up, no repository down; 0.6 the same)
             (re.compile(r"(?:^|/)_[a-z][^/]*(?:/|\.py$)"), 0.8))

HEADER_EXTS = frozenset({".h"})
SOURCE_EXTS = frozenset({".c"})
# A C header beside its implementation file (connect.h, connect.c) declares what the .c file does, and
# the reader asks for the doing: x this (semble dev 0.8534 -> 0.8555, C 0.691 -> 0.736; 0.5: 0.8557).
# C++ headers hold classes and templates, often the answer: sinking them beside .cc/.cpp files took
# C++ from 0.931 to 0.886, so only .h beside .c.
HEADER_WITH_SOURCE = 0.7


@dataclass(frozen=True)
class SymbolQuery:
    names: frozenset[str]  # the name asked for (its last part) and, when qualified, the whole
    last: str
    qualified: str | None


def symbol_query(query: str) -> SymbolQuery | None:
    text = query.strip()
    if not _SYMBOL_QUERY.match(text):
        return None
    text = text.rstrip("?!")
    parts = [p for p in _SEPARATORS.split(text) if p]
    last = parts[-1] if parts else text
    qualified = ".".join(parts) if len(parts) > 1 else None
    return SymbolQuery(frozenset({last, text}), last, qualified)


def embedded_symbols(query: str) -> list[str]:
    return list(dict.fromkeys(_EMBEDDED.findall(query)))


def query_keywords(query: str) -> list[str]:
    """The words of a question worth finding in a path: no stopwords, three letters or more."""
    words = [w for token in _WORD.findall(query) for w in split_identifier(token)]
    return list(dict.fromkeys(PATH_SYNONYMS.get(w, w) for w in words if len(w) >= 3 and w not in STOPWORDS))


def _own_name(qualname: str) -> str:
    parts = [p for p in _SEPARATORS.split(qualname.replace("<locals>", "")) if p]
    return parts[-1] if parts else qualname


def _namesake(stem: str, name: str) -> bool:
    """The file is named after the symbol: ``Axios.js`` for Axios, ``rate_limiter.py`` for RateLimiter."""
    stem, name = stem.lower().replace("_", "").replace("-", ""), name.lower().replace("_", "")
    return stem == name or stem.rstrip("s") == name.rstrip("s")


class CodeShape:
    """What ranking needs to know of each symbol, computed once when the index is built."""

    def __init__(self, symbols: Sequence, root: str | None = None) -> None:
        relatives: dict[str, str] = {}
        for s in symbols:  # what depends on the file only, from its first symbol
            key = s.path or f"\0{s.id}"
            if key not in relatives:
                relatives[key] = _relative(s, root)
        self._fill([s.path or "" for s in symbols], [s.id for s in symbols],
                   [len(getattr(s, "source", "") or "") for s in symbols],
                   [getattr(s, "qualname", "") or "" for s in symbols], [getattr(s, "kind", "") for s in symbols],
                   relatives.__getitem__)

    @classmethod
    def of_columns(cls, paths: list[str], ids: Callable[[int], str], lengths: list[int], qualnames: list[str],
                   kinds: list[str], relative: Callable[[str], str]) -> "CodeShape":
        """The same, from an index's columns (columns.py): no Symbol made. ``ids(i)``: symbol i's id,
        asked only of symbols without a path; ``relative(path)``: the file's path as the corpus names it."""
        shape = cls.__new__(cls)
        shape._fill(paths, _Ids(ids), lengths, qualnames, kinds, relative)
        return shape

    def _fill(self, paths: list[str], ids, lengths: list[int], qualnames: list[str], kinds: list[str],
              relative: Callable[[str], str]) -> None:
        self.size = len(paths)
        self.has_paths = any(paths)  # a source tree, not a set of pathless snippets
        self.file: list[str] = []  # the grouping key: the file, or the symbol itself where it has none
        self.stem: list[str] = []
        self.penalty: list[float] = []
        self.path_parts: dict[str, frozenset[str]] = {}
        self.by_name: dict[str, list[int]] = {}  # exact name -> positions
        self.by_lower: dict[str, list[int]] = {}
        self.qualnames: list[str] = []
        self.names: list[str] = []  # each symbol's own name ("" for a module: its path names it)
        self.length = lengths
        self.stem_parts: dict[str, tuple[str, ...]] = {}  # file key -> its stem's words ("StringUtils" -> string, util)
        self.flat_stem: dict[str, str] = {}  # file key -> its stem folded, separators out ("exception_handlers" -> exceptionhandlers)
        penalties: dict[str, float] = {}
        exts: dict[str, str] = {}
        stems: dict[str, str] = {}
        for i, path in enumerate(paths):
            key = path or f"\0{ids[i]}"
            self.file.append(key)
            if key not in penalties:  # what depends on the file only, once a file
                rel = relative(key)
                base = os.path.basename(rel)
                stem = stems[key] = os.path.splitext(base)[0] if base else ""
                if path:
                    exts[key] = os.path.splitext(rel)[1].lower()
                penalties[key] = _penalty(rel) if path else 1.0
                folder = os.path.basename(os.path.dirname(rel))
                parts = set(split_identifier(stem)) | set(split_identifier(folder)) if path else set()
                if stem and path:
                    parts.add(stem.lower())
                parts |= {PATH_SYNONYMS[p] for p in parts if p in PATH_SYNONYMS}
                self.path_parts[key] = frozenset(stem_word(p) for p in parts) | frozenset(parts)
                self.flat_stem[key] = "".join(split_identifier(stem)) if path else ""
                self.stem_parts[key] = tuple(PATH_SYNONYMS.get(w, w) for w in split_identifier(stem)) if path else ()
            self.stem.append(stems[key])
            self.penalty.append(penalties[key])
            qualname = qualnames[i]
            self.qualnames.append(qualname.replace("::", ".").replace("<locals>.", ""))
            if kinds[i] == "module":
                self.names.append("")
                continue  # a module is named by its path, which the path words already read
            name = _own_name(qualname)
            self.names.append(name)
            if name:
                self.by_name.setdefault(name, []).append(i)
                self.by_lower.setdefault(name.lower(), []).append(i)
        self._sink_declarations(exts)

    def _sink_declarations(self, exts: dict[str, str]) -> None:
        """A C/C++ header whose implementation file (same stem) is in the tree sinks: it declares what
        the source file does."""
        implemented = {self.stem[i].lower() for i in range(self.size) if exts.get(self.file[i]) in SOURCE_EXTS}
        if not implemented:
            return
        for i in range(self.size):
            if exts.get(self.file[i]) in HEADER_EXTS and self.stem[i].lower() in implemented:
                self.penalty[i] *= HEADER_WITH_SOURCE


class _Ids:
    """``ids[i]`` through a function: a columns index decodes an id only when a symbol has no path."""

    def __init__(self, get: Callable[[int], str]) -> None:
        self.get = get

    def __getitem__(self, i: int) -> str:
        return self.get(i)


def _relative(symbol, root: str | None) -> str:
    where = getattr(symbol, "where", "") or ""
    rel = where.rsplit(":", 1)[0] if ":" in where else where
    if root and symbol.path:
        try:
            rel = os.path.relpath(symbol.path, root)
        except ValueError:
            pass
    return rel.replace(os.sep, "/")


def _penalty(rel: str) -> float:
    factor = 1.0
    for pattern, weight in PENALTIES:
        if pattern.search(rel):
            factor *= weight
    return factor


def _prefix_match(word: str, parts: frozenset[str]) -> bool:
    if word in parts:
        return True
    for part in parts:
        short, long = (word, part) if len(word) <= len(part) else (part, word)
        if len(short) >= PREFIX and long.startswith(short):
            return True
    return False


def rerank(query: str, candidates: Sequence[tuple[int, float]], shape: CodeShape, k: int) -> list[tuple[int, float]]:
    """``candidates`` (position, BM25 score), best first, re-ranked; the best ``k`` as (position, score)."""
    if not candidates and not query.strip():
        return []
    top = candidates[0][1] if candidates else 1.0
    scores: dict[int, float] = {p: s / top for p, s in candidates}  # the best candidate scores 1
    asked = symbol_query(query)
    definers = _definers(shape, asked.names) if asked is not None else set()
    if definers:
        _boost_definers(scores, shape, definers, asked.names, DEFINES, asked.qualified)
    else:  # a question, or a name nothing here defines ("Tokenizer" where tokenizer.py holds no such class):
        # words (semble dev symbol queries 0.9586 -> 0.9667 with Snowball's stems: Tokenizer +0.50,
        # kotlinx-coroutines' Channel +0.37, axum's FromRequest -0.04, no other query moved)
        embedded = frozenset(embedded_symbols(query))
        if embedded:
            _boost_definers(scores, shape, _definers(shape, embedded), embedded, EMBEDDED_DEFINES, None)
        _boost_path_words(scores, shape, query_keywords(query))
    _boost_coherent_files(scores, shape)
    return _select(scores, shape, k)


def _definers(shape: CodeShape, names: frozenset[str]) -> set[int]:
    """The symbols named ``names``, as written or in any case."""
    found: set[int] = set()
    for name in names:
        found.update(shape.by_name.get(name, ()))
        found.update(shape.by_lower.get(name.lower(), ()))
    return found


def _boost_definers(scores: dict[int, float], shape: CodeShape, found: set[int], names: frozenset[str],
                    weight: float, qualified: str | None) -> None:
    fullest = max((shape.length[p] for p in found), default=0) or 1
    for p in found:
        boost = weight
        if any(_namesake(shape.stem[p], n) for n in names):
            boost *= DEFINES_IN_NAMESAKE_FILE
        if qualified and shape.qualnames[p].lower().endswith(qualified.lower()):
            boost *= 1.2  # Sinatra::Base names one Base among several
        if len(found) > 1:  # of several definitions, the fullest is the primary: an interface or facade is short
            boost += FULLEST * weight * shape.length[p] / fullest
        scores[p] = scores.get(p, 0.0) + boost


def _boost_path_words(scores: dict[int, float], shape: CodeShape, keywords: list[str]) -> None:
    if not keywords:
        return
    stems = {w: stem_word(w) for w in keywords}
    asked = frozenset(keywords) | frozenset(stems.values())
    # The file named by the question (_named_by): one word or two in a row.
    named = {w for w in keywords} | {stems[w] for w in keywords}
    named |= {a + b for a, b in zip(keywords, keywords[1:])} | {stems[a] + stems[b] for a, b in zip(keywords, keywords[1:])}
    shares: dict[str, float] = {}
    for p in list(scores):
        key = shape.file[p]
        if key not in shares:
            parts = shape.path_parts[key]
            found = sum(1 for w in keywords if _prefix_match(w, parts) or _prefix_match(stems[w], parts))
            shares[key] = PATH_WORDS * found / len(keywords) + (STEM_NAMED if _named_by(shape, key, named, asked) else 0.0)
        if shares[key]:
            scores[p] += shares[key]


def _named_by(shape: CodeShape, key: str, named: set[str], asked: frozenset[str]) -> bool:
    """The file's stem is named by the question: as one word or two in a row ("exception handlers" ->
    exception_handlers.py), or every word of the stem is among the question's, prefix-tolerant
    ("null-safe string helpers" -> StringUtils, "configuration" -> config.lua). The second reading
    took semble dev from 0.8555 to 0.8599 (16 repositories up, 12 down: "serialization" now also
    names ser.rs); asked only of stems of two words or more it fell to 0.8550."""
    flat = shape.flat_stem.get(key, "")
    flat = PATH_SYNONYMS.get(flat, flat)
    if flat and (flat in named or stem_word(flat) in named):
        return True
    parts = shape.stem_parts.get(key, ())
    return bool(parts) and all(_prefix_match(w, asked) or stem_word(w) in asked for w in parts)


def _boost_coherent_files(scores: dict[int, float], shape: CodeShape) -> None:
    sums: dict[str, float] = {}
    best: dict[str, int] = {}
    for p, s in scores.items():
        key = shape.file[p]
        sums[key] = sums.get(key, 0.0) + s
        if key not in best or s > scores[best[key]]:
            best[key] = p
    if not sums:
        return
    most = max(sums.values()) or 1.0
    for key, p in best.items():
        scores[p] += COHERENCE * sums[key] / most


def _select(scores: dict[int, float], shape: CodeShape, k: int) -> list[tuple[int, float]]:
    """Best first after path penalties; each further chunk of a file already chosen counts for less."""
    ranked = sorted(((s * shape.penalty[p], p) for p, s in scores.items() if s > 0), key=lambda t: (-t[0], t[1]))
    shown: dict[str, int] = {}
    chosen: list[tuple[float, int]] = []
    floor = float("inf")
    for s, p in ranked:
        if len(chosen) >= k and s <= floor:
            break  # decay only lowers scores: nothing later can enter
        key = shape.file[p]
        n = shown.get(key, 0)
        chosen.append((s * SATURATION ** n, p))
        shown[key] = n + 1
        if len(chosen) >= k:
            floor = sorted((c for c, _ in chosen), reverse=True)[k - 1]
    chosen.sort(key=lambda t: (-t[0], t[1]))
    return [(p, s) for s, p in chosen[:k]]


def stand_alone(query: str, ranked: Sequence[tuple[int, float]], shape: CodeShape,
                nearest: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
    """``ranked`` (``rerank``'s answer to a question, best first) with each further chunk of a file that
    stands on its own given back the score the file saturation took: its own name is the question's
    words (every word of it, stemmed: ``confirm`` for "ask for confirmation") and ``nearest`` (the
    meaning tier's ranking) holds it among its first STANDS_ALONE_TOP. Two signals the words' bag does
    not carry: the name says what the function does, and meaning finds it apart from its file."""
    near = [p for p, _ in nearest[:STANDS_ALONE_TOP]]
    if not near or not ranked:
        return list(ranked)
    asked = {w for k in query_keywords(query) for w in (k, stem_word(k))}
    above: dict[str, int] = {}  # file -> its chunks above this row: the saturation's n (same-file order is kept)
    saturated: dict[int, int] = {}
    for p, _ in ranked:
        key = shape.file[p]
        saturated[p] = above.get(key, 0)
        above[key] = saturated[p] + 1
    kept = {p for p in near if saturated.get(p) and _named_by_words(shape.names[p], asked)}
    if not kept:
        return list(ranked)
    restored = [(p, s / SATURATION ** saturated[p] if p in kept else s) for p, s in ranked]
    return sorted(restored, key=lambda t: (-t[1], t[0]))


def _named_by_words(name: str, asked: set[str]) -> bool:
    words = [w for w in split_identifier(name) if len(w) >= 3 and w not in STOPWORDS]
    return bool(words) and all(w in asked or stem_word(w) in asked for w in words)
