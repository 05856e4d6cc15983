"""PDF: pypdfium2 (PDFium, Chromium's PDF engine; Apache-2.0 / BSD-3-Clause; wheels with the library
inside, nothing to compile). Each page with text is a section, ``page`` 1-based.

Measured here (the papers of shared/data/notes/reading, docs/notes-documents.md): pypdfium2 read the
193 PDFs of the source repository (4,654 pages, 14.2 M characters) in 11 s on one core.

PDFium marks a word hyphenated at a line end with U+FFFE in place of the hyphen (and keeps the line
break out): removing it joins the word ("implementa\\ufffetion" -> "implementation"). Ligature glyphs
(U+FB00..U+FB06) are spelled out, so "ﬁle" is found as "file".
"""

from __future__ import annotations

import re
import threading

from engines.notes.readers import Document, Section, Unreadable

# pages read of one PDF at most: the longest paper here has 250 pages; a 10,000-page file (a hostile
# or generated one) is read to here and said once, the rest of the folder still read.
MAX_PAGES = 2000
# a page with fewer letters than this has no text layer worth the name (a scan's stray OCR-less marks)
MIN_PAGE_LETTERS = 20
LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                           "\ufb05": "st", "\ufb06": "st"})
_LINE_END = re.compile(r"\r\n?")
_TITLE_JUNK = re.compile(r"^(microsoft word|untitled|slide ?\d|arxiv:)|\.(pdf|docx?|tex|dvi|ps|qxd|indd)$", re.IGNORECASE)
_LOCK = threading.Lock()  # PDFium is not thread-safe: one document at a time in the process

NO_TEXT = "no text layer: not searched; OCR is not done"


def read(data: bytes) -> Document:
    import pypdfium2 as pdfium

    with _LOCK:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as error:
            raise Unreadable(_cause(str(error))) from None
        try:
            return _read(pdf)
        finally:
            pdf.close()


def _read(pdf) -> Document:
    pages = len(pdf)
    notes = []
    if pages > MAX_PAGES:
        notes.append(f"{pages:,} pages: the first {MAX_PAGES:,} read")
    sections: list[Section] = []
    for number in range(min(pages, MAX_PAGES)):
        page = pdf[number]
        try:
            textpage = page.get_textpage()
            try:
                text = page_text(textpage.get_text_range())
            finally:
                textpage.close()
        finally:
            page.close()
        if sum(c.isalpha() for c in text[:4000]) >= MIN_PAGE_LETTERS:
            sections.append(Section("", text, page=number + 1))
    if not sections:
        raise Unreadable(NO_TEXT if pages else "no pages")
    title = _title(pdf)
    return Document(title, sections, notes=notes)


def page_text(raw: str) -> str:
    """A page's text as words: hyphenation marks joined, ligatures spelled out, line ends as newlines."""
    return _LINE_END.sub("\n", raw.replace("\ufffe", "").translate(LIGATURES)).replace("\x00", "")


def _title(pdf) -> str:
    """The info dictionary's title where it is a title ("" otherwise: the file's name names it, as a
    person named it; a first line of text was an author list or a journal's header too often)."""
    try:
        title = " ".join((pdf.get_metadata_dict().get("Title") or "").split())
    except Exception:  # a damaged info dictionary is no reason to lose the text
        title = ""
    title = re.sub(r"<[^>]{1,80}>", "", title).strip()
    if title and not _TITLE_JUNK.search(title) and any(c.isalpha() for c in title):
        return title
    return ""


def _cause(message: str) -> str:
    text = message.lower()
    if "password" in text or "security" in text:
        return "encrypted (a password is needed): not searched"
    if "format" in text or "file" in text:
        return "damaged (not a PDF PDFium can read): not searched"
    return f"damaged ({' '.join(message.split())[:120]}): not searched"
