"""Meaning first in seconds, then in full: static vectors stand in for the notes MiniLM has not reached.

A cold vault's contextual index (MiniLM through llama.cpp) takes hours at 100,000 notes on 2 cores; the
static embedder (engines/embed/static.py: a mean of token rows distilled from MiniLM) embeds the same
passages in about a minute. So a build runs the static index first and the contextual one after it, and
until the contextual index is complete the semantic tier ranks each note by the vectors it has: its
contextual ones where they are in, its static ones where not. Once the contextual index is complete
the static one is no longer asked (it never helped there: docs/embedders.md, "The static embedder").

The two spaces have other cosine scales (the static floor is 0.55, MiniLM's 0.38), so a static cosine
is mapped onto this notebook's contextual scale by its own floors: its weak bound onto the contextual
weak bound, its confident floor onto the contextual confident floor (linear between, a shift beyond).
A static row is then shown ``≈`` only over its own space's floor. Its row says ``"vectors": "static"``
with its own cosine (``static_cosine``); its score is its rank on the contextual scale, so every ``≈``
row stands in the order of its score; the tier says how much of the notebook each kind covers.
"""

from __future__ import annotations

import threading

import numpy as np

from engines.answer import TierReport, coverage
from engines.embed.background_index import BackgroundIndex
from engines.embed.index_state import tell_stage
from engines.embed.query import query_vector
from engines.notes.floor import NotebookFloor
from engines.notes.meaning_ranking import Ranked
from engines.notes.semantic import SemanticIndex

STATIC_BATCH = 2048  # passages per static embed call: ~0.2 s on 2 cores (MiniLM: 64 in ~0.5 s)


class StaticIndex(SemanticIndex):
    embed_batch = STATIC_BATCH
    thread_name = "olai-notes-static-index"
    # built again in under a minute: no save of its growing file every 20 s (100-300 MB each at 100,000
    # notes, inside the minute the meaning-first figure counts) and no journal of its batches
    save_every_s = float("inf")
    journalled = False


class Sequenced:
    """The static index built first, then the contextual one; each keeps its own lifecycle (and cache)."""

    def __init__(self, static: BackgroundIndex, contextual: BackgroundIndex) -> None:
        self.static, self.contextual = static, contextual
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            state = self.contextual.state()
            if state.state == "ready":
                return
            if state.done == state.of or self.static.state().state in ("ready", "unavailable", "failed"):
                self.contextual.start()  # nothing for the static vectors to stand in for, or done already
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="olai-notes-static-first", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        self.static.start()
        self.static.join()
        if not self._stop.is_set():
            self.contextual.start()

    def stop(self) -> None:
        self._stop.set()
        self.static.stop()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.contextual.stop()


def onto(scores: np.ndarray, own: NotebookFloor, other: NotebookFloor) -> np.ndarray:
    """Cosines of one space mapped onto another's scale by their floors (weak bound to weak bound,
    confident floor to confident floor; linear between, a shift under and over)."""
    out = scores - own.confident + other.confident
    if own.confident > own.weak and other.confident > other.weak:
        low = scores < own.weak
        out = np.where(low, scores - own.weak + other.weak, out)
        between = ~low & (scores < own.confident)
        span = (other.confident - other.weak) / (own.confident - own.weak)
        out = np.where(between, other.weak + (scores - own.weak) * span, out)
    return out.astype(np.float32)


class Mixed(Ranked):
    """A ranking of each note by its contextual vectors where they are in, by its static ones (mapped
    onto the contextual scale) where not; ``static_cosine`` keeps a static note's own cosine."""

    def __init__(self, notes, index_of, rank, best, from_static: np.ndarray, static_cosine: np.ndarray) -> None:
        super().__init__(notes, index_of, rank, best)
        self.from_static = from_static
        self.static_cosine = static_cosine

    def only(self, allowed: set[str]) -> "Mixed":
        narrowed = super().only(allowed)
        return Mixed(narrowed.notes, narrowed.index_of, narrowed.rank, narrowed.best, self.from_static,
                     self.static_cosine)


def mixed(contextual: Ranked, static: Ranked, floors: NotebookFloor, static_floors: NotebookFloor) -> Mixed:
    from_static = (contextual.rank == -np.inf) & (static.rank > -np.inf)
    rank = np.where(from_static, onto(static.rank, static_floors, floors), contextual.rank)
    best = np.where(from_static, onto(static.best, static_floors, floors), contextual.best)
    return Mixed(contextual.notes, contextual.index_of, rank.astype(np.float32), best.astype(np.float32),
                 from_static, static.best)


def said_static(hits, meaning) -> None:
    """A row found by its static vectors says so, with its own best passage's cosine in its space
    (``static_cosine``); its score stays what ranks it among the others, on the contextual scale, so
    the rows meaning shows are in the order of their scores (in place)."""
    if not isinstance(meaning, Mixed):
        return
    for hit in hits:
        if hit.tier != "semantic":
            continue
        m = meaning.index_of.get(hit.id)
        if m is not None and meaning.from_static[m]:
            hit.extras["vectors"] = "static"
            hit.extras["static_cosine"] = round(float(meaning.static_cosine[m]), 4)


class StaticStandIn:
    """The notes engine's side of it: the static index beside the model's, built first, asked for the
    notes the model's index lacks. The engine keeps ``_static_wanted``, ``_static_embedder``,
    ``_static``, ``_sequence``, ``_lock``, ``root``, ``_cache_dir``, ``_notes`` and ``_ids``."""

    _making: threading.Thread | None = None
    _closing = False
    _static_dropped = False  # the model's index was complete once: the static one is let go for good

    @property
    def static_vectors(self) -> SemanticIndex | None:
        """The static stand-in's index (made on first use), or None where this engine has none."""
        if not self._static_wanted or self._static_dropped:
            return None
        if self._static is not None:
            return self._static
        from engines.embed.trained_prose_table import notes_static

        contextual = self.vectors
        index = StaticIndex(self._static_embedder or notes_static(), scope=str(self.root.resolve()),
                            cache_dir=self._cache_dir)
        index.open_cache()
        index.share_notes(contextual)  # the model's index keyed these notes already
        with self._lock:  # published keyed, so no build ever starts on an index without its notes
            if self._static is None:
                self._static = index
            index = self._static
        if index.notes_of() is not contextual.notes_of():  # the notes changed meanwhile
            index.share_notes(contextual)
        return index

    def start_indexing(self) -> None:
        """The static index first where there is one, then the model's (static_first.Sequenced)."""
        contextual, static = self.vectors, self.static_vectors
        if getattr(self, "answer_by", None) is not None:
            # a one-shot: the model embeds what its query is about itself (first_notes.py), not a build
            # in note order beside it contending for the same two cores and the model's lock
            if static is not None:
                static.start()
            return
        if static is None:
            contextual.start()
            return
        with self._lock:
            if self._sequence is None:
                self._sequence = Sequenced(static, contextual)
        self._sequence.start()

    def build_index(self, progress=None):
        """`olai-tui index notes`: the static vectors first (about a minute at 100,000 notes), saved when
        they are complete, then the model's. An index run interrupted during the model's part leaves
        meaning for the whole notebook: searches rank every note by its static vectors where the
        model's are not in yet. ``progress`` is told each stage's name first where it takes one
        (``progress.stage(name)``: the command line's bar), then ``(done, of)`` as it moves."""
        static = self.static_vectors
        if static is not None and not self._contextual_complete():
            tell_stage(progress, "static vectors")
            static.build(progress=progress)  # a failure here leaves the model's index to answer alone
            tell_stage(progress, "contextual vectors")
        return self.vectors.build(progress=progress)

    def _contextual_complete(self) -> bool:
        state = self.vectors.state()
        return state.state == "ready" or (state.of > 0 and state.done == state.of)

    def start(self) -> None:
        """Start indexing in the background, making the indexes there too: keying a 100,000-note vault's
        passages and loading the model took 11 s, which a one-shot search's wait budget (2 s) or the
        workbench's open must not sit through. A search meanwhile says ``indexing 0/N``."""
        from engines.tiers import recall_switched_off

        if recall_switched_off():
            return
        with self._lock:
            if self._vectors is not None or self._making is not None:
                made = self._vectors is not None and self._making is None
            else:
                self._making = threading.Thread(target=self._make_and_start, name="olai-notes-make-index",
                                                daemon=True)  # a closed engine's is left to finish alone
                self._making.start()
                return
        if made:
            self.start_indexing()

    def _make_and_start(self) -> None:
        try:
            self.vectors
            self.static_vectors
        finally:
            with self._lock:
                self._making = None
        if not self._closing:
            self.start_indexing()

    def being_made(self) -> bool:
        """The indexes are being made in the background (``start``): a search does not wait for them."""
        return self._making is not None

    def stop_indexing(self) -> None:
        self._closing = True  # an index still being made is not started once made
        if self._sequence is not None:
            self._sequence.stop()
        super().stop_indexing()

    def let_static_go(self) -> None:
        """The model's index is complete: the static one is never asked again, so its vectors (77 MB of
        int8 rows at 100,000 notes) are let go; an edit from now on is embedded by the model alone."""
        with self._lock:
            static, self._static, self._static_dropped = self._static, None, True
            self._sequence = None
        if static is not None:
            static.stop()

    def _static_stand_in(self, query: str, ranked, floors):
        """The contextual ranking with the static vectors standing in for the notes it lacks."""
        static = self._static
        if static is None or static.state().done == 0:
            return ranked
        vector = query_vector(static.embedder, query, "semantic")
        if isinstance(vector, TierReport):  # the stand-in failing leaves the model's own answer
            return ranked
        return mixed(ranked, static.ranked(vector), floors, static.floor())

    def _stand_in_floors(self, floors: NotebookFloor) -> NotebookFloor:
        """The floors a ranking the static vectors stand in for is judged by: the model's where they are
        measured; where not (no model vector yet), the model's own floor with the static space's weak
        band below it, so a notebook only the static vectors cover shows its best neighbours as weak
        guesses (``≈?``) when nothing else answers, not "(no matches)"."""
        static = self._static
        if floors.ceiling is not None or static is None or static.state().done == 0:
            return floors
        own = static.floor()
        if own.ceiling is None:
            return floors
        return NotebookFloor(floors.confident, round(floors.confident - (own.confident - own.weak), 4),
                             floors.confident, floors.embedder, own.probes)

    def _with_coverage(self, report: TierReport) -> TierReport:
        """An indexing report says what each kind of vectors covers (``static 100 %, contextual 12 %``)."""
        if report.status != "indexing" or self._static is None or not report.of:
            return report
        report.vectors, said = coverage(report.done or 0, self._static.state().done, report.of)
        report.reason = "; ".join(r for r in (said, report.reason) if r)  # and who builds it, if another process
        return report
