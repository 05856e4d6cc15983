"""EPUB: the zip container (zipped.py, bounded), its package file's spine in reading order, and each
chapter's XHTML read by html.py: each chapter one section, headed by its first heading. ebooklib is
AGPL, so not used; the container is two small XML files and the standard library reads them."""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

from engines.notes.readers import Document, Section, Unreadable
from engines.notes.readers import html
from engines.notes.readers.xml_text import events, local
from engines.notes.readers.zipped import Container


def read(data: bytes) -> Document:
    box = Container(data, "EPUB")
    container = box.read("META-INF/container.xml")
    if container is None:
        raise Unreadable("damaged (no META-INF/container.xml: not an EPUB)")
    package = next((e.get("full-path") for ev, e in events(container, "META-INF/container.xml")
                    if ev == "end" and local(e.tag) == "rootfile" and e.get("full-path")), None)
    opf = box.read(package) if package else None
    if opf is None:
        raise Unreadable("damaged (its package file is missing)")
    title, items, spine = "", {}, []
    for event, element in events(opf, package):
        if event != "end":
            continue
        name = local(element.tag)
        if name == "title" and not title:
            title = " ".join((element.text or "").split())
        elif name == "item" and element.get("id") and element.get("href"):
            items[element.get("id")] = element.get("href")
        elif name == "itemref" and element.get("idref"):
            spine.append(element.get("idref"))
    base = posixpath.dirname(package)
    sections = []
    for number, ref in enumerate(spine, start=1):
        href = items.get(ref)
        if href is None:
            continue
        chapter = box.read(posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0]))))
        if chapter is None:
            continue
        try:
            read_chapter = html.read_text(html.decoded(chapter))
        except Unreadable:
            continue  # a cover page, an image alone
        heading = next((s.heading for s in read_chapter.sections if s.heading), read_chapter.title)
        text = "\n".join(part for s in read_chapter.sections
                         for part in ((s.heading if s.heading != heading else ""), s.text) if part)
        sections.append(Section(heading or f"chapter {number}", text))
    if not sections:
        raise Unreadable("no text (no chapter in its spine)")
    return Document(title, sections)
