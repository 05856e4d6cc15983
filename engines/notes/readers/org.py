"""Org: read line by line with the standard library (Org's syntax is line-based, and no Python Org
library is kept up: orgparse's last release is from 2023 and keeps no line numbers of its text).

- ``#+title``, ``#+filetags`` / ``#+roam_tags`` and heading tags (inherited, as Org does) are the
  title and tags; ``:ROAM_ALIASES:`` are aliases; ``#+date`` and CLOSED / SCHEDULED / DEADLINE dates;
- the file's and each heading's ``:ID:`` property (org-roam) is its id: a ``[[id:...][label]]`` link
  reads as its label, as a vault's ``[[target|label]]`` does, and the target is kept in ``links``;
- each heading is a section with its 1-based line; the text before the first heading is one too;
- drawers (``:PROPERTIES:`` ... ``:END:``, ``:LOGBOOK:``), ``#+`` keyword and block lines, and
  emphasis marks (``*bold*``, ``/italic/``, ``=code=``, ``~verbatim~``, ``+strike+``) are not words.
"""

from __future__ import annotations

import re

from engines.notes.readers import Document, Section, Unreadable
from engines.notes.vault import _epoch as epoch_of

HEADING = re.compile(r"^(\*+)\s+(?:(?:TODO|DONE|NEXT|WAITING|CANCELL?ED)\s+)?(?:\[#[A-Z0-9]\]\s+)?(.*?)"
                     r"(?:\s+(:[\w@#%:]+:))?\s*$")
KEYWORD = re.compile(r"^\s*#\+(\w+)(?:\[[^\]]*\])?:\s*(.*)$")
BLOCK_LINE = re.compile(r"^\s*#\+(begin|end)_\w*.*$", re.IGNORECASE)
DRAWER_START = re.compile(r"^\s*:([\w-]+):\s*$")
DRAWER_END = re.compile(r"^\s*:END:\s*$", re.IGNORECASE)
PROPERTY = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")
PLANNING = re.compile(r"\b(CLOSED|SCHEDULED|DEADLINE):\s*[\[<](\d{4}-\d{2}-\d{2})[^\]>]*[\]>]")
LINK = re.compile(r"\[\[([^\]]+)\](?:\[([^\]]*)\])?\]")
# <<target>> is a place links point at, not shown (gone); <<<radio target>>> is shown (its words kept)
TARGET = re.compile(r"<<<([^<>\n]*)>>>|<<[^<>\n]*>>")
EMPHASIS = re.compile(r"(?<![\w*/=~+])([*/=~+])(?=\S)([^\n]*?\S)\1(?![\w*/=~+])")
COMMENT = re.compile(r"^\s*#(\s.*)?$")


def read(data: bytes) -> Document:
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    if not text.strip():
        raise Unreadable("empty file")
    return read_text(text)


def read_text(text: str) -> Document:
    title, tags, aliases, date, file_id = "", [], [], None, None
    links: list[str] = []
    sections: list[Section] = []
    heading, line_of, own_tags, own_id, own_date = "", 1, (), None, None
    body: list[str] = []
    tag_stack: list[tuple[int, tuple[str, ...]]] = []
    in_drawer = False
    in_block = False

    def close() -> None:
        words = "\n".join(body).strip()
        if "[[" in words:  # a link's label may wrap onto the next line
            words = words_of(words, links)
        if words or heading:
            sections.append(Section(heading, words, line=line_of, tags=own_tags, id=own_id, date=own_date))

    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if in_drawer:
            if DRAWER_END.match(line):
                in_drawer = False
            else:
                prop = PROPERTY.match(line)
                if prop and in_drawer == "PROPERTIES":
                    key, value = prop.group(1).upper(), prop.group(2)
                    if key == "ID":
                        if sections or heading:
                            own_id = value
                        else:
                            file_id = file_id or value
                    elif key == "ROAM_ALIASES":
                        aliases += [a.strip('"') for a in re.findall(r'"[^"]+"|\S+', value)]
            continue
        heading_match = HEADING.match(line) if line.startswith("*") and not in_block else None
        if heading_match:
            close()
            level = len(heading_match.group(1))
            tags_here = tuple(t for t in (heading_match.group(3) or "").split(":") if t)
            while tag_stack and tag_stack[-1][0] >= level:
                tag_stack.pop()
            inherited = tuple(t for _, ts in tag_stack for t in ts)
            tag_stack.append((level, tags_here))
            heading = words_of(heading_match.group(2), links).strip()
            line_of, own_tags, own_id, own_date, body = number, inherited + tags_here, None, None, []
            continue
        if BLOCK_LINE.match(line):
            in_block = line.strip().lower().startswith("#+begin")
            continue
        keyword = KEYWORD.match(line) if not in_block else None
        if keyword:
            key, value = keyword.group(1).lower(), keyword.group(2).strip()
            if key == "title" and not title:
                title = words_of(value, links)
            elif key in ("filetags", "roam_tags", "tags"):
                tags += [t for t in re.split(r"[:\s]+", value) if t]
            elif key == "date" and date is None:
                date = _date(value)
            elif key in ("caption", "name"):
                body.append(words_of(value, links))
            continue
        if not in_block:
            drawer = DRAWER_START.match(line)
            if drawer:
                in_drawer = drawer.group(1).upper()
                continue
            planning = PLANNING.findall(line)
            if planning:
                own_date = own_date or _date(planning[0][1])
                rest = PLANNING.sub("", line).strip()
                if not rest:
                    continue
                line = rest
            if COMMENT.match(line):
                continue
        body.append(line if in_block else words_of(line, links))
    close()
    if not title:
        title = next((s.heading for s in sections if s.heading), "")
    return Document(title, sections, tuple(dict.fromkeys(tags)), date, tuple(aliases),
                    tuple(dict.fromkeys(links)), file_id)


def words_of(text: str, links: list[str]) -> str:
    """A line as words: links as their labels (an id link's target kept in ``links``), emphasis unmarked."""
    if "[[" in text:
        def label(match: re.Match) -> str:
            target, shown = match.group(1), match.group(2)
            if target.startswith("id:"):
                links.append(target[3:])
            elif target.startswith("file:") and not shown:
                shown = target[5:].rsplit("/", 1)[-1]
            return shown if shown is not None else target
        text = LINK.sub(label, text)
    if "<<" in text:
        text = TARGET.sub(lambda m: m.group(1) or "", text)
    if any(c in text for c in "*/=~+"):
        text = EMPHASIS.sub(r"\2", text)
    return text


def _date(value: str) -> float | None:
    found = re.search(r"\d{4}-\d{2}-\d{2}", value)
    return epoch_of(found.group(0)) if found else None
