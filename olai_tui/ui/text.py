"""Turning note text into what the screen shows, safely.

Everything a corpus holds is shown as rich ``Text`` built from plain strings, never as markup: a note
holding ``[bold]`` or ``[/]`` shows those characters. Control characters (an escape sequence in a log
pasted into a note would otherwise reach the terminal) are shown as visible symbols, and bidi
overrides, which would flip the rest of a row, are dropped; right-to-left letters themselves stay. That
mapping is engines/terminal_text.py's, shared with the command line.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from rich.cells import cell_len
from rich.text import Text

from engines.terminal_text import one_line, shown

__all__ = ["shown", "one_line", "reflowed", "cell", "tail_cell", "words_pattern", "highlighted", "clipped",
           "fit_words", "first_fitting"]

# A single line break inside a paragraph (hard-wrapped prose), not before a list item, heading,
# quote, table row or indented line: the preview re-wraps such lines to its own width.
_SOFT_BREAK = re.compile(r"(?<=[^\n])\n(?=[^\n\s\-*+#>|`\d])")

TAB_SIZE = 4
MAX_HIGHLIGHTED_WORDS = 24  # a 10 KB paste has ~1,500 words; one regex over 24 covers every real query
PREVIEW_CHARS = 20_000  # ~300 lines of a wide terminal; a 5 MB note would take seconds to lay out


def reflowed(text: str) -> str:
    """Prose hard-wrapped at the writer's width, joined back so it wraps at the preview's."""
    return _SOFT_BREAK.sub(" ", text)


def cell(text: str, width: int | None = None, style: str = "") -> Text:
    out = Text(one_line(text), style=style, no_wrap=True, overflow="ellipsis", end="")
    if width is not None and out.cell_len > width:
        out.truncate(max(width, 1), overflow="ellipsis")
    return out


def tail_cell(text: str, width: int, style: str = "") -> Text:
    """For a path: cut at the start (…frames/slugs.md), where the file's own name is kept."""
    plain = one_line(text)
    out = Text(plain, style=style, no_wrap=True, end="")
    if out.cell_len > width:
        out = Text("…" + _tail(plain, max(width - 1, 0)), style=style, no_wrap=True, end="")
    return out


def _tail(text: str, cells: int) -> str:
    kept = ""
    for ch in reversed(text):
        if cell_len(ch + kept) > cells:
            break
        kept = ch + kept
    return kept


def words_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    """One case-insensitive pattern for the query's words, longest first (so 'seedlings' beats 'seed')."""
    chosen = sorted({w for w in words if w.strip()}, key=len, reverse=True)[:MAX_HIGHLIGHTED_WORDS]
    if not chosen:
        return None
    return re.compile("|".join(re.escape(shown(w)) for w in chosen), re.IGNORECASE)


def highlighted(text: str, words: Iterable[str], style: str = "", match_style: str = "reverse") -> Text:
    """Plain text (never markup) with each occurrence of the query's words styled."""
    out = Text(shown(text), style=style, end="")
    out.expand_tabs(TAB_SIZE)
    pattern = words_pattern(words)
    if pattern is not None:
        for match in pattern.finditer(out.plain):
            if match.end() > match.start():
                out.stylize(match_style, match.start(), match.end())
    return out


def clipped(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, int]:
    """The first ``limit`` characters of text and how many were left out."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def fit_words(text: Text, width: int) -> Text:
    """``text`` on one line of ``width`` cells, cut at the last word that fits with "…" after it; never
    mid-word (a first word longer than the width is the one thing cut inside)."""
    if text.cell_len <= width or width <= 0:
        return text
    plain = text.plain
    room = width - 1  # the "…"
    cut = 0
    for i, ch in enumerate(plain):
        if cell_len(plain[: i + 1]) > room:
            break
        if ch == " " and i:
            cut = i
    if cut == 0:
        cut = len(plain[:room])
        while cut and cell_len(plain[:cut]) > room:
            cut -= 1
    out = text[:len(plain[:cut].rstrip(" :;,·"))].copy()
    out.rstrip_end(room)
    out.end = ""
    out.append("…", style="dim")
    return out


def first_fitting(variants: Sequence[Text], width: int | None) -> Text:
    """The first of ``variants`` (most said first) that fits ``width`` cells, else the last cut at a word."""
    if width is None or width <= 0:
        return variants[0]
    for variant in variants:
        if variant.cell_len <= width:
            return variant
    return fit_words(variants[-1], width)
