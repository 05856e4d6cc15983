"""Turning note text into what the screen shows, safely.

Everything a corpus holds is shown as rich ``Text`` built from plain strings, never as markup: a note
holding ``[bold]`` or ``[/]`` shows those characters. Control characters (an escape sequence in a log
pasted into a note would otherwise reach the terminal) are shown as visible symbols, and bidi
overrides, which would flip the rest of a row, are dropped; right-to-left letters themselves stay.
"""

from __future__ import annotations

import re
from typing import Iterable

from rich.cells import cell_len
from rich.text import Text

# U+2400.. are the "control pictures": ␛ for ESC, ␀ for NUL, ...; DEL is ␡.
_C0 = {code: chr(0x2400 + code) for code in range(0x20) if chr(code) not in "\n\t"}
_C0[0x7F] = "\u2421"
_C1 = {code: "\ufffd" for code in range(0x80, 0xA0)}
# Embeddings, overrides and isolates (U+202A-E, U+2066-9): they reorder what follows on the line.
_BIDI_CONTROLS = {code: None for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}
_SHOWN = str.maketrans({**_C0, **_C1, **_BIDI_CONTROLS})
_WHITESPACE = re.compile(r"\s+")
# A single line break inside a paragraph (hard-wrapped prose), not before a list item, heading,
# quote, table row or indented line: the preview re-wraps such lines to its own width.
_SOFT_BREAK = re.compile(r"(?<=[^\n])\n(?=[^\n\s\-*+#>|`\d])")

TAB_SIZE = 4
MAX_HIGHLIGHTED_WORDS = 24  # a 10 KB paste has ~1,500 words; one regex over 24 covers every real query
PREVIEW_CHARS = 20_000  # ~300 lines of a wide terminal; a 5 MB note would take seconds to lay out


def shown(text: str) -> str:
    """Text with its control characters made visible and bidi overrides removed (newlines, tabs kept)."""
    return text.translate(_SHOWN)


def reflowed(text: str) -> str:
    """Prose hard-wrapped at the writer's width, joined back so it wraps at the preview's."""
    return _SOFT_BREAK.sub(" ", text)


def one_line(text: str) -> str:
    """For a table cell: every run of white space (newlines, tabs) as one space, controls made visible."""
    return _WHITESPACE.sub(" ", shown(text)).strip()


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
