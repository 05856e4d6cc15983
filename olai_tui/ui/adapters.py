"""What a search pane needs from an engine, beyond ``search``: a preview, a place to open, columns to compare.

The pane itself is generic (``SearchPane`` takes any adapter); each engine brings one adapter: notes
here, code (source with line numbers, code_adapter.py) and products (a product card, the words as
read, products_adapter.py), through the same few methods. Beyond the protocol's required methods a
pane asks, where an adapter has them: ``default_off`` (tiers off until switched on), ``load()`` (open
the engine when the pane is first shown), ``tiers_on(tiers)`` (start what a tier switched on needs),
``row(hit)`` (what the row's cells say), ``summary(answer)`` (a line above the rows) and
``compare_search(column, query, limit)`` (a compare column that is not a set of tiers).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generic, Iterator, Protocol, Sequence, TypeVar

from rich.text import Text

from engines.answer import Batch, Hit, TierReport
from engines.notes.engine import SEMANTIC, WORDS, NotesEngine, recall_switched_off
from engines.notes.exact import query_words
from olai_tui.ui.text import clipped, highlighted, one_line, reflowed, words_pattern


@dataclass(frozen=True)
class Column:
    """One column of the compare screen: a label and the tiers that answer in it.

    ``combined``: the column merges other columns' tiers (notes: merged), so it never counts as a
    second finder of a row."""

    label: str
    tiers: tuple[str, ...]
    combined: bool = False


@dataclass(frozen=True)
class Target:
    """Where a row lives on disk, to open in $EDITOR (at ``line`` when known) or to copy."""

    path: str
    line: int | None = None


@dataclass(frozen=True)
class RowView:
    """What a row's cells say: the title (and a dim detail after it), where, and the tier cell."""

    title: str
    where: str
    tier: str
    detail: str = ""
    tier_style: str = ""
    label: str = ""  # a judge's label (products: exact, variant, standin), in a column of its own
    label_style: str = ""


def plain_row(hit: Hit) -> RowView:
    return RowView(hit.title or hit.id, hit.where, hit.tier, tier_style="italic" if hit.marker else "")


E = TypeVar("E")


class Lazy(Generic[E]):
    """An engine opened on first use (its pane first shown, or its first query), once, from any thread.

    The workbench opens with the notes pane; the other engines' corpora are read only when wanted,
    so startup stays one corpus long. ``made`` says whether it exists yet (without making it).
    """

    def __init__(self, make: Callable[[], E] | E) -> None:
        self._make = make if callable(make) and not hasattr(make, "search") else None
        self._value: E | None = None if self._make is not None else make
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        return self._value is not None

    def get(self) -> E:
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._make()  # raises (a bad corpus): the next use tries again
        return self._value


class PaneAdapter(Protocol):
    name: str  # the tab's label: "notes", "products", "code"
    tiers: tuple[str, ...]

    def search(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]: ...
    def describe(self) -> str: ...  # "30 notes in fixtures/notes", for the search box's placeholder
    def start(self) -> None: ...  # background work (building an index); must return at once
    def live_reports(self) -> dict[str, TierReport]: ...  # what a tier is doing between answers; may block briefly
    def rebuild(self) -> str: ...  # re-read the corpus, refresh the index; says what it did
    def words(self, query: str) -> list[str]: ...  # the query's words, to highlight
    def preview(self, hit: Hit, query: str) -> Text: ...
    def full_text(self, hit: Hit) -> Text: ...  # the whole row, shown when there is no $EDITOR
    def target(self, hit: Hit, query: str) -> Target | None: ...
    def compare_columns(self) -> list[Column]: ...
    def close(self) -> None: ...


def compare_search(adapter: PaneAdapter, column: Column, query: str, limit: int) -> Iterator[Batch]:
    """One compare column's stream: the adapter's own way where it has one, else its tiers."""
    own = getattr(adapter, "compare_search", None)
    if own is not None:
        return own(column, query, limit)
    return adapter.search(query, limit, column.tiers)


class NotesAdapter:
    """The notes engine in a pane: note previews, opening the note's file at the first matching line."""

    name = "notes"

    def __init__(self, engine: NotesEngine, label: str | None = None) -> None:
        self.engine = engine
        self.tiers = tuple(engine.tiers)
        self.label = label or str(engine.root)
        self._by_id: dict[str, object] = {}
        self._indexed_list: object = None

    def search(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        return self.engine.search(query, limit=limit, tiers=tuple(tiers))

    def describe(self) -> str:
        return f"{len(self.engine.notes):,} notes in {one_line(self.label)}"

    def start(self) -> None:
        if not recall_switched_off():
            self.engine.start_indexing()

    def live_reports(self) -> dict[str, TierReport]:
        if recall_switched_off():
            return {SEMANTIC: TierReport(SEMANTIC, "off", enable="unset OLAI_RECALL")}
        state = self.engine.semantic.state()
        if state.state in ("idle", "building"):
            return {SEMANTIC: TierReport(SEMANTIC, "indexing", done=state.done, of=state.of)}
        if state.state in ("unavailable", "failed"):
            return {SEMANTIC: TierReport(SEMANTIC, state.state, reason=state.reason, enable=state.enable)}
        return {}

    def notices(self) -> list[str]:
        """The vector cache's notices (discarded and rebuilt, running without persistence), once each."""
        return self.engine.notices()

    def rebuild(self) -> str:
        self.engine.reload()
        self.start()
        skipped = f", {len(self.engine.problems)} files skipped" if self.engine.problems else ""
        return f"re-read {len(self.engine.notes):,} notes{skipped}; the index catches up in the background"

    def words(self, query: str) -> list[str]:
        return query_words(query)

    def note(self, hit: Hit):
        notes = self.engine.notes
        if self._indexed_list is not notes:  # the watcher or a rebuild installed a new list
            self._by_id = {note.id: note for note in notes}
            self._indexed_list = notes
        return self._by_id.get(hit.id)

    def preview(self, hit: Hit, query: str) -> Text:
        note = self.note(hit)
        if note is None:
            return Text("This note is no longer in the corpus (edited or removed since the search).", style="italic")
        words = self.words(query)
        body, left_out = clipped(note.body)
        out = Text(end="")
        out.append_text(highlighted(one_line(note.title) or note.id, words, style="bold"))
        out.append("\n")
        out.append(one_line(note.where), style="dim")
        if note.tags:
            out.append("  " + one_line(" ".join("#" + t for t in note.tags)), style="dim")
        out.append("\n\n")
        out.append_text(highlighted(reflowed(body.strip("\n")), words))
        if left_out:
            out.append(f"\n… {left_out:,} more characters (enter opens the whole note)", style="dim italic")
        return out

    def full_text(self, hit: Hit) -> Text:
        note = self.note(hit)
        if note is None:
            return Text("This note is no longer in the corpus.", style="italic")
        return highlighted(note.title + "\n\n" + note.body, [])

    def target(self, hit: Hit, query: str) -> Target | None:
        note = self.note(hit)
        if note is None:
            return None
        where_line = note.where.rpartition(":")[2]
        if where_line.isdigit():  # an outline node: its own line
            return Target(note.path, int(where_line))
        return Target(note.path, _first_line_with(note.path, self.words(query)))

    def compare_columns(self) -> list[Column]:
        return [Column("exact", ("exact",)), Column("words", (WORDS,)), Column("semantic", (SEMANTIC,)),
                Column("merged", self.tiers, combined=True)]

    def close(self) -> None:
        self.engine.close()


def _first_line_with(path: str, words: list[str]) -> int | None:
    """The first line of the file holding one of the words (1-based), to open the editor there."""
    pattern = words_pattern(words)
    if pattern is None or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for number, line in enumerate(fh, start=1):
                if pattern.search(line):
                    return number
    except OSError:
        return None
    return None


def short_path(path: Path) -> str:
    """A corpus path as people say it: relative to the working folder when inside it, else with ~."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        home = Path.home()
        try:
            return "~/" + str(path.resolve().relative_to(home))
        except ValueError:
            return str(path)
