"""The code index kept between runs: an open re-reads only the files that changed since the last one.

Each file the walk finds is recorded with its size, mtime, ctime and a content hash (BLAKE2b, 16
bytes); its symbols and their BM25 word counts are rows of the columns (columns.py). On the next
open a file whose size and times are unchanged is taken from the cache as it is; one whose times
moved but whose bytes hash the same is taken too (a checkout, a ``touch``); any other, and every
file new to the walk, is parsed again; a file the walk no longer finds is dropped. A file changed
within ``RACY_NS`` of the moment the cache recorded it is hashed again even when its times match: file
timestamps come from a coarse clock, so a second write in the same tick keeps the mtime (git treats
such "racy" entries the same way).

The cache is one file under the user cache (engines/index_cache.py: written atomically, read back
memory-mapped), named by a hash of the roots and holding them: a file made for other roots (copied
from another machine, a hash collision), of another format version, truncated or damaged is named
once in the engine's notices, discarded and rebuilt from the files, which are always the truth.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from engines.code.code_index import CodeIndex, FileRecord
from engines.code.columns import Chunk, Vocabulary
from engines.code.parallel import read_all
from engines.code.source import CodeSource
from engines.problems import Problem
from engines.code.symbols import Symbol
from engines.index_cache import CacheFault, StringColumn, read_arrays, write_arrays
from engines.locations import cache_root

KIND = "code-index"
# 1: the first. 2: the words stemmed by Snowball (words.py). Bump it whenever what a parse gives for
# the same bytes changes (symbols.py, treesitter.py, lexical_tier.symbol_counts): an older cache is
# then named and rebuilt.
FORMAT = 2
RACY_NS = 2_000_000_000


def cache_file(sources: Sequence[CodeSource], folder: Path | None = None) -> Path:
    """The sources' cache file: in ``folder``, by default the user cache's code-index folder."""
    key = hashlib.sha256(_roots(sources).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return (folder or cache_root() / "code-index") / f"{key}.idx"


def _roots(sources: Sequence[CodeSource]) -> str:
    return "\n".join(f"{s.root}\t{s.base}" for s in sources)


def file_digest(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, lambda: hashlib.blake2b(digest_size=16)).digest()
    except OSError:
        return b""


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def index_file(path: str, base: str) -> tuple:
    """A file's (symbols, problem, BM25 documents, (size, mtime, ctime) or None, digest): what the
    workers compute (parallel.py). Stated before it is read: a write during the read leaves the
    record older than the bytes, so the next open reads the file again rather than missing it."""
    from engines.code.corpus import MAX_FILE_BYTES, load_file
    from engines.code.lexical_tier import symbol_counts

    st = _stat(path)
    symbols, problem = load_file(path, base)
    digest = file_digest(path) if st is not None and st[0] <= MAX_FILE_BYTES else b""
    return symbols, problem, [symbol_counts(s) for s in symbols], st, digest


@dataclass
class Opened:
    index: CodeIndex
    walk_problems: list[Problem]
    notices: list[str]
    parsed: int  # files read again in this open
    changed: bool  # the cache no longer says what the files do: write it again


def open_index(sources: Sequence[CodeSource], cache: Path | None,
               progress: Callable[[int, int], None] | None = None) -> Opened:
    """The sources' index, taken from ``cache`` where its files are unchanged, the rest parsed."""
    from engines.code.walk import find_code_files

    stat_ns = time.time_ns()
    walked: list[tuple[int, str]] = []
    walk_problems: list[Problem] = []
    for i, source in enumerate(sources):
        paths, found = find_code_files(source)
        walk_problems += found
        walked += [(i, p) for p in paths]
    notices: list[str] = []
    cached: dict[str, FileRecord] = {}
    chunks: list[Chunk] = []
    vocabulary = Vocabulary()
    recorded_ns, kept_bm25 = 0, None
    if cache is not None:
        try:
            cached, chunk, vocabulary, recorded_ns, kept_bm25 = _read(cache, sources)
            chunks.append(chunk)
        except FileNotFoundError:
            pass
        except (CacheFault, ValueError, KeyError, TypeError, IndexError, OSError) as exc:
            notices.append(f"the code index cache {cache}: {exc}; discarded, rebuilt from the files")
    records: list[FileRecord | None] = []
    todo: list[int] = []  # positions in walked to parse
    changed = len(cached) != len(walked)
    for n, (i, path) in enumerate(walked):
        record = cached.get(path)
        st = _stat(path) if record is not None else None
        if record is None or st is None or record.source != i or not record.digest or st[0] != record.size or (
                record.problem is not None and record.problem.path.startswith("*")):  # a grammar missing then
            records.append(None)
            todo.append(n)
            continue
        if (st[1], st[2]) == (record.mtime_ns, record.ctime_ns) and st[1] < recorded_ns - RACY_NS:
            records.append(record)
        elif file_digest(path) == record.digest:  # touched, checked out again, or written in the same tick
            records.append(replace(record, mtime_ns=st[1], ctime_ns=st[2]))
            changed = changed or (st[1], st[2]) != (record.mtime_ns, record.ctime_ns)
        else:
            records.append(None)
            todo.append(n)
    if todo:
        changed = True
        symbols: list[Symbol] = []
        documents: list = []
        parsed: dict[int, tuple] = {}
        done = 0
        for i, source in enumerate(sources):
            mine = [n for n in todo if walked[n][0] == i]
            paths = [walked[n][1] for n in mine]
            told = None if progress is None else (lambda d, _, start=done: progress(start + d, len(todo)))
            for n, (file_symbols, problem, file_documents, st, digest) in zip(
                    mine, read_all(paths, str(source.base), index_file, _sizes(paths), told)):
                parsed[n] = (len(symbols), file_symbols, problem, st, digest)
                symbols += file_symbols
                documents += file_documents
            done += len(mine)
        chunks.append(Chunk.of_symbols(symbols, documents, vocabulary))
        new = len(chunks) - 1
        for n in todo:
            first, file_symbols, problem, st, digest = parsed[n]
            i, path = walked[n]
            size, mtime, ctime = st if st is not None else (-1, -1, -1)
            rel = os.path.relpath(path, sources[i].base).replace(os.sep, "/") if path != str(sources[i].base) \
                else os.path.basename(path)
            records[n] = FileRecord(path, rel, i, size, mtime, ctime, digest, problem, new, first,
                                    first + len(file_symbols))
    index = CodeIndex(records, chunks, vocabulary, stat_ns)
    if kept_bm25 is not None and not todo and len(cached) == len(walked) and \
            index.runs() in ([(0, 0, len(chunks[0]))], []):
        index.bm25 = kept_bm25  # the same rows in the same order: the kept BM25 matrix is theirs
    return Opened(index, walk_problems, notices, len(todo), changed)


def edited_record(sources: Sequence[CodeSource], path: str, rel: str | None, problem: Problem | None) -> FileRecord:
    """The record of a file a watcher parsed again (its size -1: deleted). Its digest is left empty:
    the file may have changed again since it was parsed, so the next open parses it once more rather
    than trust these symbols for those bytes."""
    st = _stat(path) if os.path.isfile(path) else None
    source = next((i for i, s in enumerate(sources) if path == str(s.root) or
                   path.startswith(str(s.root).rstrip(os.sep) + os.sep)), 0)
    size, mtime, ctime = st if st is not None else (-1, -1, -1)
    return FileRecord(path, rel or os.path.basename(path), source, size, mtime, ctime, b"", problem, 0, 0, 0)


def _sizes(paths: list[str]) -> list[int]:
    from engines.code.corpus import _read_sizes

    return _read_sizes(paths)


def _read(cache: Path, sources: Sequence[CodeSource]) -> tuple[dict[str, FileRecord], Chunk, Vocabulary, int,
                                                               tuple | None]:
    meta, arrays = read_arrays(cache, KIND, FORMAT)
    if meta["roots"] != _roots(sources):
        theirs = meta["roots"].split("\n")[0].split("\t")[0]
        raise CacheFault(f"made for another tree ({theirs}, not {sources[0].root})")
    chunk = Chunk.from_arrays(arrays, meta["kinds"], meta["languages"])
    vocabulary = Vocabulary(StringColumn.from_arrays(arrays, "vocab").all())
    if len(chunk.doc_terms) and int(chunk.doc_terms.max()) >= len(vocabulary):
        raise CacheFault("damaged (a word id past its vocabulary)")
    rels = StringColumn.from_arrays(arrays, "file.rel").all()
    problem_paths = StringColumn.from_arrays(arrays, "file.problem_path").all()
    problem_causes = StringColumn.from_arrays(arrays, "file.problem_cause").all()
    source, size, mtime, ctime = (arrays[f"file.{k}"].tolist() for k in ("source", "size", "mtime", "ctime"))
    first, digests = arrays["file.first"].tolist(), arrays["file.digest"]
    if not (len(rels) == len(source) == len(size) == len(first) - 1 == len(digests)) or first[-1] != len(chunk):
        raise CacheFault("damaged (its file table disagrees with its symbols)")
    # A file given as the source is named by itself; a folder's files by their path under its base.
    where = [(str(s.root), True) if s.root.is_file() else (str(s.base), False) for s in sources]
    records = {}
    for n, rel in enumerate(rels):
        if not 0 <= source[n] < len(where):
            raise CacheFault("damaged (a file of a source it does not have)")
        base, alone = where[source[n]]
        path = base if alone else os.path.join(base, rel)
        problem = Problem(problem_paths[n], problem_causes[n]) if problem_causes[n] else None
        digest = digests[n].tobytes()
        records[path] = FileRecord(path, rel, source[n], size[n], mtime[n], ctime[n],
                                   digest if any(digest) else b"", problem, 0, first[n], first[n + 1])
    bm25 = meta.get("bm25")
    kept = None
    if bm25 is not None:
        indptr = arrays["bm25.indptr"]
        if len(indptr) - 1 > len(vocabulary) or int(indptr[-1]) != len(arrays["bm25.data"]) or \
                len(arrays["bm25.indices"]) != len(arrays["bm25.data"]):
            raise CacheFault("damaged (its BM25 matrix disagrees with its vocabulary)")
        tf = arrays.get("bm25.tf")
        if tf is not None and len(tf) != len(arrays["bm25.data"]):
            raise CacheFault("damaged (its BM25 counts disagree with its matrix)")
        kept = (arrays["bm25.data"], arrays["bm25.indices"], indptr, tf, bm25["k1"], bm25["b"])
    return records, chunk, vocabulary, int(meta["stat_ns"]), kept


def save_index(index: CodeIndex, sources: Sequence[CodeSource], cache: Path) -> int:
    """Write the index to ``cache`` (one chunk: the rows in order); its size in bytes."""
    files = index.files
    runs = index.runs()
    whole = len(index.chunks) == 1 and runs == [(0, 0, len(index.chunks[0]))]
    chunk = index.chunks[0] if whole else Chunk.gather(index.chunks, runs)
    counts = np.array([f.end - f.first for f in files], dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    arrays = chunk.arrays()
    arrays.update(StringColumn.of(index.vocabulary.words[:]).arrays("vocab"))
    arrays.update(StringColumn.of([f.rel for f in files]).arrays("file.rel"))
    arrays.update(StringColumn.of([f.problem.path if f.problem else "" for f in files]).arrays("file.problem_path"))
    arrays.update(StringColumn.of([f.problem.cause if f.problem else "" for f in files]).arrays("file.problem_cause"))
    arrays.update({"file.source": np.array([f.source for f in files], dtype=np.int32),
                   "file.size": np.array([f.size for f in files], dtype=np.int64),
                   "file.mtime": np.array([f.mtime_ns for f in files], dtype=np.int64),
                   "file.ctime": np.array([f.ctime_ns for f in files], dtype=np.int64),
                   "file.digest": np.frombuffer(b"".join(f.digest.ljust(16, b"\0") for f in files),
                                                dtype=np.uint8).reshape(len(files), 16),
                   "file.first": first})
    meta = {"roots": _roots(sources), "stat_ns": index.stat_ns, "kinds": chunk.kinds, "languages": chunk.languages}
    if index.bm25 is not None:  # kept so that an open with nothing changed builds no BM25 (1.3 s CPU for the monorepo)
        data, indices, indptr, tf, k1, b = index.bm25
        arrays.update({"bm25.data": data, "bm25.indices": indices, "bm25.indptr": indptr})
        if tf is not None:  # the counts a watcher's edit patches the matrix from
            arrays["bm25.tf"] = tf
        meta["bm25"] = {"k1": k1, "b": b}
    return write_arrays(cache, KIND, FORMAT, meta, arrays)



class IndexWriter:
    """Writes an engine's index to its cache file on a thread of its own, so that the first answer
    does not wait for it; not a daemon: a command that ends at once still leaves the cache written.
    Writes coalesce: an index handed in while one is written is written next, the ones between skipped.
    A write that fails (a full disk, a read-only cache) is named once in ``notices``; answers go on."""

    def __init__(self, sources: Sequence[CodeSource], path: Path, notices: list[str]) -> None:
        self.sources, self.path, self.notices = list(sources), path, notices
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pending: CodeIndex | None = None

    def write_later(self, index: CodeIndex) -> None:
        with self._lock:
            self._pending = index
            if self._thread is not None:
                return  # the running writer takes the newest index before it stops
            self._thread = threading.Thread(target=self._run, name="olai-code-index-write")
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                index, self._pending = self._pending, None
                if index is None:
                    self._thread = None
                    return
            try:
                save_index(index, self.sources, self.path)
            except (OSError, ValueError) as exc:
                notice = f"the code index cache {self.path} could not be written: {exc}"
                if notice not in self.notices:
                    self.notices.append(notice)

    def wait(self) -> None:
        """Until the cache holds the latest index handed in."""
        while True:
            with self._lock:
                thread = self._thread
            if thread is None:
                return
            thread.join()
