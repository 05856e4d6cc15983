"""The XML of office documents (DOCX's WordprocessingML, ODT's OpenDocument) walked without recursion:
ElementTree's iterparse streams events, so a deeply nested part costs a stack of open tags, not of frames.
Expat (3.7.1+, expat 2.4+) refuses entity expansion bombs itself."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from engines.notes.readers import Unreadable


def events(data: bytes, what: str):
    """(event, element) pairs of ``data``; Unreadable, naming ``what``, where it is not well-formed XML."""
    try:
        yield from ET.iterparse(io.BytesIO(data), events=("start", "end"))
    except ET.ParseError as error:
        raise Unreadable(f"damaged ({what}: {error})") from None


def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def first_title(data: bytes | None, what: str) -> str:
    """The text of the first ``title`` element of a metadata part (DOCX's docProps/core.xml ``dc:title``,
    ODT's meta.xml ``dc:title``), spaces folded; "" where the part is absent or holds none."""
    if data is None:
        return ""
    for event, element in events(data, what):
        if event == "end" and local(element.tag) == "title":
            return " ".join((element.text or "").split())
    return ""
