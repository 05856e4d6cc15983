"""Symbols as columns: what a code index holds in memory and on disk, without a Python object per symbol.

A monorepo has hundreds of thousands of symbols; as Symbol objects with their word-count dicts they
took 1.0 GB and had to be rebuilt on every open. Here each text field is one UTF-8 blob with offsets,
each number a numpy array, and each symbol's BM25 document a row of a sparse matrix (term ids into
one shared vocabulary, and counts). A chunk is read back memory-mapped from the cache or built from
a parse; a Symbol is made only for the rows an answer shows (``symbol``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Mapping, Sequence

import numpy as np

from engines.code.symbols import Symbol
from engines.index_cache import StringColumn

TEXT_FIELDS = ("id", "module", "qualname", "signature", "docstring", "source", "where")
SHAPE_FIELDS = ("name",)  # the name a query may say (ranking.own_name): kept so an open need not work it out
LIST_FIELDS = ("decorators", "bases")


class Vocabulary:
    """Words and their ids, in the order they were first met; ids never change while it lives."""

    def __init__(self, words: list[str] | None = None) -> None:
        self.words: list[str] = words or []
        self.ids: dict[str, int] = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def lookup(self, words: list[str]) -> np.ndarray:
        """The id of each word, new words given the next ids (C-level loops but one per new word)."""
        ids = self.ids
        for word in dict.fromkeys(words):
            if word not in ids:
                ids[word] = len(self.words)
                self.words.append(word)
        return np.fromiter(map(ids.__getitem__, words), dtype=np.int32, count=len(words))


@dataclass
class Chunk:
    """Some files' symbols, each file's rows contiguous."""

    text: dict[str, StringColumn]
    items: dict[str, tuple[StringColumn, np.ndarray]]  # decorators, bases: the items and each row's first item
    kind: np.ndarray  # uint8, into kinds
    language: np.ndarray  # uint8, into languages
    line: np.ndarray  # int32
    end_line: np.ndarray  # int32
    length: np.ndarray  # int32: characters of the source (the ranking's "fullest" weighs by it)
    content_hash: np.ndarray  # uint8 (rows, 32): sha256 of the embedded text
    doc_first: np.ndarray  # int64 (rows + 1): row i's words are doc_terms[doc_first[i]:doc_first[i+1]]
    doc_terms: np.ndarray  # int32: vocabulary ids
    doc_counts: np.ndarray  # int32
    kinds: list[str]
    languages: list[str]

    def __len__(self) -> int:
        return len(self.kind)

    def names(self) -> list[str]:
        """Each row's own name (the ranking's), decoded once for the chunk's life (each edit asks again)."""
        found = getattr(self, "_names", None)
        if found is None:
            found = self._names = self.text["name"].all()
        return found

    def symbol(self, row: int, path: str) -> Symbol:
        row = int(row)
        text = {name: self.text[name][row] for name in TEXT_FIELDS}
        lists = {}
        for name, (column, first) in self.items.items():
            lists[name] = tuple(column[i] for i in range(int(first[row]), int(first[row + 1])))
        symbol = Symbol(kind=self.kinds[self.kind[row]], path=path, line=int(self.line[row]),
                        end_line=int(self.end_line[row]), language=self.languages[self.language[row]],
                        **text, **lists)
        object.__setattr__(symbol, "content_hash", self.content_hash[row].tobytes().hex())
        return symbol

    @classmethod
    def of_symbols(cls, symbols: Sequence[Symbol], documents: Sequence[Mapping[str, int]],
                   vocabulary: Vocabulary) -> "Chunk":
        kinds = sorted({s.kind for s in symbols})
        languages = sorted({s.language for s in symbols})
        kind_code = {k: i for i, k in enumerate(kinds)}
        language_code = {k: i for i, k in enumerate(languages)}
        n = len(symbols)
        from engines.code.file_shape import own_name

        text = {name: StringColumn.of([getattr(s, name) for s in symbols]) for name in TEXT_FIELDS}
        text["name"] = StringColumn.of([own_name(s.kind, s.qualname) for s in symbols])
        items = {}
        for name in LIST_FIELDS:
            lists = [getattr(s, name) for s in symbols]
            first = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, lists), dtype=np.int64, count=n), out=first[1:])
            items[name] = (StringColumn.of(list(chain.from_iterable(lists))), first)
        hashes = np.frombuffer(b"".join(bytes.fromhex(s.content_hash) if s.content_hash else bytes(32)
                                        for s in symbols), dtype=np.uint8).reshape(n, 32)
        words = list(chain.from_iterable(documents))  # each document's distinct words, in its order
        doc_first = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, documents), dtype=np.int64, count=n), out=doc_first[1:])
        return cls(text, items,
                   np.fromiter((kind_code[s.kind] for s in symbols), dtype=np.uint8, count=n),
                   np.fromiter((language_code[s.language] for s in symbols), dtype=np.uint8, count=n),
                   np.fromiter((s.line for s in symbols), dtype=np.int32, count=n),
                   np.fromiter((s.end_line for s in symbols), dtype=np.int32, count=n),
                   np.fromiter((len(s.source) for s in symbols), dtype=np.int32, count=n),
                   hashes, doc_first, vocabulary.lookup(words),
                   np.fromiter(chain.from_iterable(map(dict.values, documents)), dtype=np.int32,
                               count=len(words)),
                   kinds, languages)

    # -- on disk --------------------------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for name, column in self.text.items():
            out.update(column.arrays(name))
        for name, (column, first) in self.items.items():
            out.update(column.arrays(name))
            out[f"{name}.first"] = first
        out.update({"kind": self.kind, "language": self.language, "line": self.line, "end_line": self.end_line,
                    "length": self.length, "content_hash": self.content_hash, "doc_first": self.doc_first,
                    "doc_terms": self.doc_terms, "doc_counts": self.doc_counts})
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], kinds: list[str], languages: list[str]) -> "Chunk":
        text = {name: StringColumn.from_arrays(arrays, name) for name in TEXT_FIELDS + SHAPE_FIELDS}
        items = {name: (StringColumn.from_arrays(arrays, name), arrays[f"{name}.first"]) for name in LIST_FIELDS}
        chunk = cls(text, items, arrays["kind"], arrays["language"], arrays["line"], arrays["end_line"],
                    arrays["length"], arrays["content_hash"], arrays["doc_first"], arrays["doc_terms"],
                    arrays["doc_counts"], kinds, languages)
        n = len(chunk)
        if any(len(c) != n for c in chunk.text.values()) or len(chunk.doc_first) != n + 1 or \
                int(chunk.doc_first[-1]) != len(chunk.doc_terms) or len(chunk.doc_counts) != len(chunk.doc_terms):
            raise ValueError("its columns disagree in length")
        return chunk

    @staticmethod
    def gather(chunks: list["Chunk"], runs: list[tuple[int, int, int]]) -> "Chunk":
        """The rows of ``runs`` (chunk number, first row, end row) in order, as one chunk: what is saved."""
        kinds = sorted({k for c in chunks for k in c.kinds})
        languages = sorted({k for c in chunks for k in c.languages})
        kind_maps = [np.array([kinds.index(k) for k in c.kinds] or [0], dtype=np.uint8) for c in chunks]
        language_maps = [np.array([languages.index(k) for k in c.languages] or [0], dtype=np.uint8) for c in chunks]

        def rows(get) -> np.ndarray:
            parts = [get(chunks[c])[a:b] for c, a, b in runs]
            return np.concatenate(parts) if parts else get(chunks[0])[:0] if chunks else np.zeros(0)

        def firsts(get) -> np.ndarray:  # offsets arrays: each run's rebased onto what came before
            out, base = [np.zeros(1, dtype=np.int64)], 0
            for c, a, b in runs:
                first = get(chunks[c])
                out.append(first[a + 1:b + 1] - first[a] + base)
                base += int(first[b] - first[a])
            return np.concatenate(out)

        text = {name: StringColumn.gather([c.text[name] for c in chunks], runs) for name in TEXT_FIELDS + SHAPE_FIELDS}
        items = {}
        for name in LIST_FIELDS:
            item_runs = [(c, int(chunks[c].items[name][1][a]), int(chunks[c].items[name][1][b])) for c, a, b in runs]
            items[name] = (StringColumn.gather([c.items[name][0] for c in chunks], item_runs),
                           firsts(lambda c, name=name: c.items[name][1]))
        terms = [chunks[c].doc_terms[chunks[c].doc_first[a]:chunks[c].doc_first[b]] for c, a, b in runs]
        counts = [chunks[c].doc_counts[chunks[c].doc_first[a]:chunks[c].doc_first[b]] for c, a, b in runs]
        return Chunk(text, items,
                     np.concatenate([kind_maps[c][chunks[c].kind[a:b]] for c, a, b in runs] or [np.zeros(0, np.uint8)]),
                     np.concatenate([language_maps[c][chunks[c].language[a:b]] for c, a, b in runs]
                                    or [np.zeros(0, np.uint8)]),
                     rows(lambda c: c.line), rows(lambda c: c.end_line), rows(lambda c: c.length),
                     np.concatenate([chunks[c].content_hash[a:b] for c, a, b in runs] or [np.zeros((0, 32), np.uint8)]),
                     firsts(lambda c: c.doc_first),
                     np.concatenate(terms or [np.zeros(0, np.int32)]).astype(np.int32, copy=False),
                     np.concatenate(counts or [np.zeros(0, np.int32)]).astype(np.int32, copy=False),
                     kinds, languages)
