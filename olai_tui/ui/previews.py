"""A highlighted row's preview, chosen by the kind its engine declares (``Presentation.preview``):

- ``text``: the passage's title, place and text reflowed, the query's words marked (any engine);
- ``markdown``: a note laid out as Markdown with its tags and aliases (a .txt note reflowed);
- ``source``: the symbol's name, place, language and summary, then its lines numbered and coloured;
- ``card``: a product's facts (the judge's badge, claims, allergens, checks, what found it).

Each is a presentation function of a :class:`~engines.contract.Passage` (what ``read(id)`` returns)
and the row's :class:`~engines.answer.Hit`; none knows an engine.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Mapping, Sequence

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text

from engines.answer import Hit
from engines.contract import Passage
from olai_tui.ui.markdown_preview import MarkedMarkdown
from olai_tui.ui.text import PREVIEW_CHARS, clipped, highlighted, one_line, reflowed, shown

# Markdown is laid out on every cursor move: 6,000 characters take ~21 ms on 2 busy cores (20,000: ~150 ms),
# so a longer note shows its first 6,000 laid out and says how much more there is.
MARKDOWN_PREVIEW_CHARS = 6_000
PREVIEW_LINES = 400  # a 3,000-line generated function would take seconds to lay out
CARD_TEXT = 1_500  # characters of ingredients or description on the card
SYNTAX_THEME = "ansi_dark"  # the terminal's own palette: follows the user's colours, fixed in snapshots
_IDENTIFIER = re.compile(r"[^\W_]\w*|_\w+")
_WORD = re.compile(r"\w+")


def body_of(passage: Passage) -> str:
    """The passage's text without the title it starts with (a note's read is its title, a blank line, its body)."""
    head = passage.title + "\n\n"
    return passage.text[len(head):] if passage.text.startswith(head) else passage.text


def text_preview(passage: Passage, words: Sequence[str]) -> Text:
    body, left_out = clipped(passage.text)
    out = Text(end="")
    out.append_text(highlighted(one_line(passage.title) or passage.id, words, style="bold"))
    out.append("\n")
    out.append(one_line(passage.where), style="dim")
    out.append("\n\n")
    out.append_text(highlighted(reflowed(body.strip("\n")), words))
    if left_out or passage.truncated:
        out.append(f"\n… {left_out:,} more characters", style="dim italic")
    return out


def markdown_preview(passage: Passage, words: Sequence[str]):
    """A note: title, place, tags and aliases, then the body laid out as Markdown (a .txt note reflowed)."""
    body, left_out = clipped(body_of(passage), MARKDOWN_PREVIEW_CHARS if passage.markdown else PREVIEW_CHARS)
    out = Text(end="")
    out.append_text(highlighted(one_line(passage.title) or passage.id, words, style="bold"))
    out.append("\n")
    out.append(one_line(passage.where), style="dim")
    if passage.tags:
        out.append("  " + one_line(" ".join("#" + t for t in passage.tags)), style="dim")
    if passage.aliases:
        out.append("\nalso: " + one_line(", ".join(passage.aliases)), style="dim")
    out.append("\n\n")
    more = Text(f"… {left_out:,} more characters (enter opens the whole note)", style="dim italic")
    if passage.markdown:  # headings, lists, tables and code laid out, the query's words marked
        return Group(out, MarkedMarkdown(body.strip("\n"), words), *([Text(), more] if left_out else []))
    out.append_text(highlighted(reflowed(body.strip("\n")), words))
    if left_out:
        out.append("\n")
        out.append_text(more)
    return out


def source_preview(hit: Hit, passage: Passage, words: Sequence[str], lexers: Mapping[str, str],
                   words_of: Callable[[str], list[str]]) -> Group:
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
    source = source_lines(passage, words, lexers, words_of)
    source.no_wrap, source.overflow = True, "ellipsis"
    return Group(out, source)


def source_lines(passage: Passage, words: Sequence[str], lexers: Mapping[str, str],
                 words_of: Callable[[str], list[str]] | None = None, limit: int = PREVIEW_LINES) -> Text:
    lines = passage.text.splitlines()
    left_out = max(0, len(lines) - limit)
    lexer = lexers.get(passage.language or "", "text") if passage.language else "python"
    return numbered(lines[:limit], passage.start_line or 1, words, left_out, lexer, words_of)


def numbered(lines: list[str], first: int, words: Sequence[str], left_out: int = 0, lexer: str = "python",
             words_of: Callable[[str], list[str]] | None = None) -> Text:
    """Lines coloured by the Pygments ``lexer``, each after its line number; an identifier holding a
    query word (as ``words_of`` splits it: the code engine stems, so ``RateLimiter`` holds "limit")
    is highlighted."""
    words_of = words_of or (lambda text: _WORD.findall(text.lower()))
    wanted = {w for w in words if len(w) > 2}  # "do", "we": in every docstring, found nothing
    code = shown("\n".join(lines))
    body = Syntax("", _lexer(lexer), theme=SYNTAX_THEME).highlight(code)
    body.expand_tabs(4)
    width = len(str(first + max(len(lines) - 1, 0)))
    out = Text(end="")
    for i, line in enumerate(body.split("\n", allow_blank=True)):
        if i >= len(lines):
            break
        if wanted:
            for match in _IDENTIFIER.finditer(line.plain):
                if wanted.intersection(words_of(match.group())):
                    line.stylize("reverse", match.start(), match.end())
        if i:
            out.append("\n")
        out.append(f"{first + i:>{width}} ", style="dim")
        out.append_text(line)
    if left_out:
        out.append(f"\n… {left_out:,} more lines (enter opens the file)", style="dim italic")
    return out


def _lexer(name: str):
    """A Pygments lexer by name: PHP's starts in code (a symbol's lines have no ``<?php``)."""
    if name == "php":
        from pygments.lexers import PhpLexer

        return PhpLexer(startinline=True)
    return name


def card(hit: Hit, passage: Passage, badge_styles: Mapping[str, str], text_chars: int = CARD_TEXT) -> Text:
    """A product's card: its facts from the row's extras, its brand and ingredients from the read."""
    x = hit.extras
    out = Text(one_line(passage.title), style="bold", end="")
    label = x.get("label")
    if label:
        out.append("  ")
        out.append(f" {label} ", style="reverse " + badge_styles.get(label, ""))
        if x.get("why"):
            out.append(" " + one_line(x["why"]), style="dim")
    facts = [f for f in ((x.get("kind") or "").replace("_", " "), x.get("quantity"), passage.field("brand")) if f]
    out.append("\n" + one_line(" · ".join(str(f) for f in facts)), style="dim")
    claims = x.get("claims") or {}
    out.append("\n\nclaims      ", style="bold")
    out.append(one_line(", ".join(claims)) or "none stated")
    out.append("\nallergens   ", style="bold")
    if x.get("allergen_data"):
        out.append(one_line(", ".join(x.get("allergens") or [])) or "none declared")
        out.append("\ntraces      ", style="bold")
        out.append(one_line(", ".join(x.get("traces") or [])) or "none stated")
    else:
        out.append("no allergen data: not safe for an avoid request", style="yellow")
    if x.get("checks"):
        out.append("\nchecks      ", style="bold")
        out.append(one_line("; ".join(x["checks"])), style="green")
    sources = x.get("sources") or {}
    if sources:
        out.append("\nfound by    ", style="bold")
        out.append(", ".join(f"{name} #{rank}" for name, rank in sorted(sources.items(), key=lambda kv: kv[1])))
    if x.get("codes"):
        out.append("\ncode        ", style="bold")
        out.append(one_line(", ".join(x["codes"])))
    out.append("\nfrom        ", style="bold")
    out.append(one_line(os.path.basename(hit.where)), style="dim")  # food.tsv:756; y copies the whole path
    body = passage.field("ingredients") or passage.field("description")
    if body:
        out.append("\n\n")
        out.append(reflowed(shown(body[:text_chars])))
        if len(body) > text_chars:
            out.append(" …", style="dim")
    return out
