"""Which vectors answer the code engine's embedding tier: the trained code table's static ones, built in
seconds and in the default answer, or MiniLM's contextual ones where asked for, the static ones
standing in while those build (engine.py orders the tiers; merge.py weighs each kind).

The engine keeps ``_static_wanted``, ``_static_embedder``, ``_static``, ``_static_problem``,
``_contextual``, ``_lock``, ``_scope``, ``_cache_dir``, ``_index``, ``_index_file``, ``_symbols`` and
``wait_for_index``,
and is a LazyVectors (``vectors``, ``embedder``: the contextual ones).
"""

from __future__ import annotations

from engines.answer import TierReport, answered_by_vectors, coverage
from engines.code.meaning import Meaning, nearest
from engines.code.merge import EMBEDDING
from engines.code.static_vectors import StaticVectorIndex
from engines.code.vectors import VectorIndex
from engines.contract import model_tier_report
from engines.embed.base import Embedder, EmbedderUnavailable
from engines.embed.index_state import IndexState, tell_stage
from engines.tiers import recall_switched_off

CANDIDATES = 100  # each tier's head that the merge sees; the fusion heads (merge.py) are within it

STATIC, CONTEXTUAL = "static", "contextual"  # which vectors answer (the tier's ``vectors``, a row's)
ENABLE_CONTEXTUAL = "set contextual = true under [code] in config.toml (MiniLM: about an hour on a large tree)"


def contextual_asked() -> bool:
    """``[code] contextual = true`` in config.toml: MiniLM's vectors, built after the static ones."""
    from engines.settings import read_config

    section = read_config().section("code")
    return isinstance(section, dict) and section.get("contextual") is True


class TwoKindsOfVectors:
    @property
    def static_vectors(self) -> StaticVectorIndex | None:
        """The trained code table's index (made on first use), or None where it cannot answer (the table
        missing or damaged: ``static_problem`` says why) or this engine was made without it."""
        if not self._static_wanted or self._static_problem is not None:
            return None
        with self._lock:
            if self._static is None:
                try:
                    embedder = self._static_embedder
                    if embedder is None:
                        from engines.embed.trained_code_table import trained_code_table

                        embedder = trained_code_table()
                    embedder.info()  # the table read now: a damaged file is said here, once
                except EmbedderUnavailable as exc:
                    self._static_problem = exc
                    return None
                index = StaticVectorIndex(embedder, scope=self._scope, cache_dir=self._cache_dir)
                index.set_index(self._index, self._meaning_file())
                self._static = index
            return self._static

    def _meaning_file(self):
        """Where the table's meaning of this tree is kept between opens (None: its index is not kept)."""
        from engines.code.meaning_state import state_file

        return state_file(self._index_file) if self._index_file is not None else None

    def _meaning_source(self) -> "tuple[VectorIndex, Embedder, str] | TierReport":
        """Which vectors answer now, brought up as this engine waits (built) or not (started): the static
        ones, or the contextual ones where asked for and complete (or waited for); a report where none can."""
        static = self.static_vectors
        if self._contextual:
            contextual = self.vectors
            self._bring_up(contextual)
            if static is None or self.wait_for_index or contextual.state().state == "ready":
                return contextual, self.embedder, CONTEXTUAL
            self._bring_up(static)
            return (static, static.embedder, STATIC) if static.state().state == "ready" else \
                (contextual, self.embedder, CONTEXTUAL)
        if static is None:
            problem = self._static_problem
            return TierReport(EMBEDDING, "unavailable", None, 0, reason=problem.reason if problem else "no static table",
                              enable=problem.enable if problem else ENABLE_CONTEXTUAL)
        self._bring_up(static)
        return static, static.embedder, STATIC

    def _bring_up(self, index: VectorIndex) -> None:
        if self.wait_for_index:
            if index.state().state != "ready":
                index.build(progress=self.waiting("embedding symbols"))
        else:
            index.start()

    def build_index(self, progress=None):
        """`olai-tui index code`: the static vectors first (seconds), then MiniLM's where asked for, each
        with its own progress (``progress.stage(name)`` first where it takes one)."""
        static = self.static_vectors
        state = None
        if static is not None:
            tell_stage(progress, "static vectors")
            state = static.build(progress=progress)
        if not self._contextual:
            if state is None:
                problem = self._static_problem
                return IndexState("unavailable", 0, len(self._symbols), problem.reason if problem else None,
                                  problem.enable if problem else None)
            return state
        if static is not None:
            tell_stage(progress, "contextual vectors")
        return self.vectors.build(progress=progress)

    def start_indexing(self) -> None:
        static = self.static_vectors
        if static is not None:
            static.start()
        if self._contextual:
            self.vectors.start()

    def stop_indexing(self) -> None:
        if self._static is not None:
            self._static.stop()
        super().stop_indexing()

    def index_summary(self, state) -> str:
        if self._contextual or self._static is None:
            return super().index_summary(state)
        return f"{state.of:,} {self.item_noun}, {self._static.embedded_texts.count:,} {self.embedded_noun} now (static)"

    def embedding_status(self) -> TierReport:
        """The embedding tier between answers: the state of the vectors that answer (engine.status)."""
        answering = self._vectors if self._contextual else self._static
        state = answering.state() if answering is not None else None
        if state is None and not self._contextual and self._static_problem is not None:
            state = IndexState("unavailable", 0, len(self._symbols), self._static_problem.reason,
                               self._static_problem.enable)
        report = model_tier_report(EMBEDDING, state, recall_switched_off())
        if report.status == "answered":
            report.vectors = None if self._contextual else {STATIC: 1.0}
        return report

    def _static_report(self, report: TierReport) -> TierReport:
        """What the static vectors' answer says: all of them (the default), or standing in for MiniLM's
        while those build (answered for every symbol, with each kind's share and MiniLM's done/of)."""
        if not self._contextual or self._vectors is None:
            report.vectors = {STATIC: 1.0}
            return report
        state = self._vectors.state()
        shares, said = coverage(state.done, self._static.state().done, state.of)
        return answered_by_vectors(TierReport(EMBEDDING, "indexing", report.ms, report.count, done=state.done,
                                              of=state.of, reason=said, vectors=shares))

    def embedding_ranking(self, query: str) -> "Meaning | TierReport":
        """The symbols nearest the query above the embedder's floor, best first, and how many there are:
        by the vectors that answer now (the tuning tools read a table or a model through this)."""
        source = self._meaning_source()
        if isinstance(source, TierReport):
            return source
        index, embedder, _ = source
        return nearest(embedder, index, query, CANDIDATES)


def said_vectors(hits, kind: str):
    """A row found by the static vectors says so (``"vectors": "static"``), as the notes engine's do."""
    if kind == STATIC:
        for hit in hits:
            if hit.tier == EMBEDDING:
                hit.extras["vectors"] = STATIC
    return hits
