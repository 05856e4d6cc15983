"""Word (.docx): its WordprocessingML read with the standard library (zipfile, bounded by zipped.py;
ElementTree's iterparse). python-docx reads the same XML through lxml, a compiled dependency, and
gives no footnotes; what a search needs (the words of paragraphs, headings, tables and footnotes, and
the title) is the ``w:t`` runs of each ``w:p`` and its style. A ``Heading N`` (or ``Title``) styled
paragraph starts a section."""

from __future__ import annotations

import re

from engines.notes.readers import Document, Section, Unreadable
from engines.notes.readers.xml_text import events, first_title
from engines.notes.readers.zipped import Container

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING_STYLE = re.compile(r"^(heading\s*\d|title)$", re.IGNORECASE)


def read(data: bytes) -> Document:
    box = Container(data, "Word document")
    body = box.read("word/document.xml")
    if body is None:
        raise Unreadable("damaged (a zip with no word/document.xml: not a Word document)")
    sections = [Section("", "")]
    title = ""
    for heading, text in paragraphs(body, "word/document.xml"):
        if heading:
            if heading == "title" and not title:
                title = text
                continue
            sections.append(Section(text, ""))
        elif text:
            sections[-1].text += text + "\n"
    notes = box.read("word/footnotes.xml")
    if notes is not None:
        said = "\n".join(text for _, text in paragraphs(notes, "word/footnotes.xml") if text)
        if said:
            sections.append(Section("Footnotes", said))
    sections = [s for s in sections if s.text.strip() or s.heading]
    if not sections:
        raise Unreadable("no text")
    return Document(first_title(box.read("docProps/core.xml"), "docProps/core.xml") or title or next((s.heading for s in sections if s.heading), ""), sections)


def paragraphs(xml: bytes, what: str):
    """(heading style or "", the paragraph's text) for each paragraph, tables' cells included."""
    for event, element in events(xml, what):
        if event != "end" or element.tag != W + "p":
            continue
        parts = []
        for node in element.iter():
            name = node.tag
            if name == W + "t" and node.text:
                parts.append(node.text)
            elif name == W + "tab":
                parts.append("\t")
            elif name in (W + "br", W + "cr"):
                parts.append("\n")
        style = element.find(f"{W}pPr/{W}pStyle")
        value = style.get(W + "val", "") if style is not None else ""
        heading = "title" if value.lower() == "title" else "heading" if _HEADING_STYLE.match(value) else ""
        element.clear()
        yield heading, " ".join("".join(parts).split())
