"""The one interface every engine implements: what the CLI, the app, the evaluation and the MCP face use.

An engine is an abstract base class rather than a bare Protocol so that the shared parts (a bounded
read of a file's lines, the default no-op watcher, the tier bookkeeping) are written once, and a
missing method fails when the engine is made, not when a face first calls it (harlequin's adapters
work the same way).

What an engine declares:
- ``name`` and ``tiers`` (in answer order); ``default_tiers`` (what a plain search asks for: code's
  embedding tier is opt-in); ``evidence_tiers`` (rows that are checkable evidence) and
  ``model_tiers`` (tiers that need the embedding model or a judge: off under ``OLAI_RECALL=off``).
- ``search(query, limit, tiers)``: a stream of :class:`~engines.answer.Batch`, the cheap tier first.
- ``rank(tier, query, depth)``: one tier's own ranking, ids best first with that tier's score: what the
  evaluation and the compare screen's baseline columns read.
- ``read(id)``: a hit's text, where and line range, bounded (:data:`READ_LIMIT` characters).
- ``status()``: per tier ready / indexing done-of / unavailable with reason and what enables it, and
  the notices the engine has for a person (files skipped, a cache rebuilt).
- ``start()`` (background indexing, returns at once), ``watch()`` (follow the corpus on disk: a
  started watcher with ``stop()``, or None where the corpus is not a folder), ``reload()``, ``close()``.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterator, Protocol, Sequence

from engines.answer import Answer, Batch, TierReport, collect

# ``progress(done, of, what)``: long work a caller waits on (a large tree read, a first index build
# that a search waits for), ``what`` saying what is being done ("reading files", "embedding notes").
WaitProgress = Callable[[int, int, str], None]

READ_LIMIT = 64_000  # characters a read returns: a 3,000-line generated file would flood an agent's context


@dataclass(frozen=True)
class Passage:
    """What ``read(id)`` returns: a hit's text and where it lives (``path`` absolute, lines 1-based)."""

    id: str
    title: str
    where: str
    text: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    truncated: bool = False  # the text was cut at READ_LIMIT
    language: str | None = None  # code: the source's language, for highlighting

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "where": self.where, "path": self.path,
                "start_line": self.start_line, "end_line": self.end_line, "text": self.text,
                "truncated": self.truncated}


@dataclass
class EngineStatus:
    """Where an engine stands: its corpus, how many items, each tier's state, and notices for a person."""

    name: str
    corpus: str
    items: int
    tiers: list[TierReport]
    notices: list[str] = field(default_factory=list)

    def tier(self, name: str) -> TierReport | None:
        return next((t for t in self.tiers if t.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "corpus": self.corpus, "items": self.items,
                "tiers": [t.to_json() for t in self.tiers], "notices": list(self.notices)}


@dataclass(frozen=True)
class Ranked:
    """One row of one tier's own ranking."""

    id: str
    score: float


@dataclass(frozen=True)
class Option:
    """An option an engine declares beyond its corpus (code: ``modules``; products: ``backend``).

    Faces fill it from their own surface: the CLI as ``--NAME``, the MCP face as a tool argument."""

    name: str
    help: str
    kind: str = "str"  # "str" | "list" (comma-separated on the command line)


class Watcher(Protocol):
    def stop(self) -> None: ...


class Engine(abc.ABC):
    name: ClassVar[str]
    tiers: ClassVar[tuple[str, ...]]
    default_tiers: ClassVar[tuple[str, ...]]
    evidence_tiers: ClassVar[tuple[str, ...]]
    model_tiers: ClassVar[tuple[str, ...]] = ()
    item_noun: ClassVar[str] = "items"  # "notes", "symbols", "products": how describe() counts them
    # A later tier may reorder rows shown earlier (products' judge); everywhere else a row once shown
    # never moves and evidence rows stay above resemblance rows.
    reorders: ClassVar[bool] = False

    problems: list  # files or lines skipped while reading the corpus, each str()-able in one line
    # Told how long work a caller waits on moves (engines.registry.open_engine sets it); None: nobody asks.
    progress: WaitProgress | None = None

    @abc.abstractmethod
    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        """The answer, tier by tier; ValueError names an unknown tier."""

    @abc.abstractmethod
    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        """One tier's own ranking, best first, at most ``depth`` rows; ValueError for an unknown tier."""

    @abc.abstractmethod
    def read(self, item_id: str) -> Passage:
        """A hit's text, bounded; KeyError when the id is not in the corpus (any more)."""

    @abc.abstractmethod
    def status(self) -> EngineStatus:
        """Each tier's state now; never blocks on the model."""

    @abc.abstractmethod
    def items(self) -> int:
        """How many searchable items the corpus holds now."""

    @property
    @abc.abstractmethod
    def corpus_label(self) -> str:
        """The corpus as named to a person (a folder, or ``modules: a, b``)."""

    def collect(self, query: str, batches) -> Answer:
        """A stream folded into one answer, with the extras every answer of this engine carries."""
        return collect(self.name, query, batches)

    def build_index(self, progress=None):
        """Build what the model tiers need, blocking, with ``progress(done, of)``; the index's state
        (``state``, ``done``, ``of``, ``reason``, ``enable``), or None where there is nothing to build."""
        return None

    def waiting(self, what: str) -> Callable[[int, int], None]:
        """A ``progress(done, of)`` for a build a search waits on: told to :attr:`progress` (as it is
        when called) as ``what``."""
        def report(done: int, of: int) -> None:
            if self.progress is not None:
                self.progress(done, of, what)
        return report

    def index_summary(self, state) -> str:
        """What a finished build did, in one line (``olai-tui index``)."""
        return f"{state.of:,} {self.item_noun} indexed"

    def describe(self) -> str:
        return f"{self.items():,} {self.item_noun} in {self.corpus_label}"

    def notices(self) -> list[str]:
        """Things a person should know once (a cache rebuilt, an endpoint ignored); not per query."""
        return []

    def start(self) -> None:
        """Start what the costlier tiers need (an index build) in the background; returns at once."""

    def watch(self) -> Watcher | None:
        """Follow the corpus on disk: a started watcher (``stop()`` ends it), or None."""
        return None

    def reload(self) -> None:
        """Read the corpus again (a person's rebuild)."""

    def close(self) -> None:
        """Stop background work; the engine is not used after this."""

    def check_tier(self, tier: str) -> None:
        if tier not in self.tiers:
            raise ValueError(f"unknown tier {tier!r} for {self.name} (choose from {', '.join(self.tiers)})")


def read_lines(path: str, start: int, end: int | None = None, limit: int = READ_LIMIT) -> tuple[str, bool]:
    """Lines ``start..end`` (1-based, inclusive; None: to the end) of a text file, at most ``limit``
    characters, and whether it was cut. OSError when the file cannot be read."""
    out: list[str] = []
    size = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            if number < start:
                continue
            if end is not None and number > end:
                break
            if size + len(line) > limit:
                out.append(line[:limit - size])
                return "".join(out), True
            out.append(line)
            size += len(line)
    return "".join(out), False


def bounded(text: str, limit: int = READ_LIMIT) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def model_tier_report(tier: str, state, switched_off: bool, asked: bool = True) -> TierReport:
    """A model tier's state between answers, from its index's ``IndexState``: off (OLAI_RECALL), not
    asked for yet (an opt-in tier: ``off`` with what enables it), indexing done/of, unavailable or
    failed with why, or ready (``answered`` with no count: it can answer)."""
    if switched_off:
        return TierReport(tier, "off", enable="unset OLAI_RECALL")
    if not asked:
        return TierReport(tier, "off", enable=f"add {tier} to the tiers")
    if state is None:
        return TierReport(tier, "skipped", reason="not started yet: the model loads on the first query that needs it")
    if state.state in ("idle", "building"):
        return TierReport(tier, "indexing", done=state.done, of=state.of)
    if state.state in ("unavailable", "failed"):
        return TierReport(tier, state.state, reason=state.reason, enable=state.enable)
    return TierReport(tier, "answered", count=state.of)


def ranked_by_search(engine: Engine, tier: str, query: str, depth: int) -> list[Ranked]:
    """One tier's ranking as the engine's own search gives it with that tier alone."""
    engine.check_tier(tier)
    answer = engine.collect(query, engine.search(query, limit=depth, tiers=(tier,)))
    return [Ranked(h.id, float(h.score)) for h in answer.hits]
