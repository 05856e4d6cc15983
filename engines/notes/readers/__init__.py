"""The readers room: one reader per document format behind one seam (as ripgrep-all's adapters): a
file's bytes in, a :class:`Document` out (title, tags, date, aliases, links, and its text as sections,
each with where it is: a page, or a line and its heading). The notes corpus turns each section into a
note (engines/notes/documents.py), so the engine, its tiers and its caches do not change per format.

Markdown, text and outline files keep their own readers in engines/notes/corpus.py. A reader never
writes anything and never fetches anything; what it cannot read it says in one line (:class:`Unreadable`).

| suffix | module | library (licence) |
|---|---|---|
| .pdf | pdf.py | pypdfium2 (Apache-2.0 / BSD-3-Clause): PDFium, the PDF engine of Chromium |
| .org | org.py | the standard library (Org's syntax is line-based; no Python Org library is kept up) |
| .html .htm .xhtml | html.py | the standard library's html.parser (a tokenizer: no tree, so no nesting depth to bound) |
| .docx | docx.py | the standard library's zipfile and ElementTree, bounded by zipped.py |
| .odt | odt.py | the same |
| .epub | epub.py | zipfile for the container, html.py for each chapter |
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field

# bytes read of one document at most: a 250-page paper here is 5 MB, the largest of the 169 papers 21 MB
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

READERS = {
    ".pdf": "pdf",
    ".org": "org",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".docx": "docx",
    ".odt": "odt",
    ".epub": "epub",
}
DOCUMENT_SUFFIXES = tuple(READERS)


@dataclass
class Section:
    """One stretch of a document that a hit can point at: a PDF page, an Org heading's text, a chapter."""

    heading: str  # the heading it sits under ("" before the first)
    text: str
    line: int | None = None  # 1-based line of the heading in the file (text formats)
    page: int | None = None  # 1-based page (PDF)
    tags: tuple[str, ...] = ()
    id: str | None = None  # its own stable id where the format gives one (Org's :ID:)
    date: float | None = None  # seconds since the epoch (Org's CLOSED / SCHEDULED)


@dataclass
class Document:
    title: str
    sections: list[Section]
    tags: tuple[str, ...] = ()
    date: float | None = None
    aliases: tuple[str, ...] = ()
    links: tuple[str, ...] = ()  # what it links to (Org: the ids of [[id:...]] links)
    id: str | None = None  # the file's own id (Org's file-level :ID:)
    notes: list[str] = field(default_factory=list)  # what was read only in part, one line each


class Unreadable(Exception):
    """A document that cannot be searched, with why in one line ("encrypted (a password is needed)")."""


def reader_for(path: str | os.PathLike):
    """The reader module for a file by its suffix, or None (imported on first use: pypdfium2 loads
    its library only when a PDF is met)."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    name = READERS.get(suffix)
    return importlib.import_module(f"engines.notes.readers.{name}") if name else None


def read_document(path: str, data: bytes) -> Document:
    """The document in ``data`` (the bytes of ``path``), by its format's reader; Unreadable otherwise."""
    reader = reader_for(path)
    if reader is None:
        raise Unreadable("no reader for this format")
    try:
        return reader.read(data)
    except Unreadable:
        raise
    except (ValueError, KeyError, IndexError, OSError, RecursionError, MemoryError, UnicodeError) as error:
        raise Unreadable(f"damaged ({type(error).__name__}: {' '.join(str(error).split())[:120]})") from None
