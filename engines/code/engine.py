"""The code engine: BM25 over symbols always answers; the embedding tier adds meaning.

The embedding tier's vectors are the trained code table's (static_vectors.py: every symbol in seconds,
``"vectors": {"static": 1.0}``; a question asked in words has its first rows re-read by MiniLM:
reread.py) unless contextual vectors are asked for (``[code] contextual = true`` in config.toml, or an
embedder handed in: MiniLM, about an hour on a large tree). Then the static vectors answer for every
symbol until MiniLM's index is complete (the tier says ``answered`` with each kind's share and MiniLM's
done/of, a row ``"vectors": "static"``), and MiniLM's after.

``search`` yields batches in the envelope of engines/answer.py:

- lexical only (``--tiers lexical``): one batch of BM25 hits, the embedding tier reported ``off``.
- with the embedding tier, while the vectors that answer are still building: the lexical batch at
  once, then the symbols embedded so far fill what is left of the limit, marked ``≈`` (``indexing done/of``).
- with them ready: one batch merging both (``merge="fused"``, the default, chosen by measurement, with
  each kind of vectors' own weights: merge.py; ``merge="merged"`` keeps lexical first and fills with
  meaning). A query embedding costs milliseconds, so the merged answer is not held back behind a slow
  model, and a row once shown never moves.

Source never leaves the process: the embedder is always the local llama.cpp one (or one a test
passes in); a remote endpoint configured for other panes is ignored here, with a notice.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from engines.answer import Batch, TierReport, ms_since
from engines.bounded_read import read_lines
from engines.contract import Engine, EngineStatus, Passage, Ranked, Watcher, ranked_by_search
from engines.tiers import recall_switched_off
from engines.code.code_index import CodeIndex
from engines.code.constructors import TOP, classes_first
from engines.code.corpus import NO_CODE_FILES, CodeSource, CorpusError, module_sources, tree_source
from engines.gcpause import paused_gc
from engines.code.index_store import IndexWriter, cache_file, edited_record, open_index
from engines.code.lexical_tier import TIER as LEXICAL, LexicalIndex, symbol_counts
from engines.code.meaning import Meaning, hits_of, nearest, union_total
from engines.code.knobs import KNOBS
from engines.code.merge import (ALIASES, BLEND_WEIGHT_SYMBOL, EMBEDDING, MERGES, STATIC_QUESTION_SHARE, blend, fill, fuse,
                                question_asked, weigh)
from engines.code.milvus.routed import Routed
from engines.code.milvus.router import SearchSettings
from engines.code.presenting import CodePresenting
from engines.code.ranking import stand_alone, symbol_query
from engines.code.reread import Reread, RereadRows
from engines.code.symbols import Symbol
from engines.code.vector_kinds import (CANDIDATES, CONTEXTUAL, STATIC, TwoKindsOfVectors, contextual_asked,
                                       said_vectors)
from engines.code.vectors import VectorIndex
from engines.embed.background_index import LazyVectors
from engines.embed.base import Embedder
from engines.problems import Problem

ENGINE = "code"
TIERS = (LEXICAL, EMBEDDING)
DEFAULT_TIERS = (LEXICAL, EMBEDDING)  # meaning by the trained code table from the first search
ENABLE_EMBEDDING = "add embedding to --tiers (or switch it on in the palette)"


class CodeEngine(TwoKindsOfVectors, RereadRows, LazyVectors, CodePresenting, Engine):
    name = ENGINE
    tiers = TIERS
    knobs = KNOBS  # engines/code/knobs.py: what a person may set per corpus
    default_tiers = DEFAULT_TIERS
    evidence_tiers = (LEXICAL,)
    model_tiers = (EMBEDDING,)
    item_noun = "symbols"

    def __init__(self, root: str | os.PathLike | None = None, modules: Sequence[str] = (),
                 embedder: Embedder | None = None, cache_dir: str | None = None, wait_for_index: bool = False,
                 merge: str = "fused", symbols: list[Symbol] | None = None, scope: str | None = None,
                 remote_endpoint: str | None = None, progress: Callable[[int, int], None] | None = None,
                 persist: bool = True, search: SearchSettings | None = None, static: bool = True,
                 static_embedder: Embedder | None = None, contextual: bool | None = None, reread: bool = True) -> None:
        """A source tree (``root``), installed ``modules``, or ``symbols`` already read (a benchmark);
        ``progress(files read, of)`` while a tree is read. ``persist``: keep the tree's index in the
        cache (under ``cache_dir`` when given, else the user cache) and read it back on the next open.
        ``search``: which backend answers (engines/code/milvus/router.py); None: config's ``[code.search]``.
        ``contextual``: whether contextual vectors are asked for (None: where an ``embedder`` is given or
        config.toml asks; their model is ``embedder``, else the configured one, MiniLM). ``static``: the
        trained code table's vectors answer first (``static_embedder``: another table, for the tuning tools).
        ``reread``: MiniLM re-reads a question's first rows (reread.py).

        Raises CorpusError (one line) when the tree or a module cannot be read.
        """
        merge = ALIASES.get(merge, merge)
        if merge not in MERGES:
            raise ValueError(f"unknown merge {merge!r} (choose from {', '.join(MERGES)})")
        self.merge = merge
        self.wait_for_index = wait_for_index
        self._engine_notices: list[str] = []
        if remote_endpoint:
            self._engine_notices.append(f"the code pane never sends source anywhere: the configured endpoint "
                                f"{remote_endpoint} is ignored here; the local model embeds")
        self._cache_dir, self._index_file, self._writer = cache_dir, None, None
        self.parsed = 0  # files parsed by the last open (the rest came from the cache)
        if symbols is not None:
            self.sources: list[CodeSource] = []
            self.root = Path(root) if root is not None else Path(".")
            symbols = list(symbols)
            index = CodeIndex.of_symbols(symbols, [symbol_counts(s) for s in symbols])
            self.problems: list[Problem] = []
            self.files, changed = 0, False
        else:
            if modules:
                self.sources = module_sources(list(modules))
            elif root is not None:
                self.sources = [tree_source(root)]
            else:
                raise CorpusError("no corpus: give a folder or --modules")
            self.root = self.sources[0].root
            if persist:
                self._index_file = cache_file(self.sources, Path(cache_dir) / "code-index" if cache_dir else None)
                self._writer = IndexWriter(self.sources, self._index_file, self._engine_notices)
            index, changed = self._open(progress)
        self.label = ", ".join(s.label for s in self.sources) if self.sources else str(self.root)
        self._scope = scope or "|".join(str(s.root) for s in self.sources) or str(self.root)
        self._embedder = embedder
        self._vectors: VectorIndex | None = None
        self._contextual = (embedder is not None or contextual_asked()) if contextual is None else contextual
        self._static_wanted, self._static_embedder = static, static_embedder
        self._static = self._static_problem = None  # the table's index, or why it cannot answer (vector_kinds.py)
        self._lock = threading.Lock()
        self._router = Routed(self, search)
        self._reread = Reread(lambda: self.embedder, self._scope, cache_dir) if reread else None
        self._install(index, write=changed)

    def _open(self, progress: Callable[[int, int], None] | None = None) -> tuple[CodeIndex, bool]:
        """The sources' index: from the cache where the files are unchanged, the rest parsed (index_store.py)."""
        with paused_gc():  # the collector finds nothing in a load and cost more than half its time (gcpause.py)
            opened = open_index(self.sources, self._index_file, progress)
        for notice in opened.notices:
            if notice not in self._engine_notices:  # said once
                self._engine_notices.append(notice)
        self.problems = opened.walk_problems + opened.index.problems()
        self.files, self.parsed = len(opened.index.files), opened.parsed
        if not self.files and not self.problems:
            self.problems.append(Problem(", ".join(s.label for s in self.sources) or ".", NO_CODE_FILES))
        return opened.index, opened.changed

    # -- corpus --------------------------------------------------------------------------------
    @property
    def symbols(self) -> Sequence[Symbol]:
        return self._symbols

    @property
    def index_file(self) -> Path | None:
        """Where the kept index lives in the user cache (None: not kept, e.g. symbols given in memory)."""
        return self._index_file

    @property
    def indexed_files(self):
        """The files of the index as read now, in order (each with its symbols' first and end row)."""
        return self._index.files

    @property
    def lexical_tier(self) -> LexicalIndex:
        """The BM25 tier as built now: the evaluation scores it apart from the merge."""
        return self._lexical

    def reload(self) -> None:
        """Read the whole corpus again (the pane's rebuild): changed files parsed, the rest from the cache."""
        if not self.sources:
            return
        self._install(*self._open())

    def replace_file(self, path: str, symbols: list[Symbol], problem: Problem | None = None,
                     rel: str | None = None) -> None:
        """Take one file's new symbols (none: it was removed or no longer parses); the watcher calls this.

        ``problem``: why the file gives no symbols now; ``rel``: its name in problems, to clear an old one.
        """
        self.replace_files([(path, symbols, problem, rel)])

    def replace_files(self, changes: list[tuple[str, list[Symbol], Problem | None, str | None]]) -> None:
        """Several files' (path, symbols, problem, rel) at once, the watcher's batch: BM25 is rebuilt
        once, not once per file (1,000 files written in a burst were not all in after 100 s)."""
        prepared = [(edited_record(self.sources, path, rel, problem), symbols, [symbol_counts(s) for s in symbols])
                    for path, symbols, problem, rel in changes]  # off the lock: the changed files' words counted
        with self._lock:
            for path, symbols, problem, rel in changes:
                named = {rel, problem.path if problem else None} - {None}
                self.problems = [p for p in self.problems if p.path not in named] + ([problem] if problem else [])
            index, previous = self._index.replaced(prepared), self._lexical
        self._install(index, True, previous)  # only the changed files' words counted again; BM25 patched
        if self._vectors is not None and not self.wait_for_index:
            self._vectors.start()

    def file_paths(self) -> list[str]:
        """The files the symbols come from (absolute paths): what the watcher drops when a folder goes."""
        return [f.path for f in self._index.files if f.end > f.first]  # an index never changes: no lock

    def _install(self, index: CodeIndex, write: bool = False, previous: LexicalIndex | None = None) -> None:
        """Search ``index`` from now on; ``write``: to the cache too, after the BM25 matrix is built (it is kept)."""
        lexical = LexicalIndex.of_index(index, previous)  # inline: the first answer needs it
        with self._lock:
            self._index = index
            self._symbols = lexical.symbols
            self._lexical = lexical
        if write and self._writer is not None:
            self._writer.write_later(index)
        if self._vectors is not None:
            self._vectors.set_texts(index.embed_texts())
        if self._static is not None:
            self._static.set_index(index, self._meaning_file())

    # -- the embedding index (made on first use: engines/embed/background_index.py) -------------
    def _new_index(self) -> VectorIndex:
        index = VectorIndex(self.embedder, scope=self._scope, cache_dir=self._cache_dir)
        index.set_texts(self._index.embed_texts())
        return index

    def close(self) -> None:
        self.stop_indexing()
        self.wait_saved()
        self._router.close()

    def wait_saved(self) -> None:
        """Block until the cache holds the latest index (tests, the benchmark, close)."""
        if self._writer is not None:
            self._writer.wait()

    # -- the engine contract (engines/contract.py) -----------------------------------------------
    def items(self) -> int:
        return len(self._symbols)

    def listing(self):
        return ((s.id, s.title, s.where) for s in self._symbols)

    @property
    def corpus_label(self) -> str:
        return self.label

    def start(self) -> None:
        """The static vectors start building (seconds), and MiniLM's after them where asked for."""
        if not recall_switched_off():
            self.start_indexing()

    def watch(self) -> Watcher | None:
        from engines.code.live import CodeWatcher

        if not self.sources:
            return None  # symbols handed in (a benchmark): nothing on disk to follow
        watcher = CodeWatcher(self)
        watcher.start()
        return watcher

    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        if tier == EMBEDDING and not recall_switched_off():
            source = self._meaning_source()
            if not isinstance(source, TierReport):
                source[0].build()  # a tier's own ranking is its whole answer, not what is embedded so far
        return ranked_by_search(self, tier, query, depth)

    def symbol_of(self, item_id: str) -> Symbol | None:
        index = self._index  # swapped whole by an install: read once
        position = index.position_of(item_id)
        return None if position is None else index.symbol(position)

    def read(self, item_id: str) -> Passage:
        symbol = self.symbol_of(item_id)
        if symbol is None:
            raise KeyError(item_id)
        try:
            text, cut = read_lines(symbol.path, symbol.line, symbol.end_line)
        except OSError:
            text, cut = symbol.source, False  # gone from disk since it was read: the lines as read
        return Passage(symbol.id, symbol.title, symbol.where, text, symbol.path, symbol.line, symbol.end_line, cut,
                       getattr(symbol, "language", "python"))

    def status(self) -> EngineStatus:
        tiers = [TierReport(LEXICAL, "answered", count=len(self._symbols)), self.embedding_status()]
        return EngineStatus(self.name, self.label, len(self._symbols), tiers, self.notices())

    def notices(self) -> list[str]:
        return list(self._engine_notices) + self._router.notices() + self.vector_notices()

    def fingerprint(self) -> str:
        """Which symbols the index holds now (a published tree's version is checked against it)."""
        return self._router.fingerprint(self._index, self._symbols)

    # -- searching -----------------------------------------------------------------------------
    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        wanted = self.parse_tiers(tiers)
        with self._lock:
            lexical, symbols = self._lexical, self._symbols
        started = time.perf_counter()
        extras: dict = {}
        if LEXICAL in wanted:
            ranked, total, extras, failed = self._router.lexical(lexical, query, max(limit, CANDIDATES))
            lexical_report = TierReport(LEXICAL, "answered" if ranked else "empty", ms_since(started), min(limit, len(ranked)))
            if failed:
                lexical_report = TierReport(LEXICAL, "failed", ms_since(started), 0, reason=failed)
        else:
            ranked, total = [], 0
            lexical_report = TierReport(LEXICAL, "off", None, 0, enable="add lexical to --tiers")

        if EMBEDDING not in wanted or recall_switched_off() or not query.strip():
            if EMBEDDING not in wanted or recall_switched_off():
                how = "unset OLAI_RECALL" if recall_switched_off() else ENABLE_EMBEDDING
                embedding_report = TierReport(EMBEDDING, "off", None, 0, enable=how)
            else:
                embedding_report = TierReport(EMBEDDING, "skipped", None, 0, reason="nothing to search for")
            yield Batch(hits=hits_of(symbols, fill(ranked, [], limit)), tiers=[lexical_report, embedding_report],
                        total=total, extras=extras)
            return

        # Milvus's nearest symbols, when it holds the contextual model's vectors (published by `index code
        # --backend milvus`): asked whatever this engine builds locally
        remote = self._router.meaning(query, extras)
        if remote is not None:
            yield self._fused(symbols, lexical, query, ranked, remote, limit, wanted, lexical_report, extras,
                              time.perf_counter(), CONTEXTUAL)
            return
        source = self._meaning_source()
        if isinstance(source, TierReport):  # the trained table cannot answer and nothing else was asked for
            yield Batch(hits=hits_of(symbols, fill(ranked, [], limit)), tiers=[lexical_report, source], total=total,
                        extras=extras)
            return
        index, embedder, kind = source
        state = index.state()
        if state.state != "ready" or self.merge == "merged":
            # Lexical at once; meaning (what is embedded so far) fills what is left.
            shown = fill(ranked, [], limit)
            yield Batch(hits=hits_of(symbols, shown), tiers=[lexical_report], total=total, extras=extras)
            if state.state in ("unavailable", "failed"):
                yield Batch(hits=[], tiers=[TierReport(EMBEDDING, state.state, None, 0, reason=state.reason,
                                                       enable=state.enable)])
                return
            if len(shown) >= limit:
                yield Batch(hits=[], tiers=[self._embedding_report(index, "skipped", None, 0,
                                                                   "lexical hits filled the limit")])
                return
            started = time.perf_counter()
            meaning = nearest(embedder, index, query, CANDIDATES)
            if isinstance(meaning, TierReport):
                yield Batch(hits=[], tiers=[meaning])
                return
            added = fill(ranked, meaning.ranked, limit)[len(shown):]
            status = "answered" if added else "empty"
            yield Batch(hits=said_vectors(hits_of(symbols, added), kind),
                        tiers=[self._embedding_report(index, status, ms_since(started), len(added))],
                        total=union_total(lexical, query, wanted, meaning))
            return

        started = time.perf_counter()
        meaning = nearest(embedder, index, query, CANDIDATES)
        if isinstance(meaning, TierReport):
            yield Batch(hits=hits_of(symbols, fill(ranked, [], limit)), tiers=[lexical_report, meaning], total=total,
                        extras=extras)
            return
        yield self._fused(symbols, lexical, query, ranked, meaning, limit, wanted, lexical_report, extras, started, kind)

    def _fused(self, symbols, lexical: LexicalIndex, query: str, ranked, meaning: Meaning, limit: int, wanted,
               lexical_report: TierReport, extras: dict, started: float, kind: str) -> Batch:
        """Both tiers' rankings as one, with the fusion of the vectors that answered (``kind``: merge.py):
        the trained table's meaning reorders the lexical tier's rows and fills behind them (``weigh``);
        MiniLM's is blended with a source tree's lexical ranking and leads an RRF over pathless functions."""
        static = kind == STATIC
        symbol_asked = lexical.shape.has_paths and symbol_query(query)  # a name asked for: the words' order
        if static:
            asked = lexical.shape.has_paths and not symbol_asked and question_asked(query)  # constructors.py: words
            share = (BLEND_WEIGHT_SYMBOL if symbol_asked else STATIC_QUESTION_SHARE if asked
                     else KNOBS.value("tree_meaning_share")) if lexical.shape.has_paths else KNOBS.value("meaning_share")
            if lexical.shape.has_paths and not symbol_asked:  # a function named for the question that the
                # table finds too stands alone (ranking.py); not in MiniLM's blend, where it cost more
                # (semble dev fused 0.8693 -> 0.8673, architecture 0.7983 -> 0.7948)
                ranked = stand_alone(query, ranked, lexical.shape, meaning.ranked)
            merged = weigh(ranked, meaning.cosines_of([p for p, _ in ranked]), meaning.ranked,
                           max(limit, CANDIDATES if asked else TOP + 1), share)
            merged, said = self._reread_rows(classes_first(merged, symbols, lexical, query), symbols, query) \
                if asked and ranked else (merged, None)  # MiniLM re-reads the first rows (reread.py)
            merged = merged[:limit]
        elif lexical.shape.has_paths and ranked:
            merged = blend(ranked, meaning.ranked, limit, BLEND_WEIGHT_SYMBOL if symbol_asked else KNOBS.value("tree_blend_weight"))
        else:
            merged = fuse(ranked, meaning.ranked, limit)
        embedding_report = TierReport(EMBEDDING, "answered" if meaning.ranked else "empty", ms_since(started),
                                      sum(1 for m in merged if EMBEDDING in m.ranks))
        if static:
            embedding_report = self._static_report(embedding_report)
            embedding_report.reason = said or embedding_report.reason
        lexical_report.count = sum(1 for m in merged if LEXICAL in m.ranks)
        return Batch(hits=said_vectors(hits_of(symbols, merged), kind), tiers=[lexical_report, embedding_report],
                     total=union_total(lexical, query, wanted, meaning), extras={"merge": "fused", **extras})

    def _embedding_report(self, index: VectorIndex, status: str, ms: float | None, count: int,
                          reason: str | None = None) -> TierReport:
        state = index.state()
        if state.state != "ready" and status != "skipped":
            return TierReport(EMBEDDING, "indexing", ms, count, done=state.done, of=state.of, reason=state.reason)
        return TierReport(EMBEDDING, status, ms, count, reason=reason)


__all__ = ["CodeEngine", "TIERS", "DEFAULT_TIERS", "LEXICAL", "EMBEDDING", "CorpusError"]
