"""The notes engine: exact matches first; words and meaning only fill what is left.

``search`` yields two batches: the exact tier (milliseconds, never waits on the model), then one fill
batch with the notes not already answered, at most ``limit - exact hits`` of them. The fill ranks by
reciprocal rank fusion (k = 60, LEG_WEIGHTS; engines/notes/fill_rows.py) of two legs,
each over the notes exact did not answer:

- words: BM25 over each note's title and body (engines/notes/words.py); a note it finds holds at
  least one of the query's (stemmed) words;
- semantic: the local model's vectors, the note ranked by the mean of its best passage's cosine and
  its whole text's (engines/notes/semantic.py).

A note is shown for its words when it holds enough of the query's distinct words (words.py) and its
meaning is not below what off-topic probes reach (``fill.words_incidental``: shared words, no shared meaning), for its
meaning when its best passage's cosine reaches this notebook's floor (floor.py: measured from off-topic
probes, never under the embedder's), so an off-topic query draws no confident resemblance rows; a note
neither admits is never shown, whatever its fused rank, except as a weak guess (``≈?``, at most three,
over the notebook's weak bound) when neither evidence nor a confident resemblance answered at all.
A row's tier is what admitted it, and where both did, the leg that ranked it higher: a ``words`` row
is word evidence (no marker), a ``semantic`` row is resemblance, marked ``≈`` (its score: that best
passage cosine). With one of the two tiers switched off, the other fills alone. Recall off (``tiers=("exact",)`` or ``OLAI_RECALL=off``) answers
what the exact tier answers and nothing else.

Measured (`olai-tui eval notes --split dev`, nDCG@10): the shipped answer was 0.470 on Vaswani and
0.350 on Cranfield with meaning alone filling; fusing the words leg in took it to 0.506 and 0.393, and
ranking meaning by best passage and whole note together (semantic.py) to 0.519 and 0.398, above the
plain RRF baseline on Vaswani (0.510), under it on Cranfield (0.405); leaving incidental words out
(2026-12-01) kept them at 0.5201 and 0.3984.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Iterator, Sequence

from engines.answer import Batch, TierReport, answered_by_vectors, ms_since
from engines.bounded_read import bounded
from engines.contract import Engine, EngineStatus, Passage, Ranked, Watcher, model_tier_report, ranked_by_search
from engines.tiers import recall_switched_off
from engines.embed.background_index import LazyVectors
from engines.embed.base import Embedder
from engines.embed.index_state import IndexState
from engines.gcpause import paused_gc
from engines.memory import give_back_free_memory
from engines.embed.query import query_vector
from engines.notes.corpus import CorpusError, CorpusLoad, Note
from engines.notes.documents import location
from engines.notes.readers import DOCUMENT_SUFFIXES
from engines.notes.exact import TIER as EXACT, ExactMatcher
from engines.notes.filters import might_filter, read_query
from engines.notes.fill import filtered_only
from engines.notes.first_notes import FINISH_AT_MOST, candidates
from engines.notes.fill_rows import FILL_TIERS, SEMANTIC, WORDS, fill_rows
from engines.notes.floor import unmeasured
from engines.notes.knobs import KNOBS
from engines.notes.positions import note_ids
from engines.notes.presenting import NotesPresenting, shown_with
from engines.notes.semantic import SemanticIndex
from engines.notes.static_first import StaticStandIn
from engines.notes.store import open_notes
from engines.notes.words import WordsIndex
from engines.problems import Problem

TIERS = (EXACT, WORDS, SEMANTIC)
ENGINE = "notes"


class NotesEngine(StaticStandIn, LazyVectors, NotesPresenting, Engine):
    name = ENGINE
    tiers = TIERS
    knobs = KNOBS  # engines/notes/knobs.py: what a person may set per corpus
    default_tiers = TIERS
    evidence_tiers = (EXACT, WORDS)
    model_tiers = (SEMANTIC,)
    item_noun = "notes"
    embedded_noun = "passages embedded"
    # A one-shot's deadline (time.monotonic): until then a search while the model's index builds waits
    # for the model's vectors of the notes it is about (first_notes.py); None: never waits (the workbench)
    answer_by: float | None = None

    def __init__(self, root: str | os.PathLike, embedder: Embedder | None = None,
                 cache_dir: str | None = None, wait_for_index: bool = False,
                 notes: list[Note] | None = None, progress=None, static: Embedder | bool | None = None) -> None:
        """A corpus folder or file; or ``notes`` already read (a test collection), ``root`` naming them;
        ``progress(done, of, what)``: told how reading a large folder moves; ``static``: the embedder
        whose vectors stand in while the model's index builds (engines/notes/static_first.py): the
        shipped static one where the engine chooses its own model (``embedder`` None), none where a
        caller gives its own model, unless given too (True: the shipped one)."""
        self.root = Path(root)
        self._cache_dir = cache_dir
        # CorpusError for a missing/unreadable root; a folder's notes come from its saved index where
        # its files are unchanged (engines/notes/store.py)
        with paused_gc():  # a vault's notes are 100,000s of objects; the collector finds nothing in them
            if notes is None:
                loaded, store = open_notes(self.root, cache_dir, progress)
            else:
                loaded, store = CorpusLoad(list(notes), []), None
            self.problems: list[Problem] = loaded.problems
            self._embedder = embedder
            self._static_embedder = static if static is not None and static is not True else None
            self._static_wanted = static is True or (static is None and embedder is None) or self._static_embedder is not None
            self._static: SemanticIndex | None = None
            self._sequence = None
            self.wait_for_index = wait_for_index
            self._lock = threading.Lock()
            self._vectors: SemanticIndex | None = None
            self._exact: ExactMatcher | None = None
            self._words = WordsIndex(store)
            self._take_all(loaded.notes)
        give_back_free_memory()  # what reading the index freed: 24 MB of a 100,000-note vault's, in 14 ms

    # -- corpus --------------------------------------------------------------------------------
    @property
    def words_tier(self) -> WordsIndex:
        """The words (BM25) tier as built now, with its saved index (``store``) where one is kept."""
        return self._words

    @property
    def notes(self) -> list[Note]:
        return self._notes

    def _install(self, notes: list[Note]) -> None:
        store = self._words.store
        saved = store.saved_exact(notes) if store is not None else None
        if saved is not None:
            matcher = ExactMatcher.from_parts(notes, *saved)
        else:  # the notes an edit left as they were keep their fold (the matcher now held: read, never changed)
            matcher = ExactMatcher(notes, previous=self._exact)
        if store is not None:
            store.matcher = matcher
        ids = note_ids(notes)  # one id -> index map of these notes, made when first asked, for both tiers
        with self._lock:
            self._notes, self._ids = notes, ids
            self._exact = matcher
        self._words.set_notes(notes, ids)
        if self._vectors is not None:
            self._vectors.set_notes(notes, ids)
            if self._static is not None:
                self._static.share_notes(self._vectors)

    def replace_file(self, path: str, notes: list[Note]) -> None:
        """Take a file's new notes (none: it was removed)."""
        self.replace_files({path: notes})

    def replace_files(self, changed: dict[str, list[Note]]) -> None:
        """Take several files' new notes at once (the watcher's batch): the indexes are rebuilt once,
        not once per file (1,000 files created in a burst: 10.6 s file by file)."""
        if self._words.store is not None:
            self._words.store.forget(changed)  # read again at the next open, whatever the watcher saw
        with self._lock:
            if self._by_file is None:
                self._by_file = _by_file(self._notes)
            for path, notes in changed.items():
                if notes:
                    self._by_file[path] = notes
                else:
                    self._by_file.pop(path, None)
            merged = [n for p in sorted(self._by_file) for n in self._by_file[p]]
        self._install(merged)
        if self._vectors is not None and not self.wait_for_index:
            self.start_indexing()

    def file_paths(self) -> list[str]:
        """The files the notes come from (absolute paths): what the watcher drops when a folder goes."""
        with self._lock:
            return list(self._by_file if self._by_file is not None else dict.fromkeys(n.path for n in self._notes))

    def close(self) -> None:
        """Stop the meaning index's build and the words build (and wait for the save a finished one began)."""
        super().close()
        self._words.close()

    def reload(self) -> None:
        loaded, store = open_notes(self.root, self._cache_dir)
        self.problems = loaded.problems
        self._words.store = store
        self._take_all(loaded.notes)

    def set_notes(self, notes: list[Note]) -> None:
        """Replace the whole corpus (a test collection, a benchmark's edit): notes not read from the
        folder as it is, so the saved index is no longer written from them."""
        if self._words.store is not None:
            self._words.store.attached = False
            self._words.store = None  # its rows are keyed by content_hash, which such notes may not have kept
        self._take_all(notes)

    def _take_all(self, notes: list[Note]) -> None:
        with self._lock:
            # each file's notes, grouped when a first edit needs them: held from the open, the groups of
            # a 100,000-note vault took 12.6 MB (tracemalloc) that a vault never edited does not need
            self._by_file: dict[str, list[Note]] | None = None
        self._install(list(notes))

    # -- the semantic index (made on first use: engines/embed/background_index.py) ---------------
    def _new_index(self) -> SemanticIndex:
        index = SemanticIndex(self.embedder, scope=str(self.root.resolve()), cache_dir=self._cache_dir)
        # the cache first: the notes' texts are kept only where it lacks their vectors (a warm vault keeps
        # none), and the count made under the index's lock when a build starts finds them kept already
        # (finding them there held the lock, and the workbench's footer with it, ~2 s on a cold vault)
        index.open_cache()
        index.set_notes(self._notes, self._ids)
        return index

    # -- the engine contract (engines/contract.py) -----------------------------------------------
    def items(self) -> int:
        return len(self._notes)

    def listing(self):
        return ((n.id, n.title, n.where) for n in self._notes)

    @property
    def corpus_label(self) -> str:
        return str(self.root)

    def watch(self) -> Watcher | None:
        from engines.notes.live import NotesWatcher

        if not self.root.exists():
            return None  # a test collection read into memory: nothing on disk to follow
        watcher = NotesWatcher(self)
        watcher.start()
        return watcher

    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        return ranked_by_search(self, tier, query, depth)

    def read(self, item_id: str) -> Passage:
        with self._lock:
            notes, ids = self._notes, self._ids
        # A row's preview, on the interface's thread: the walk of the notes it replaces took 4.9 ms a read
        # at the 100,000-note vault (more the further the note lies); the engine's id map 0.02 ms.
        at = ids.get(item_id)
        if at is None:
            raise KeyError(item_id)
        note = notes[at]
        text, cut = bounded(note.title + "\n\n" + note.body)
        line = note.where.rpartition(":")[2]
        start = int(line) if line.isdigit() else 1
        return Passage(note.id, note.title, note.where, text, note.path, start, None, cut, **shown_with(note))

    def status(self) -> EngineStatus:
        tiers = [TierReport(EXACT, "answered", count=len(self._notes)),
                 TierReport(WORDS, "answered", count=len(self._notes)) if not recall_switched_off()
                 else TierReport(WORDS, "off", enable="unset OLAI_RECALL"),
                 self._with_coverage(model_tier_report(
                     SEMANTIC, self._vectors.state() if self._vectors is not None else
                     IndexState("building", 0, len(self._notes)) if self.being_made() else None, recall_switched_off()))]
        return EngineStatus(self.name, str(self.root), len(self._notes), tiers, self.notices())

    def notices(self) -> list[str]:
        store = self._words.store
        saved = list(store.notices) if store is not None else []  # a saved index discarded, or not saved
        return saved + self.vector_notices()

    # -- searching -----------------------------------------------------------------------------
    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        for batch in self._answer(query, limit, tiers):
            with self._lock:
                notes, ids = self._notes, self._ids
            for hit in batch.hits:  # a document's hit says where in it: its page, or its line and heading
                at = ids.get(hit.id)
                if at is not None and notes[at].path.lower().endswith(DOCUMENT_SUFFIXES):
                    hit.extras.update(location(notes[at]))
            yield batch

    def _answer(self, query: str, limit: int, tiers: Sequence[str] | str | None) -> Iterator[Batch]:
        wanted = self.parse_tiers(tiers)
        with self._lock:
            exact, notes = self._exact, self._notes
        started = time.perf_counter()
        read = read_query(query, notes) if might_filter(query) else None  # engines/notes/filters.py
        extras = {"understood": read.understood()} if read is not None and read.read_anything else {}
        allowed = None  # the note indices the filters let through: every tier searches only these
        if read is not None:
            query = read.words
            if read.filters.active:
                allowed = {i for i, note in enumerate(notes) if read.filters.allows(note)}
        if EXACT in wanted and allowed is not None and not query.strip():
            hits, matched = filtered_only(notes, allowed, limit), sorted(allowed)
            exact_report = TierReport(EXACT, "answered" if hits else "empty", ms_since(started), len(hits))
        elif EXACT in wanted:
            result = exact.search(query, limit, allowed)
            hits, matched = result.hits, result.matched
            exact_report = TierReport(EXACT, "answered" if hits else "empty", ms_since(started), len(hits))
        else:
            hits, matched = [], []
            exact_report = TierReport(EXACT, "off", None, 0, enable="add exact to --tiers")
        yield Batch(hits=hits, tiers=[exact_report], total=len(matched), extras=extras)

        reports: dict[str, TierReport] = {}
        for tier in FILL_TIERS:
            if recall_switched_off():
                reports[tier] = TierReport(tier, "off", None, 0, enable="unset OLAI_RECALL")
            elif tier not in wanted:
                reports[tier] = TierReport(tier, "off", None, 0, enable=f"add {tier} to --tiers")
        on = [t for t in FILL_TIERS if t not in reports]
        room = limit - len(hits)
        why = None if not on else "nothing to search for" if not query.strip() else (
            "exact matches filled the limit" if room <= 0 else None)
        if not on or why:
            for tier in on:
                reports[tier] = TierReport(tier, "skipped", None, 0, reason=why)
            yield Batch(hits=[], tiers=[reports[t] for t in FILL_TIERS])
            return
        # room > 0 means every exact match is already shown: they are all excluded from the fill.
        allowed_ids = None if allowed is None else {notes[i].id for i in allowed}
        yield self._fill(query, {notes[i].id for i in matched}, room, on, reports, allowed_ids)

    def _fill(self, query: str, answered: set[str], room: int, on: list[str],
              reports: dict[str, TierReport], allowed: set[str] | None = None) -> Batch:
        """The fill batch: the words and semantic legs fused, each row labelled with the leg that found it;
        ``allowed``: the note ids the query's filters let through (None: every note)."""
        words = meaning = None
        floors = unmeasured(0.0)
        if WORDS in on:
            started = time.perf_counter()
            words = self._words.ranked(query)
            reports[WORDS] = TierReport(WORDS, "answered", ms_since(started), 0)
        if SEMANTIC in on:
            reports[SEMANTIC], meaning, floors = self._semantic_leg(query, words)
        return fill_rows(words, meaning, floors, answered, room, on, reports, allowed)

    def _semantic_leg(self, query: str, words=None):
        """(the semantic tier's report, every embedded note by cosine or None, this notebook's floors);
        ``words``: the words leg's ranking, whose first notes the model embeds first (first_notes.py)."""
        while self.answer_by is not None and self.being_made() and time.monotonic() < self.answer_by:
            time.sleep(0.02)  # a one-shot with time left waits for the indexes being made (a loaded machine)
        if not self.wait_for_index and self.being_made():  # made in the background (start): not waited for
            return TierReport(SEMANTIC, "indexing", None, 0, done=0, of=len(self._notes)), None, unmeasured(0.0)
        index = self.semantic
        if self.wait_for_index:
            index.build(progress=self.waiting("embedding notes"))  # the command line waits for the index ...
        else:
            self.start_indexing()
        started = time.perf_counter()  # ... and the tier's time is the answer's, not the build's
        state = index.state()
        if state.state in ("unavailable", "failed"):
            return TierReport(SEMANTIC, state.state, None, 0, reason=state.reason, enable=state.enable), None, unmeasured(0.0)
        vector = query_vector(self.embedder, query, SEMANTIC)
        if isinstance(vector, TierReport):
            return vector, None, unmeasured(0.0)
        ranked = index.ranked(vector)
        floors = index.floor()  # this notebook's own, never under the embedder's (engines/notes/floor.py)
        state = index.state()
        if state.state != "ready":
            ranked = self._static_stand_in(query, ranked, floors)
            if self._model_first(index, ranked, words):  # the query's candidates embedded by the model: again
                ranked, floors, state = index.ranked(vector), index.floor(), index.state()
                ranked = self._static_stand_in(query, ranked, floors) if state.state != "ready" else ranked
        if state.state != "ready":
            floors = self._stand_in_floors(floors)
            report = self._with_coverage(TierReport(SEMANTIC, "indexing", ms_since(started), 0, done=state.done,
                                                    of=state.of, reason=state.reason))
            return answered_by_vectors(report), ranked, floors
        if self._static is not None:
            self.let_static_go()
        return TierReport(SEMANTIC, "answered", ms_since(started), 0), ranked, floors

    def _model_first(self, index, ranked, words) -> bool:
        """The notes the static and words rankings put first go to the front of the model's build; a
        one-shot (``answer_by``) embeds them itself, then the rest where little is left, and keeps them
        (first_notes.py): whether it embedded any (the ranking is then asked again)."""
        notes = candidates(ranked, words)
        if self.answer_by is None:
            index.prefer(notes)
            return False
        try:
            done = index.embed_now(notes, self.answer_by)
            if index.pending_passages() <= FINISH_AT_MOST:
                done += index.embed_now(range(len(ranked.notes)), self.answer_by)
        except Exception:  # noqa: BLE001 - the model failing leaves the static answer; the build says why
            return False
        if done:
            index.keep_embedded()
        return bool(done)


__all__ = ["NotesEngine", "TIERS", "EXACT", "WORDS", "SEMANTIC", "CorpusError"]


def _by_file(notes: list[Note]) -> dict[str, list[Note]]:
    """The notes grouped by the file they come from, in their order."""
    grouped: dict[str, list[Note]] = {}
    for note in notes:
        grouped.setdefault(note.path, []).append(note)
    return grouped
