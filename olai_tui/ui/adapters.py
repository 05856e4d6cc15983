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

import datetime as dt
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generic, Iterator, Protocol, Sequence, TypeVar

from rich.console import Group
from rich.text import Text

from engines.answer import Batch, Hit, TierReport
from engines.contract import model_tier_report
from engines.notes.engine import SEMANTIC, WORDS, NotesEngine, recall_switched_off
from engines.notes.exact import query_words
from engines.notes.filters import might_filter, read_query
from olai_tui.ui.markdown_preview import MarkedMarkdown
from olai_tui.ui.text import PREVIEW_CHARS, clipped, highlighted, one_line, reflowed, words_pattern

# Markdown is laid out on every cursor move: 6,000 characters take ~21 ms on 2 busy cores (20,000: ~150 ms),
# so a longer note shows its first 6,000 laid out and says how much more there is.
MARKDOWN_PREVIEW_CHARS = 6_000

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


def between_answers(tier: str, state, switched_off: bool = False) -> dict[str, TierReport]:
    """What a model tier is doing between answers, for the footer (engines/contract.py's reading of its
    index state): off, indexing done/of, unavailable or failed with why; nothing once it can answer."""
    report = model_tier_report(tier, state, switched_off)
    return {} if report.status == "answered" else {tier: report}


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
        self.engine.start()  # the semantic index in the background, unless recall is off

    def live_reports(self) -> dict[str, TierReport]:
        off = recall_switched_off()  # off: the index is never made
        return between_answers(SEMANTIC, None if off else self.engine.semantic.state(), off)

    def notices(self) -> list[str]:
        """The vector cache's notices (discarded and rebuilt, running without persistence), once each."""
        return self.engine.notices()

    def rebuild(self) -> str:
        self.engine.reload()
        self.start()
        skipped = f", {len(self.engine.problems)} files skipped" if self.engine.problems else ""
        return f"re-read {len(self.engine.notes):,} notes{skipped}; the index catches up in the background"

    def words(self, query: str) -> list[str]:
        if might_filter(query):  # the filters are not words of the note: only what is left is marked
            query = read_query(query, self.engine.notes).words
        return query_words(query)

    def active_filters(self, answer) -> str:
        """The footer's filters: what the query's words were read as, in the syntax typed."""
        understood = answer.extras.get("understood") or {}
        said = [f"#{t}" for t in understood.get("tags") or []]
        said += [f"in:{f}" for f in understood.get("folders") or []]
        said += [f"path:{p}" for p in understood.get("paths") or []]
        said += [f"{k}:{understood[k]}" for k in ("after", "before") if understood.get(k)]
        return " · ".join(said)

    def answer_notices(self, answer) -> list[str]:
        """A word that looked like a filter but was searched as a word, said under the chips."""
        return list((answer.extras.get("understood") or {}).get("notes") or [])

    def filter_suggestions(self, most: int = 8) -> list[tuple[str, str]]:
        """(filter, what it does) for the palette: the notebook's commonest tags and folders, and dates."""
        counts: dict[str, int] = {}
        folders: dict[str, int] = {}
        for note in self.engine.notes:
            for tag in note.tags:
                counts[tag.casefold()] = counts.get(tag.casefold(), 0) + 1
            top = note.id.split("#", 1)[0].split("/")
            if len(top) > 1:
                folders[top[0]] = folders.get(top[0], 0) + 1
        out = [(f"#{t}", f"only notes tagged #{t} ({n})") for t, n in
               sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:most]]
        out += [(f"in:{f}", f"only notes in the folder {f}/ ({n})") for f, n in
                sorted(folders.items(), key=lambda kv: (-kv[1], kv[0]))[:most]]
        month_ago = (dt.date.today() - dt.timedelta(days=30)).isoformat()
        out += [(f"after:{month_ago}", "only notes dated in the last 30 days (front matter date, else the file's)"),
                (f"before:{dt.date.today().year}-01-01", "only notes dated before this year")]
        return out

    def note(self, hit: Hit):
        notes = self.engine.notes
        if self._indexed_list is not notes:  # the watcher or a rebuild installed a new list
            self._by_id = {note.id: note for note in notes}
            self._indexed_list = notes
        return self._by_id.get(hit.id)

    def preview(self, hit: Hit, query: str):
        note = self.note(hit)
        if note is None:
            return Text("This note is no longer in the corpus (edited or removed since the search).", style="italic")
        words = self.words(query)
        markdown = not note.path.lower().endswith(".txt")  # Markdown files and outline descriptions
        body, left_out = clipped(note.body, MARKDOWN_PREVIEW_CHARS if markdown else PREVIEW_CHARS)
        out = Text(end="")
        out.append_text(highlighted(one_line(note.title) or note.id, words, style="bold"))
        out.append("\n")
        out.append(one_line(note.where), style="dim")
        if note.tags:
            out.append("  " + one_line(" ".join("#" + t for t in note.tags)), style="dim")
        if note.aliases:
            out.append("\nalso: " + one_line(", ".join(note.aliases)), style="dim")
        out.append("\n\n")
        more = Text(f"… {left_out:,} more characters (enter opens the whole note)", style="dim italic")
        if markdown:  # headings, lists, tables and code laid out, the query's words marked
            return Group(out, MarkedMarkdown(body.strip("\n"), words), *([Text(), more] if left_out else []))
        out.append_text(highlighted(reflowed(body.strip("\n")), words))
        if left_out:
            out.append("\n")
            out.append_text(more)
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
    if isinstance(path, str):  # a products catalogue kept in a database: its URL, any password hidden
        from engines.products.database import shown_url

        return shown_url(path)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        home = Path.home()
        try:
            return "~/" + str(path.resolve().relative_to(home))
        except ValueError:
            return str(path)
