"""A document file (PDF, Org, HTML, Word, OpenDocument, EPUB) as notes: one note per section (a PDF
page, an Org heading, a chapter), so a hit says where in the file it is, and the engine, its tiers and
its caches treat each as any other note (the readers: engines/notes/readers/).

- a page's note: id ``rel#pN``, where ``rel p. N`` (``N`` 1-based), titled with the document's title;
- a section's: id ``rel#ID`` (Org's :ID:, stable across edits) or ``rel#LN``, where ``rel:LINE`` (the
  heading's line, where the format has lines), titled ``document title › heading``;
- the text before the first heading: id ``rel``, where ``rel``, titled with the document's title.

A document that cannot be searched is one Problem naming why (no text layer, encrypted, damaged, a zip
bomb); one read in part (a 10,000-page PDF) is searched and named once too.
"""

from __future__ import annotations

import os
import re
import stat

from engines.notes.readers import DOCUMENT_SUFFIXES, MAX_DOCUMENT_BYTES, Document, Unreadable, read_document
from engines.problems import Problem

HEADING_MARK = " › "
PAGE_WHERE = re.compile(r" p\. (\d+)$")


def document_notes(path: str, rel: str, mtime: float | None, make_note) -> tuple[list, list[Problem]]:
    """The notes of the document at ``path`` (shown as ``rel``), made by ``make_note`` (corpus._note)."""
    data = _bytes(path)
    if isinstance(data, str):
        return [], [Problem(rel, data)]
    try:
        document = read_document(path, data)
    except Unreadable as error:
        return [], [Problem(rel, str(error))]
    problems = [Problem(rel, said, skipped=False) for said in document.notes]
    return notes_of(document, rel, path, mtime, make_note), problems


def notes_of(document: Document, rel: str, path: str, mtime: float | None, make_note) -> list:
    stem = os.path.splitext(os.path.basename(rel))[0]
    title = " ".join(document.title.split()) or " ".join(stem.replace("_", " ").replace("-", " ").split()) or stem
    date = document.date if document.date is not None else mtime
    notes, ids = [], set()
    sections = document.sections or []
    if not sections:
        return [make_note(rel, title, "", rel, path, document.tags, None, document.aliases, date)]
    head = None
    for number, section in enumerate(sections):
        tags = tuple(document.tags) + tuple(section.tags)
        when = section.date if section.date is not None else date
        if section.page is not None:
            note_id, where, shown = f"{rel}#p{section.page}", f"{rel} p. {section.page}", title
        elif not section.heading and head is None and number == 0:
            note_id, where, shown = rel, rel, title
        else:
            note_id = f"{rel}#{section.id}" if section.id else f"{rel}#L{section.line}" if section.line else f"{rel}#s{number + 1}"
            if note_id in ids:
                note_id = f"{rel}#s{number + 1}"
            where = f"{rel}:{section.line}" if section.line else rel
            shown = f"{title}{HEADING_MARK}{section.heading}" if section.heading else title
        ids.add(note_id)
        aliases = document.aliases if not notes else ()
        notes.append(make_note(note_id, shown, section.text, where, path, tags, head if note_id != head else None,
                               aliases, when))
        if note_id == rel:
            head = rel
    return notes


def location(note) -> dict:
    """What a hit on ``note`` carries of where it is: ``page`` (PDF), or ``line`` and ``heading``."""
    page = PAGE_WHERE.search(note.where)
    if page and "#p" in note.id:
        return {"page": int(page.group(1))}
    if HEADING_MARK not in note.title or "#" not in note.id or not note.path.lower().endswith(DOCUMENT_SUFFIXES):
        return {}
    line = note.where.rpartition(":")[2]
    heading = {"heading": note.title.split(HEADING_MARK, 1)[1]}
    return {"line": int(line), **heading} if line.isdigit() else heading


def _bytes(path: str) -> bytes | str:
    """The file's bytes, or why they cannot be had (never blocking on a FIFO; bounded)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                return "not a regular file: not read"
            if st.st_size > MAX_DOCUMENT_BYTES:
                return f"too large ({st.st_size / 1048576:.1f} MB; documents over {MAX_DOCUMENT_BYTES // 1048576} MB are skipped)"
            data = f.read(MAX_DOCUMENT_BYTES + 1)
    except PermissionError:
        return "unreadable (permission denied)"
    except OSError as error:
        return (error.strerror or str(error)).lower()
    if len(data) > MAX_DOCUMENT_BYTES:
        return f"too large (documents over {MAX_DOCUMENT_BYTES // 1048576} MB are skipped)"
    if not data.strip():
        return "empty file"
    return data
