"""The notes engine: exact matches first, meaning only fills what is left.

``search`` yields two batches: the exact tier (milliseconds, never waits on the model), then the
semantic tier, which fills only ``limit - exact hits`` with notes not already answered, above the
embedder's floor, marked ``≈``. Recall off (``tiers=("exact",)`` or ``OLAI_RECALL=off``) answers
what the exact tier answers and nothing else.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from engines.answer import RESEMBLANCE, Batch, Hit, TierReport
from engines.tiers import choose_tiers, recall_switched_off
from engines.embed.base import Embedder, EmbedderUnavailable
from engines.embed.retry import check_shape
from engines.notes.corpus import CorpusError, CorpusLoad, Note, Problem, load_corpus
from engines.notes.exact import TIER as EXACT, ExactMatcher
from engines.notes.semantic import SemanticIndex

SEMANTIC = "semantic"
TIERS = (EXACT, SEMANTIC)
ENGINE = "notes"



def parse_tiers(tiers: str | Iterable[str] | None) -> tuple[str, ...]:
    """The tiers asked for, validated (None: all). Raises ValueError naming an unknown tier."""
    return choose_tiers(tiers, TIERS, TIERS, ENGINE)


class NotesEngine:
    name = ENGINE
    tiers = TIERS

    def __init__(self, root: str | os.PathLike, embedder: Embedder | None = None,
                 cache_dir: str | None = None, wait_for_index: bool = False,
                 notes: list[Note] | None = None) -> None:
        """A corpus folder or file; or ``notes`` already read (a test collection), ``root`` naming them."""
        self.root = Path(root)
        # CorpusError for a missing/unreadable root
        loaded = load_corpus(self.root) if notes is None else CorpusLoad(list(notes), [])
        self.problems: list[Problem] = loaded.problems
        self._embedder = embedder
        self.wait_for_index = wait_for_index
        self._lock = threading.Lock()
        self._semantic: SemanticIndex | None = None
        self._cache_dir = cache_dir
        self.set_notes(loaded.notes)

    # -- corpus --------------------------------------------------------------------------------
    @property
    def notes(self) -> list[Note]:
        return self._notes

    def _install(self, notes: list[Note]) -> None:
        matcher = ExactMatcher(notes)
        with self._lock:
            self._notes = notes
            self._exact = matcher
        if self._semantic is not None:
            self._semantic.set_notes(notes)

    def replace_file(self, path: str, notes: list[Note]) -> None:
        """Take a file's new notes (none: it was removed)."""
        self.replace_files({path: notes})

    def replace_files(self, changed: dict[str, list[Note]]) -> None:
        """Take several files' new notes at once (the watcher's batch): the indexes are rebuilt once,
        not once per file (1,000 files created in a burst: 10.6 s file by file)."""
        with self._lock:
            for path, notes in changed.items():
                if notes:
                    self._by_file[path] = notes
                else:
                    self._by_file.pop(path, None)
            merged = [n for p in sorted(self._by_file) for n in self._by_file[p]]
        self._install(merged)
        if self._semantic is not None and not self.wait_for_index:
            self._semantic.start()

    def file_paths(self) -> list[str]:
        """The files the notes come from (absolute paths): what the watcher drops when a folder goes."""
        with self._lock:
            return list(self._by_file)

    def reload(self) -> None:
        loaded = load_corpus(self.root)
        self.problems = loaded.problems
        self.set_notes(loaded.notes)

    def set_notes(self, notes: list[Note]) -> None:
        """Replace the whole corpus (a reload, a test collection, a benchmark's edit)."""
        with self._lock:
            self._by_file = {}
            for note in notes:
                self._by_file.setdefault(note.path, []).append(note)
        self._install(list(notes))

    # -- the semantic index --------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from engines.embed.llama import LlamaEmbedder  # lazily: exact-only use never loads it

            self._embedder = LlamaEmbedder()
        return self._embedder

    @property
    def semantic(self) -> SemanticIndex:
        if self._semantic is None:
            index = SemanticIndex(self.embedder, scope=str(self.root.resolve()), cache_dir=self._cache_dir)
            index.set_notes(self._notes)
            self._semantic = index
        return self._semantic

    def build_index(self, progress=None):
        return self.semantic.build(progress=progress)

    def start_indexing(self) -> None:
        self.semantic.start()

    def close(self) -> None:
        if self._semantic is not None:
            self._semantic.stop()

    # -- searching -----------------------------------------------------------------------------
    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        wanted = parse_tiers(tiers)
        with self._lock:
            exact, notes = self._exact, self._notes
        started = time.perf_counter()
        if EXACT in wanted:
            result = exact.search(query, limit)
            hits, matched = result.hits, result.matched
            exact_report = TierReport(EXACT, "answered" if hits else "empty", _ms(started), len(hits))
        else:
            hits, matched = [], []
            exact_report = TierReport(EXACT, "off", None, 0, enable="add exact to --tiers")
        yield Batch(hits=hits, tiers=[exact_report], total=len(matched))

        if SEMANTIC not in wanted or recall_switched_off():
            how = "unset OLAI_RECALL" if recall_switched_off() else "add semantic to --tiers"
            yield Batch(hits=[], tiers=[TierReport(SEMANTIC, "off", None, 0, enable=how)])
            return
        if not query.strip():
            yield Batch(hits=[], tiers=[TierReport(SEMANTIC, "skipped", None, 0, reason="nothing to search for")])
            return
        room = limit - len(hits)
        if room <= 0:
            yield Batch(hits=[], tiers=[TierReport(SEMANTIC, "skipped", None, 0,
                                                   reason="exact matches filled the limit")])
            return
        # room > 0 means every exact match is already shown: they are all excluded from the fill.
        yield self._semantic_fill(query, {notes[i].id for i in matched}, room)

    def _semantic_fill(self, query: str, answered: set[str], room: int) -> Batch:
        index = self.semantic
        if self.wait_for_index:
            index.build()  # the command line waits for the index (with its own progress line) ...
        else:
            index.start()
        started = time.perf_counter()  # ... and the tier's time is the answer's, not the build's
        state = index.state()
        if state.state in ("unavailable", "failed"):
            return Batch(hits=[], tiers=[TierReport(SEMANTIC, state.state, None, 0, reason=state.reason,
                                                    enable=state.enable)])
        try:
            info = self.embedder.info()
            vectors = self.embedder.embed([query], "query")
            check_shape(vectors, 1, info.dims)  # a query vector of another width than the index's
            vector = vectors[0]
        except EmbedderUnavailable as exc:
            return Batch(hits=[], tiers=[TierReport(SEMANTIC, "unavailable", None, 0, reason=exc.reason,
                                                    enable=exc.enable)])
        except Exception as exc:  # noqa: BLE001 - meaning failing never takes exact answers down
            return Batch(hits=[], tiers=[TierReport(SEMANTIC, "failed", None, 0, reason=f"embedding the query failed: {exc}")])
        found = index.neighbours(vector, info.floor, exclude_ids=answered, room=room)
        hits = [
            Hit(id=note.id, title=note.title, where=note.where, tier=SEMANTIC, score=round(score, 4),
                marker=RESEMBLANCE)
            for note, score in found.ranked
        ]
        state = index.state()
        status = "indexing" if state.state != "ready" else ("answered" if hits else "empty")
        report = TierReport(SEMANTIC, status, _ms(started), len(hits),
                            done=state.done if status == "indexing" else None,
                            of=state.of if status == "indexing" else None)
        return Batch(hits=hits, tiers=[report], total=len(answered) + found.above_floor)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


__all__ = ["NotesEngine", "TIERS", "EXACT", "SEMANTIC", "parse_tiers", "CorpusError"]
