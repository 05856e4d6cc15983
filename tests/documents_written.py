"""Documents of every format a notebook holds, written by hand in a test (no library writes them, so
the readers are checked against the formats, not against a writer's habits): a PDF with a text layer
in a standard font, a PDF with none, Org, HTML, DOCX, ODT and EPUB (zip and XML)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


def pdf(pages: list[str], title: str | None = None) -> bytes:
    """A PDF of ``pages`` (each page's lines in Helvetica; an empty string: a page with no text)."""
    objects: list[bytes] = []
    kids = []
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        page_no, content_no = 3 + 2 * i, 4 + 2 * i
        kids.append(f"{page_no} 0 R")
        lines = "".join(f"({line}) Tj 0 -16 Td " for line in text.split("\n")) if text else ""
        stream = (f"BT /F1 12 Tf 72 720 Td {lines}ET" if text else "0 0 m 10 10 l S").encode("latin-1")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_no} 0 R "
                       f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info = f"<< /Title ({title}) >>".encode() if title else b"<< >>"
    objects.append(info)
    head = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()]
    everything = head + objects
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(everything, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(everything) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(everything) + 1, len(everything), xref))
    return out.getvalue()


def zipped(members: dict[str, str | bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as box:
        for name, body in members.items():
            box.writestr(name, body)
    return out.getvalue()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx(paragraphs: list[tuple[str, str]], footnote: str = "") -> bytes:
    """(style or "", text) paragraphs, the second in a table cell; a footnote if given."""
    def p(style, text):
        styled = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        return f"<w:p>{styled}<w:r><w:t>{text}</w:t></w:r></w:p>"
    body = "".join(p(s, t) for s, t in paragraphs[:1])
    body += "<w:tbl><w:tr><w:tc>" + "".join(p(s, t) for s, t in paragraphs[1:2]) + "</w:tc></w:tr></w:tbl>"
    body += "".join(p(s, t) for s, t in paragraphs[2:])
    members = {"[Content_Types].xml": "<Types/>",
               "word/document.xml": f"<w:document {W}><w:body>{body}</w:body></w:document>"}
    if footnote:
        members["word/footnotes.xml"] = f"<w:footnotes {W}><w:footnote>{p('', footnote)}</w:footnote></w:footnotes>"
    return zipped(members)


def odt(heading: str, paragraph: str, footnote: str = "") -> bytes:
    text = 'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
    office = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
    note = (f'<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>{footnote}</text:p>'
            f'</text:note-body></text:note>') if footnote else ""
    content = (f'<office:document-content {office} {text}><office:body><office:text>'
               f'<text:h text:outline-level="1">{heading}</text:h>'
               f'<text:p>{paragraph}<text:s text:c="2"/>end{note}</text:p>'
               f'</office:text></office:body></office:document-content>')
    return zipped({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": content})


def epub(title: str, chapters: list[tuple[str, str]]) -> bytes:
    items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(len(chapters)))
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    members: dict[str, str | bytes] = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": '<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>',
        "OEBPS/book.opf": (f'<package xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>{title}</dc:title>'
                           f'</metadata><manifest>{items}</manifest><spine>{spine}</spine></package>'),
    }
    for i, (heading, text) in enumerate(chapters):
        members[f"OEBPS/c{i}.xhtml"] = f"<html><body><h1>{heading}</h1><p>{text}</p></body></html>"
    return zipped(members)


ORG = """:PROPERTIES:
:ID:       0f1e2d3c-aaaa-4bbb-8ccc-123456789abc
:ROAM_ALIASES: "Kiln notes"
:END:
#+title: Pottery kilns
#+filetags: :craft:fire:

Before any heading: a word alone, quernstone.

* Firing schedule :schedule:
CLOSED: [2024-03-02 Sat 10:00]
:LOGBOOK:
- Note taken on drawerword
:END:
The *bisque* firing climbs slowly; see [[id:99-other][the glaze page]] for cone numbers.
** Cooling
Crazing comes from cooling too fast: the marigoldsentinel word.
"""

HTML = """<!doctype html><html><head><title>Saved page about bells</title>
<style>.stylesheetword { color: red }</style><script>var scriptword = 1;</script></head>
<body><nav>navword menu</nav><h1>Bell founding</h1><p>Bronze is poured into the loam mould.</p>
<h2>Tuning</h2><p>The tuner shaves the inside: the campanologyword lives here.</p></body></html>
"""


def write_folder(top: Path) -> Path:
    """A folder of one of each: each holds a word found in it alone."""
    top.mkdir(parents=True, exist_ok=True)
    (top / "plain.md").write_text("# Plain\nA markdown note about the allotment.\n")
    (top / "kilns.org").write_text(ORG)
    (top / "bells.html").write_text(HTML)
    (top / "paper.pdf").write_bytes(pdf(["Cover page of the paper", "Nothing here but the method",
                                         "The results hold the zeppelinword finding"], title="A Test Paper"))
    (top / "scan.pdf").write_bytes(pdf(["", ""]))
    (top / "report.docx").write_bytes(docx([("Title", "Quarterly report"), ("", "a cell with the tablecellword"),
                                            ("Heading1", "Findings"), ("", "The docxonlyword is in Word.")],
                                           footnote="the docxfootnoteword in a footnote"))
    (top / "letter.odt").write_bytes(odt("Greetings", "The odtonlyword is in OpenDocument", "an odtfootnoteword"))
    (top / "novel.epub").write_bytes(epub("A Short Novel", [("Chapter One", "The opening with nothing"),
                                                             ("Chapter Two", "The epubonlyword arrives")]))
    (top / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return top
