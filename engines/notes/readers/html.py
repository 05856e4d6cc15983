"""HTML (a saved web page, an EPUB chapter): the standard library's html.parser, a tokenizer that
builds no tree, so a page nested 100,000 deep costs no more than a flat one. The title is <title>
(else the first heading), each <h1>..<h6> starts a section at its line, and script, style, templates,
SVG and navigation are not words."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from engines.notes.readers import Document, Section, Unreadable

SKIPPED = {"script", "style", "noscript", "template", "svg", "nav", "head", "math", "iframe", "object"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
BLOCKS = {"p", "div", "br", "li", "tr", "td", "th", "section", "article", "blockquote", "pre", "dd", "dt",
          "figcaption", "table", "ul", "ol", "main", "header", "footer", "aside"} | HEADINGS
VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "col", "area", "base", "source", "embed", "param", "track"}
_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.IGNORECASE)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.in_title = False
        self.skipping: list[str] = []  # open skipped elements (only they are counted: no tree is built)
        self.heading: list[str] | None = None
        self.sections: list[Section] = [Section("", "", line=1)]
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "title":
            self.in_title = True
        if tag in SKIPPED and tag not in VOID:
            self.skipping.append(tag)
            return
        if self.skipping:
            return
        if tag in HEADINGS:
            self._close()
            self.sections.append(Section("", "", line=self.getpos()[0]))
            self.heading = []
        elif tag in BLOCKS:
            self.text.append("\n")
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self.text.append(f" {alt} ")

    def handle_endtag(self, tag) -> None:
        if tag == "title":
            self.in_title = False
        if tag in SKIPPED and self.skipping:
            if tag in self.skipping:
                while self.skipping and self.skipping.pop() != tag:
                    pass
            return
        if self.skipping:
            return
        if tag in HEADINGS and self.heading is not None:
            self.sections[-1].heading = " ".join("".join(self.heading).split())
            self.heading = None
        elif tag in BLOCKS:
            self.text.append("\n")

    def handle_data(self, data) -> None:
        if self.in_title:
            self.title += data
            return
        if self.skipping:
            return
        if self.heading is not None:
            self.heading.append(data)
        else:
            self.text.append(data)

    def _close(self) -> None:
        text = "".join(self.text)
        self.sections[-1].text = "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())
        self.text = []


def read(data: bytes) -> Document:
    return read_text(decoded(data))


def decoded(data: bytes) -> str:
    """The page's text: UTF-8 (with or without a BOM), else the charset its <meta> says, else Latin-1."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        declared = _CHARSET.search(data[:4096])
        try:
            return data.decode(declared.group(1).decode("ascii") if declared else "cp1252", errors="replace")
        except LookupError:
            return data.decode("cp1252", errors="replace")


def read_text(text: str) -> Document:
    reader = _Reader()
    reader.feed(text)
    reader.close()
    reader._close()
    sections = [s for s in reader.sections if s.text or s.heading]
    if not sections:
        raise Unreadable("no text (an HTML page with nothing but markup)")
    title = " ".join(reader.title.split()) or next((s.heading for s in sections if s.heading), "")
    return Document(title, sections)
