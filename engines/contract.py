"""The one interface every engine implements: what the CLI, the app, the evaluation and the MCP face use.

An engine is an abstract base class rather than a bare Protocol so that the shared parts (a bounded
read of a file's lines, in engines/bounded_read.py; the default no-op watcher; the tier bookkeeping)
are written once, and a missing method fails when the engine is made, not when a face first calls it
(harlequin's adapters work the same way).

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
import re
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Iterator, Protocol, Sequence

from engines.answer import Answer, Batch, TierReport, answered_by_vectors, collect

# ``progress(done, of, what)``: long work a caller waits on (a tree read, an index build), ``what`` saying which
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
    # What a preview shows beyond the text (each optional): notes' tags and aliases and whether the
    # text is Markdown; a product card's named facts (brand, ingredients, description).
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    markdown: bool = False
    fields: tuple[tuple[str, str], ...] = ()

    def field(self, name: str) -> str:
        return next((value for key, value in self.fields if key == name), "")

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

    name: str  # ``index_type`` is ``--index-type`` on the command line
    help: str
    kind: str = "str"  # "str" | "list" (comma-separated on the command line) | "flag" (given or not)
    instead_of_corpus: bool = False  # given, it names what to search (code's modules): no --corpus with it
    choices: tuple[str, ...] = ()  # the values it takes, where there are few (products' backend)
    default: Any = None  # what it is when not given; a value other than this counts as given


@dataclass(frozen=True)
class Console:
    """Where a command that an engine or the evaluation declares (an index command, a bench, a dataset's
    own runner) puts what it has to say; the face that runs it gives these (the CLI: stdout, stderr
    with its name before each line, its progress bar and wait line), so the command prints nothing itself.

    ``progress(label)`` returns a callable told ``(done, of)`` as the work moves, with ``finish(text="")``
    at its end; ``waiting(engine)`` one told ``(done, of, what)``, with ``clear()`` before the answer."""

    out: Callable[[str], None]  # a line of the command's output
    say: Callable[[str], None]  # a line about the run: progress in words, a failure
    progress: Callable[[str], Any]
    waiting: Callable[[str], Any]


@dataclass(frozen=True)
class Comparison:
    """One column of the compare screen: a label and the tiers that answer in it.

    ``combined``: the column merges other columns' tiers (notes: merged), so it never counts as a
    second finder of a row. ``ranking``: a baseline of :meth:`Engine.rank` answers the column instead
    of a search with the tiers (products' bm25, knn, hybrid_rrf)."""

    label: str
    tiers: tuple[str, ...]
    combined: bool = False
    ranking: str | None = None


@dataclass(frozen=True)
class Presentation:
    """How a pane shows an engine's rows, as data: which hit extras go where, and the preview's kind.

    ``detail``: extras joined dim after the title (code: language, summary). ``where``: extras shown
    in the where cell instead of the hit's place (products: kind, quantity; underscores as spaces).
    ``badge``: an extra shown in a column of its own, styled by ``badge_styles`` (products' judge label).
    ``preview``: "text" (the passage, reflowed), "markdown" (notes), "source" (numbered, coloured by
    the Pygments lexer ``lexers`` names for the passage's language) or "card" (a product's facts).
    ``open_at``: "start" (the passage's first line) or "words" (the first line holding a query word,
    unless the hit's place names its line: notes). ``printout``: how ``olai-tui search`` prints it."""

    detail: tuple[str, ...] = ()
    where: tuple[str, ...] = ()
    badge: str | None = None
    badge_styles: tuple[tuple[str, str], ...] = ()
    preview: str = "text"
    lexers: tuple[tuple[str, str], ...] = ()
    open_at: str = "start"
    printout: str = "rows"  # on the terminal: "rows", or "judged" (the words as read, a badge per row)


# A line of styled spans, (text, style), for a summary above the rows; the style is a Rich style string.
Spans = list[tuple[str, str]]
_WORD = re.compile(r"\w+")


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
    # The constants chosen by measurement that a person may set per corpus (engines/knobs.py): a Knobs,
    # or None where the engine declares none. Read before the engine opens (registry.open_engine).
    knobs: ClassVar[Any] = None

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

    def wait_for(self, tiers: Sequence[str] | None = None, seconds: float = 0.0,
                 progress: Callable[[int, int, str], None] | None = None) -> list[TierReport]:
        """The wait budget of a one-shot answer: start what the model tiers among ``tiers`` (None: the
        default tiers) need and wait at most ``seconds`` for them to finish indexing, telling
        ``progress(done, of, what)`` as they move; never longer. The reports of those still indexing
        when it returns (the answer then says ``indexing done/of`` for them). The command line's
        ``search`` and the MCP face wait through this; ``olai-tui index`` and the evaluation wait in full."""
        import time

        from engines.tiers import recall_switched_off

        wanted = [t for t in (tiers if tiers is not None else self.default_tiers) if t in self.model_tiers]
        if not wanted or recall_switched_off():
            return []
        self.switch_on(wanted)
        deadline = time.monotonic() + max(0.0, seconds)
        while True:
            # a tier whose stand-in vectors cover every item answers for all of them: not waited on
            indexing = [r for r in self.status().tiers if r.name in wanted
                        and answered_by_vectors(r).status == "indexing"]
            if not indexing or time.monotonic() >= deadline:
                return indexing
            if progress is not None:
                progress(indexing[0].done or 0, indexing[0].of or 0, f"{indexing[0].name} indexing")
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

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

    def counted(self) -> str:
        """How many items the corpus holds, as a header says it (notes: the files by kind, where documents are among them)."""
        return f"{self.items():,} {self.item_noun}"

    def describe(self) -> str:
        return f"{self.counted()} in {self.corpus_label}"

    def readings(self) -> list[str]:
        """How the corpus was read, a line each, said by `olai-tui index` before the index is built so a
        wrong guess is seen and corrected (products: each file's encoding, its columns, rows skipped)."""
        return []

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

    # -- what a face presents (the workbench's panes); every one has a default -------------------
    presentation: ClassVar[Presentation] = Presentation()

    @classmethod
    def shown_tiers(cls) -> tuple[str, ...]:
        """The tiers as a pane shows them (chips, switches): the engine's tiers, plus any recall source
        shown as a tier of its own (products' vectors). A class method: read before the engine opens."""
        return tuple(cls.tiers)

    @classmethod
    def opt_in_tiers(cls) -> tuple[str, ...]:
        """Shown tiers that are off until a person switches them on."""
        return tuple(t for t in cls.shown_tiers() if t not in cls.default_tiers)

    def search_shown(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        """:meth:`search` with the shown tiers that are on; a report for each shown tier."""
        return self.search(query, limit=limit, tiers=tuple(tiers))

    def switch_on(self, tiers: Sequence[str]) -> None:
        """The shown tiers now on: start (in the background) what a model tier among them needs."""
        from engines.tiers import recall_switched_off

        if any(t in self.model_tiers for t in tiers) and not recall_switched_off():
            self.start()

    def live(self, tiers: Sequence[str]) -> list[TierReport]:
        """What the model tiers among ``tiers`` are doing between answers (from :meth:`status`):
        indexing done/of, unavailable or failed with why, off under OLAI_RECALL; none once ready."""
        from engines.tiers import recall_switched_off

        off = recall_switched_off()
        return [r for r in self.status().tiers if r.name in self.model_tiers and r.name in tiers
                and (r.status in ("indexing", "unavailable", "failed") or (r.status == "off" and off))]

    def highlights(self, text: str) -> list[str]:
        """The words of ``text`` (a query, or an identifier in a preview) as this engine matches them."""
        return [w for w in _WORD.findall(text.lower()) if len(w) > 1]

    def summary(self, answer: Answer) -> Spans:
        """A line above the rows, from the answer's extras (products: the words as read); [] for none."""
        return []

    def filters_said(self, answer: Answer) -> str:
        """The filters the query was read as, in the syntax typed (notes: ``#tag · in:folder``)."""
        return ""

    def answer_notices(self, answer: Answer) -> list[str]:
        """What an answer says under the tier chips (a word searched as a word, recall's backend)."""
        return []

    def suggestions(self) -> list[tuple[str, str]]:
        """(text to type, what it does): filters a palette offers (notes: the commonest tags)."""
        return []

    def comparisons(self) -> list[Comparison]:
        """The compare screen's columns: each tier alone, then all of them merged."""
        shown = self.shown_tiers()
        columns = [Comparison(t, (t,)) for t in shown]
        if len(shown) > 1:
            columns.append(Comparison("merged", shown, combined=True))
        return columns

    def compare(self, column: Comparison, query: str, limit: int) -> Iterator[Batch]:
        """One compare column: its tiers as the pane runs them (a model tier indexing says so)."""
        return self.search_shown(query, limit, column.tiers)

    def rebuild(self) -> str:
        """A person's rebuild: read the corpus again, the index catching up; says what it did."""
        self.reload()
        self.start()
        skipped = f", {len(self.problems)} files skipped" if getattr(self, "problems", None) else ""
        return f"re-read {self.items():,} {self.item_noun}{skipped}"

    def roots(self) -> list[str]:
        """The folders a read may touch where the engine names them itself; []: the corpus it was given."""
        return []

    def listing(self) -> Iterable[tuple[str, str, str]]:
        """Every item as (id, title, where): any one found by title or path and graded, shown or not."""
        return ()

    @classmethod
    def parse_tiers(cls, tiers: str | Iterable[str] | None) -> tuple[str, ...]:
        """The tiers asked for, validated, in the engine's order (None: its default tiers); ValueError
        names an unknown tier (engines/tiers.py: one rule for --tiers and OLAI_RECALL)."""
        from engines.tiers import choose_tiers

        return choose_tiers(tiers, cls.tiers, cls.default_tiers, cls.name)

    def check_tier(self, tier: str) -> None:
        if tier not in self.tiers:
            raise ValueError(f"unknown tier {tier!r} for {self.name} (choose from {', '.join(self.tiers)})")


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
        return TierReport(tier, "indexing", done=state.done, of=state.of, reason=state.reason)
    if state.state in ("unavailable", "failed"):
        return TierReport(tier, state.state, reason=state.reason, enable=state.enable)
    return TierReport(tier, "answered", count=state.of)


def ranked_by_search(engine: Engine, tier: str, query: str, depth: int) -> list[Ranked]:
    """One tier's ranking as the engine's own search gives it with that tier alone."""
    engine.check_tier(tier)
    answer = engine.collect(query, engine.search(query, limit=depth, tiers=(tier,)))
    return [Ranked(h.id, float(h.score)) for h in answer.hits]
