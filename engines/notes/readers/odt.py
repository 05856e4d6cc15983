"""OpenDocument text (.odt): content.xml read with the standard library (zipfile, bounded by zipped.py;
ElementTree's iterparse), as docx.py reads Word's. ``text:h`` starts a section; paragraphs, lists,
tables and footnotes (``text:note``) are words; the title is meta.xml's dc:title."""

from __future__ import annotations

from engines.notes.readers import Document, Section, Unreadable
from engines.notes.readers.xml_text import events, first_title
from engines.notes.readers.zipped import Container

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"


def read(data: bytes) -> Document:
    box = Container(data, "OpenDocument text")
    content = box.read("content.xml")
    if content is None:
        raise Unreadable("damaged (a zip with no content.xml: not an OpenDocument file)")
    sections = [Section("", "")]
    for event, element in events(content, "content.xml"):
        if event != "end" or element.tag not in (TEXT + "p", TEXT + "h"):
            continue
        text = " ".join(_words(element).split())
        if element.tag == TEXT + "h":
            sections.append(Section(text, ""))
        elif text:
            sections[-1].text += text + "\n"
        element.clear()
    sections = [s for s in sections if s.text.strip() or s.heading]
    if not sections:
        raise Unreadable("no text")
    return Document(first_title(box.read("meta.xml"), "meta.xml") or next((s.heading for s in sections if s.heading), ""), sections)


def _words(element) -> str:
    """A paragraph's text: spans, links, spaces (text:s), tabs and line breaks; a footnote's citation
    mark left out (the note's own paragraphs are read as paragraphs)."""
    parts = [element.text or ""]
    for child in element:
        name = child.tag
        if name == TEXT + "s":
            parts.append(" " * int(child.get(TEXT + "c", "1") or 1))
        elif name in (TEXT + "tab", TEXT + "line-break"):
            parts.append(" ")
        elif name != TEXT + "note":
            parts.append(_words(child))
        parts.append(child.tail or "")
    return "".join(parts)
