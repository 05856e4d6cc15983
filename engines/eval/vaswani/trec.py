"""A TREC document file (``<DOC><DOCNO>..</DOCNO> text </DOC>``) read as notes.

The Vaswani collection (11,429 abstracts, ../shared/data/notes/vaswani/doc-text.trec) comes this way;
the benchmarks search it as a notebook. Each document is one note: its DOCNO is the id; the title is
what stands before the first double space of the first line (Vaswani writes "title  abstract"), or
the whole first line; the rest is the body; ``where`` names the file and the DOCNO.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from engines.eval.datasets import DataFileError
from engines.notes.corpus import Note

_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.DOTALL | re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.DOTALL | re.IGNORECASE)


class TrecError(DataFileError):
    """The file is missing, unreadable or holds no <DOC> with a <DOCNO> (one-line message)."""


def load_trec(path: str | os.PathLike) -> list[Note]:
    """Every document of a TREC file as a Note, in file order; a document without a DOCNO is skipped."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise TrecError(f"{path}: {(error.strerror or str(error)).lower()}") from None
    absolute = str(path.resolve())
    notes: list[Note] = []
    seen: set[str] = set()
    for doc in _DOC.findall(text):
        number = _DOCNO.search(doc)
        if number is None or not number.group(1) or number.group(1) in seen:
            continue
        docno = number.group(1)
        seen.add(docno)
        content = doc[number.end():].strip("\n")
        first, _, rest = content.partition("\n")
        title, gap, after = first.partition("  ")
        body = (after.strip() + "\n" + rest) if gap else rest
        title = title.strip() or docno
        digest = hashlib.sha256((title + "\n" + body).encode("utf-8")).hexdigest()
        notes.append(Note(id=docno, title=title, body=body, where=f"{path.name}#{docno}", path=absolute,
                          content_hash=digest))
    if not notes:
        raise TrecError(f"{path}: no <DOC> with a <DOCNO> in it")
    return notes
