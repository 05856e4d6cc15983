"""The code engine's corpus in memory: its files in order, each file's symbols rows of a chunk.

Symbols are numbered in file order, as a load reads them. The rows may come from several chunks: the
cache's (memory-mapped) and one per batch of files parsed since (an open's changed files, a watcher's
edits); the cache is written back as one. Nothing here changes once built: an edit makes a new index
(``replaced``), so a search running beside it keeps reading the old one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from engines.code.columns import Chunk, Vocabulary
from engines.code.source import add_problem
from engines.problems import Problem
from engines.code.symbols import Symbol, embed_text, static_text


@dataclass(frozen=True)
class FileRecord:
    path: str  # absolute ("" for symbols handed in without one)
    rel: str  # relative to its source's base: how problems and symbol ids name it
    source: int  # which of the sources
    size: int
    mtime_ns: int
    ctime_ns: int
    digest: bytes  # BLAKE2b-128 of its bytes; b"" when they could not be read (never reused then)
    problem: Problem | None
    chunk: int  # where its symbols' rows are: chunks[chunk][first:end]
    first: int
    end: int


class CodeIndex:
    def __init__(self, files: list[FileRecord], chunks: list[Chunk], vocabulary: Vocabulary, stat_ns: int = 0) -> None:
        self.files = files
        self.chunks = chunks
        self.vocabulary = vocabulary
        self.stat_ns = stat_ns  # when the files' sizes and times were taken (index_store.RACY_NS)
        counts = np.array([f.end - f.first for f in files], dtype=np.int64)
        self.size = int(counts.sum())
        before = np.cumsum(counts) - counts
        self.file_of = np.repeat(np.arange(len(files), dtype=np.int32), counts)
        self.chunk_of = np.repeat(np.array([f.chunk for f in files], dtype=np.int32), counts)
        self.row_of = np.arange(self.size, dtype=np.int64) - np.repeat(
            before - np.array([f.first for f in files], dtype=np.int64), counts)
        self._ids: dict[str, int] | None = None
        # The BM25 matrix as (data, indices, indptr, k1, b): the one the cache held, when its rows are
        # these rows (an open with nothing changed), or the one built here, for the cache to keep.
        self.bm25: tuple | None = None
        self.patch: tuple | None = None  # set by replaced(): how to patch the previous index's BM25
        self._lock = threading.Lock()

    @classmethod
    def of_symbols(cls, symbols: Sequence[Symbol], documents: Sequence) -> "CodeIndex":
        """An index of symbols handed in (a benchmark's, CoSQA's functions): one record per path, in
        the order the paths first appear."""
        by_path: dict[str, list[int]] = {}
        for i, s in enumerate(symbols):
            by_path.setdefault(s.path, []).append(i)
        order = [i for rows in by_path.values() for i in rows]
        vocabulary = Vocabulary()
        chunk = Chunk.of_symbols([symbols[i] for i in order], [documents[i] for i in order], vocabulary)
        files, first = [], 0
        for path, rows in by_path.items():
            files.append(FileRecord(path, path, 0, -1, -1, -1, b"", None, 0, first, first + len(rows)))
            first += len(rows)
        return cls(files, [chunk], vocabulary)

    def __len__(self) -> int:
        return self.size

    def symbol(self, i: int) -> Symbol:
        if not -self.size <= i < self.size:
            raise IndexError(i)
        i %= self.size
        return self.chunks[self.chunk_of[i]].symbol(self.row_of[i], self.files[self.file_of[i]].path)

    def symbols(self) -> "SymbolView":
        return SymbolView(self)

    def runs(self) -> list[tuple[int, int, int]]:
        """The rows in order as (chunk, first, end), neighbouring files' rows joined."""
        runs: list[list[int]] = []
        for f in self.files:
            if f.end == f.first:
                continue
            if runs and runs[-1][0] == f.chunk and runs[-1][2] == f.first:
                runs[-1][2] = f.end
            else:
                runs.append([f.chunk, f.first, f.end])
        return [tuple(r) for r in runs]  # type: ignore[misc]

    def documents(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every symbol's BM25 document in order, as sparse rows: (first, word ids, counts)."""
        runs = self.runs()
        if len(runs) == 1 and runs[0][1] == 0 and runs[0][2] == len(self.chunks[runs[0][0]]):
            chunk = self.chunks[runs[0][0]]  # one chunk, whole (an open with nothing changed): no copy
            return chunk.doc_first, chunk.doc_terms, chunk.doc_counts
        firsts, terms, counts, base = [np.zeros(1, dtype=np.int64)], [], [], 0
        for c, a, b in runs:
            chunk = self.chunks[c]
            lo, hi = int(chunk.doc_first[a]), int(chunk.doc_first[b])
            firsts.append(chunk.doc_first[a + 1:b + 1] - lo + base)
            terms.append(chunk.doc_terms[lo:hi])
            counts.append(chunk.doc_counts[lo:hi])
            base += hi - lo
        empty = np.zeros(0, dtype=np.int32)
        return np.concatenate(firsts), np.concatenate(terms or [empty]), np.concatenate(counts or [empty])

    def column(self, get) -> list:
        """``get(chunk)`` (a per-row array or a StringColumn's items) for every symbol, in order."""
        out: list = []
        seen: dict[int, list] = {}  # each chunk's column made once, however many runs it has
        for c, a, b in self.runs():
            if c not in seen:
                values = get(self.chunks[c])
                seen[c] = values if isinstance(values, list) else values.tolist()
            out += seen[c][a:b]
        return out

    def replaced(self, changes: list[tuple[FileRecord, list[Symbol], list]]) -> "CodeIndex":
        """This index with some files' records, symbols and BM25 documents replaced (a file given
        ``None`` as its record is dropped: deleted); files in path order, as a watcher's batch leaves them."""
        symbols: list[Symbol] = []
        documents: list = []
        new = len(self.chunks)
        files = {f.path: f for f in self.files}
        for record, file_symbols, file_documents in changes:
            if record.size < 0:
                files.pop(record.path, None)
                continue
            files[record.path] = FileRecord(record.path, record.rel, record.source, record.size, record.mtime_ns,
                                            record.ctime_ns, record.digest, record.problem, new, len(symbols),
                                            len(symbols) + len(file_symbols))
            symbols += file_symbols
            documents += file_documents
        chunk = Chunk.of_symbols(symbols, documents, self.vocabulary)  # the vocabulary only grows: ids stay
        index = CodeIndex([files[p] for p in sorted(files)], self.chunks + [chunk], self.vocabulary, self.stat_ns)
        index.patch = self._renumbering(index, new)
        return index

    def _renumbering(self, index: "CodeIndex", new: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """How ``index`` (this one with some files replaced) renumbers this one's symbols (-1: gone),
        and the replaced files' BM25 entries (word ids, new symbol numbers, counts): what
        BM25Index.patched takes."""
        before, at = {}, 0
        for f in self.files:
            before[f.path] = at
            at += f.end - f.first
        old_to_new = np.full(self.size, -1, dtype=np.int64)
        chunk = index.chunks[new]
        terms, docs, counts, at = [], [], [], 0
        for f in index.files:
            n = f.end - f.first
            if f.chunk != new:
                old = before[f.path]
                old_to_new[old:old + n] = np.arange(at, at + n)
            elif n:
                lo, hi = int(chunk.doc_first[f.first]), int(chunk.doc_first[f.end])
                terms.append(chunk.doc_terms[lo:hi])
                counts.append(chunk.doc_counts[lo:hi])
                docs.append(np.repeat(np.arange(at, at + n, dtype=np.int32), np.diff(chunk.doc_first[f.first:f.end + 1])))
            at += n
        empty = np.zeros(0, dtype=np.int32)
        return (old_to_new, np.concatenate(terms or [empty]), np.concatenate(docs or [empty]),
                np.concatenate(counts or [empty]))

    def shape(self):
        from engines.code.ranking import CodeShape

        files = [f for f in self.files if f.end > f.first]
        if all(f.path for f in files):  # a tree's files: the ranking's file facts once a file
            from engines.code.file_shape import shape_of_files

            return shape_of_files([(f.path, f.rel) for f in files], [f.end - f.first for f in files],
                                  self.column(Chunk.names), self.column(lambda c: c.length),
                                  lambda i: self.chunks[self.chunk_of[i]].text["qualname"][self.row_of[i]])
        paths = [f.path for f in self.files]
        path_of = [paths[i] for i in self.file_of.tolist()]
        kinds = self.column(lambda c: np.asarray(c.kinds + [""], dtype=object)[c.kind].tolist())
        rels = {f.path: f.rel for f in self.files}
        return CodeShape.of_columns(path_of, lambda i: self.symbol(i).id, self.column(lambda c: c.length),
                                    self.column(lambda c: c.text["qualname"].all()), kinds,
                                    lambda key: rels.get(key, ""))

    def embed_texts(self) -> list[str]:
        """``embed_text`` of every symbol, in order (the embedding tier's texts)."""
        return [embed_text(self.symbol(i)) for i in range(self.size)]

    def static_texts(self) -> list[str]:
        """``static_text`` of every symbol, in order (the trained code table's texts)."""
        return [static_text(self.symbol(i)) for i in range(self.size)]

    def position_of(self, item_id: str) -> int | None:
        with self._lock:
            if self._ids is None:
                ids = self.column(lambda c: c.text["id"].all())
                self._ids = {}
                for i, symbol_id in enumerate(ids):
                    self._ids.setdefault(symbol_id, i)
            return self._ids.get(item_id)

    def problems(self) -> list[Problem]:
        """The files' problems in order, a missing grammar named once (not once per file)."""
        out: list[Problem] = []
        missing: set[str] = set()
        for f in self.files:
            add_problem(out, missing, f.problem)
        return out


class SymbolView(Sequence):
    """The index's symbols as a read-only list: each made when asked for."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index

    def __len__(self) -> int:
        return self.index.size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self.index.symbol(j) for j in range(*i.indices(self.index.size))]
        return self.index.symbol(i)

    def __iter__(self) -> Iterator[Symbol]:
        return (self.index.symbol(i) for i in range(self.index.size))
