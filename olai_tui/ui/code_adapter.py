"""The code engine in a pane: rows ``qualname(signature)`` with path:line, language and the doc comment's
first line, source with line numbers as the preview (highlighted as the file's language), Enter opening
$EDITOR at the symbol's line.

The embedding tier is opt-in here as on the command line: the pane opens with it off, and the model
is loaded only once a person switches it on (ctrl+p › turn the embedding tier on).
"""

from __future__ import annotations

import re
from typing import Callable, Iterator, Sequence

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text

from engines.answer import Batch, Hit, TierReport
from engines.code.engine import DEFAULT_TIERS, EMBEDDING, LEXICAL, TIERS, CodeEngine
from engines.code.engine import recall_switched_off as code_recall_off
from engines.code.languages import BY_NAME
from engines.lexical import tokenize
from olai_tui.ui.adapters import Column, Lazy, RowView, Target, between_answers
from olai_tui.ui.text import one_line, shown

PREVIEW_LINES = 400  # a 3,000-line generated function would take seconds to lay out
_IDENTIFIER = re.compile(r"[^\W_]\w*|_\w+")
SYNTAX_THEME = "ansi_dark"  # the terminal's own palette: follows the user's colours, fixed in snapshots


class CodeAdapter:
    name = "code"
    tiers = TIERS
    default_off = tuple(t for t in TIERS if t not in DEFAULT_TIERS)  # embedding: opt-in

    def __init__(self, engine: CodeEngine | Callable[[], CodeEngine], label: str) -> None:
        self._engine = Lazy(engine)
        self.label = label
        self._meaning_on = False  # the embedding tier was switched on: its index exists and is polled

    @property
    def engine(self) -> CodeEngine:
        return self._engine.get()

    def load(self) -> None:
        self._engine.get()

    def search(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        if EMBEDDING in tiers:
            self._meaning_on = True
        return self.engine.search(query, limit=limit, tiers=tuple(tiers))

    def describe(self) -> str:
        if not self._engine.made:
            return f"the code in {one_line(self.label)}"
        return f"{len(self.engine.symbols):,} symbols in {one_line(self.label)}"

    def start(self) -> None:
        """Nothing until the embedding tier is switched on: lexical-only use never loads the model."""

    def tiers_on(self, tiers: Sequence[str]) -> None:
        if EMBEDDING in tiers and not code_recall_off():
            self._meaning_on = True
            self.engine.start_indexing()

    def live_reports(self) -> dict[str, TierReport]:
        if not self._meaning_on or not self._engine.made:
            return {}
        off = code_recall_off()
        return between_answers(EMBEDDING, None if off else self.engine.semantic.state(), off)

    def notices(self) -> list[str]:
        """The engine's notices (an endpoint ignored) and its vector cache's (discarded, not persisted)."""
        return self.engine.notices() if self._engine.made else []

    def rebuild(self) -> str:
        engine = self.engine
        engine.reload()
        if self._meaning_on:
            engine.start_indexing()
        skipped = f", {len(engine.problems)} files skipped" if engine.problems else ""
        return f"re-read {len(engine.symbols):,} symbols from {engine.files:,} files{skipped}"

    def words(self, query: str) -> list[str]:
        return tokenize(query, stem=True)

    # -- a row ---------------------------------------------------------------------------------
    def row(self, hit: Hit) -> RowView:
        """The language leads the dim detail after the title (in the narrow where cell it hid the path)."""
        detail = " · ".join(x for x in (hit.extras.get("language"), hit.extras.get("summary")) if x)
        return RowView(hit.title or hit.id, hit.where, hit.tier, detail=detail,
                       tier_style="italic" if hit.marker else "")

    def symbol(self, hit: Hit):
        """The hit's symbol, looked up by the engine's index (no Symbol made for the rest of a monorepo)."""
        return self.engine.symbol_of(hit.id)

    def preview(self, hit: Hit, query: str) -> Group:
        """The row's name, place and summary (wrapped), then its source (never wrapped: the numbers stay
        in their column; a long line is cut at the edge, the editor shows the rest)."""
        out = Text(end="")
        out.append(one_line(hit.title or hit.id), style="bold")
        out.append("\n")
        language = hit.extras.get("language")
        out.append(one_line(f"{hit.where} · {language}" if language else hit.where), style="dim")
        summary = hit.extras.get("summary")
        if summary:
            out.append("\n")
            out.append(one_line(summary), style="italic")
        out.append("\n")
        source = self.source(hit, query)
        source.no_wrap, source.overflow = True, "ellipsis"
        return Group(out, source)

    def source(self, hit: Hit, query: str, limit: int = PREVIEW_LINES) -> Text:
        """The symbol's lines (line..end_line) with their numbers, the query's words highlighted."""
        path, first = hit.extras.get("path"), hit.extras.get("line")
        last = hit.extras.get("end_line") or first
        lines: list[str] | None = None
        if path and first:
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read().splitlines()[first - 1:last]
            except OSError:
                lines = None
        if not lines:
            symbol = self.symbol(hit)
            if symbol is None:
                return Text("The source is no longer readable (edited or removed since the search).", style="italic")
            lines, first = symbol.source.splitlines(), symbol.line
        left_out = max(0, len(lines) - limit)
        lines = lines[:limit]
        return numbered(lines, first, self.words(query), left_out, hit.extras.get("language") or "python")

    def full_text(self, hit: Hit) -> Text:
        return self.source(hit, "", limit=10_000)

    def target(self, hit: Hit, query: str) -> Target | None:
        path = hit.extras.get("path")
        return Target(path, hit.extras.get("line")) if path else None

    def compare_columns(self) -> list[Column]:
        return [Column(LEXICAL, (LEXICAL,)), Column(EMBEDDING, (EMBEDDING,)),
                Column("merged", (LEXICAL, EMBEDDING), combined=True)]

    def compare_search(self, column: Column, query: str, limit: int) -> Iterator[Batch]:
        """A column with the embedding tier waits for its index: compare shows whole tiers, not partial ones."""
        if EMBEDDING in column.tiers and not code_recall_off():
            self._meaning_on = True
            self.engine.build_index()
        return self.engine.search(query, limit=limit, tiers=column.tiers)

    def close(self) -> None:
        if self._engine.made:
            self.engine.close()


def numbered(lines: list[str], first: int, words: Sequence[str], left_out: int = 0, language: str = "python") -> Text:
    """Lines coloured as ``language`` (languages.py's name), each after its line number; an identifier
    holding a query word (stemmed, split as the lexical tier splits it: ``RateLimiter`` holds "limit")
    is highlighted."""
    wanted = {w for w in words if len(w) > 2}  # "do", "we": in every docstring, found nothing
    code = shown("\n".join(lines))
    body = Syntax("", _lexer(language), theme=SYNTAX_THEME).highlight(code)
    body.expand_tabs(4)
    width = len(str(first + max(len(lines) - 1, 0)))
    out = Text(end="")
    for i, line in enumerate(body.split("\n", allow_blank=True)):
        if i >= len(lines):
            break
        if wanted:
            for match in _IDENTIFIER.finditer(line.plain):
                if wanted.intersection(tokenize(match.group(), stem=True)):
                    line.stylize("reverse", match.start(), match.end())
        if i:
            out.append("\n")
        out.append(f"{first + i:>{width}} ", style="dim")
        out.append_text(line)
    if left_out:
        out.append(f"\n… {left_out:,} more lines (enter opens the file)", style="dim italic")
    return out


def _lexer(language: str):
    """The Pygments lexer of a language: PHP's starts in code (a symbol's lines have no ``<?php``)."""
    lang = BY_NAME.get(language)
    if lang is None:
        return "text"
    if lang.lexer == "php":
        from pygments.lexers import PhpLexer

        return PhpLexer(startinline=True)
    return lang.lexer
