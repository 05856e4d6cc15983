"""The ranking's view of a tree's index (code_index.py), from its columns: no Symbol made.

``CodeShape(symbols)`` works out, symbol by symbol, what the ranking knows of each (its file, stem,
penalty, name); here the same facts come from the index's lists, what depends on the file is worked
out once a file, and what only a candidate's ranking reads (path words, penalty) when first asked
for. A test holds the two to the same values (tests/engines/test_code_index_cache.py).
"""

from __future__ import annotations

import os
from itertools import chain, repeat
from typing import Callable

import numpy as np

from engines.code.ranking import (HEADER_EXTS, HEADER_WITH_SOURCE, PATH_SYNONYMS, SOURCE_EXTS, CodeShape, _own_name,
                                  _penalty)
from engines.code.words import stem_word
from engines.lexical import split_identifier


def shape_of_files(files: list[tuple[str, str]], counts: list[int], names: list[str], lengths: list[int],
                   qualname: Callable[[int], str]) -> CodeShape:
    """CodeShape for a tree's index (code_index.py) with no per-symbol Python work but its lists:
    ``files``: (path, relative path) of each file with symbols, in order, ``counts`` its symbols;
    ``names``: each symbol's own name (``own_name``; "" for a module); ``qualname(i)``: symbol i's.
    A file's path words and penalty are worked out when a ranking first asks for them: over the
    monorepo's 180,036 symbols in 9,476 files, the per-symbol loop of ``CodeShape(symbols)`` took
    1.3 s CPU and the path words of every file 0.6 s; a query asks for those of ~100 candidates."""
    shape = CodeShape.__new__(CodeShape)
    shape.size = int(sum(counts))
    shape.has_paths = any(path for path, _ in files)
    rels = [rel for _, rel in files]
    stems = [os.path.splitext(os.path.basename(rel))[0] for rel in rels]
    exts = [os.path.splitext(rel)[1].lower() for rel in rels]
    implemented = {stem.lower() for stem, ext in zip(stems, exts) if ext in SOURCE_EXTS}
    sunk = [ext in HEADER_EXTS and stem.lower() in implemented for stem, ext in zip(stems, exts)]

    def spread(values: list) -> list:
        return list(chain.from_iterable(map(repeat, values, counts)))

    words = _PathWords(dict(files))
    shape.path_parts, shape.flat_stem, shape.stem_parts = words.parts, words.flat, words.stem_words
    shape.file, shape.stem = spread([path for path, _ in files]), spread(stems)
    shape.penalty = _PerSymbol(spread(list(range(len(files)))), lambda f: _penalty(rels[f]) * (
        HEADER_WITH_SOURCE if sunk[f] else 1.0))  # as _sink_declarations, once a file
    shape.length = lengths
    shape.qualnames = _Qualnames(qualname)
    shape.by_name, shape.by_lower = _NameIndex(names), _NameIndex(list(map(str.lower, names)))
    shape.names = names
    return shape


def own_name(kind: str, qualname: str) -> str:
    """The name a query may say for this symbol ("" for a module: its path names it)."""
    return "" if kind == "module" else _own_name(qualname)


class _PerSymbol:
    """``values[i]``: a per-file value of symbol i's file, worked out once a file when first asked."""

    def __init__(self, file_of: list[int], value: Callable[[int], float]) -> None:
        self.file_of, self.value, self.known = file_of, value, {}

    def __getitem__(self, i: int) -> float:
        f = self.file_of[i]
        found = self.known.get(f)
        if found is None:
            found = self.known[f] = self.value(f)
        return found

    def __len__(self) -> int:
        return len(self.file_of)


class _PathWords:
    """A file's path words (path_parts), folded stem (flat_stem) and stem words (stem_parts), as
    CodeShape's three dicts read them, each file's worked out when first asked for."""

    def __init__(self, rels: dict[str, str]) -> None:
        self.rels = rels
        self.known: dict[str, tuple[frozenset[str], str, tuple[str, ...]]] = {}
        self.parts, self.flat, self.stem_words = _View(self, 0), _View(self, 1), _View(self, 2)

    def of(self, key: str):
        found = self.known.get(key)
        if found is None:
            rel = self.rels.get(key)
            if rel is None:
                return None
            stem = os.path.splitext(os.path.basename(rel))[0]
            folder = os.path.basename(os.path.dirname(rel))
            parts = set(split_identifier(stem)) | set(split_identifier(folder))
            if stem:
                parts.add(stem.lower())
            parts |= {PATH_SYNONYMS[p] for p in parts if p in PATH_SYNONYMS}
            found = self.known[key] = (frozenset(stem_word(p) for p in parts) | frozenset(parts),
                                       "".join(split_identifier(stem)),
                                       tuple(PATH_SYNONYMS.get(w, w) for w in split_identifier(stem)))
        return found


class _View:
    """One of _PathWords's three, read as a dict: ``[key]`` and ``.get(key, default)``."""

    def __init__(self, words: _PathWords, field: int) -> None:
        self.words, self.field = words, field

    def __getitem__(self, key: str):
        found = self.words.of(key)
        if found is None:
            raise KeyError(key)
        return found[self.field]

    def get(self, key: str, default=None):
        found = self.words.of(key)
        return default if found is None else found[self.field]

    def keys(self):
        return self.words.rels.keys()


class _Qualnames:
    """Each symbol's qualified name as the ranking compares it, made when asked for."""

    def __init__(self, qualname: Callable[[int], str]) -> None:
        self.qualname = qualname

    def __getitem__(self, i: int) -> str:
        return self.qualname(i).replace("::", ".").replace("<locals>.", "")


class _NameIndex:
    """name -> positions, as the dict ``CodeShape`` builds, over a list of names: a numpy array of
    their hashes is compared whole (~0.2 ms for 180,000 names) and the few equal hashes checked,
    where the dict's 157,000 insertions cost 0.8 s CPU at every open."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.hashes = np.fromiter(map(hash, names), dtype=np.int64, count=len(names))

    def get(self, name: str, default=()):
        if not name:
            return default
        found = [p for p in np.flatnonzero(self.hashes == hash(name)).tolist() if self.names[p] == name]
        return found or default
