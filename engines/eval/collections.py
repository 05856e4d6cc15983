"""Public test collections read as notes with their queries and judgements (../shared/data/notes)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engines.notes.corpus import Note
from engines.notes.trec import load_trec

_TOPIC = re.compile(r"<num>\s*(\S+?)\s*</num>\s*<title>(.*?)</title>", re.DOTALL | re.IGNORECASE)


@dataclass
class Collection:
    name: str
    notes: list[Note]
    queries: dict[str, str]  # query id -> text
    judged: dict[str, dict[str, float]]  # query id -> {note id: gain}


def load_vaswani(folder: str | Path) -> Collection:
    """The NPL collection: 11,429 abstracts, 93 queries, binary judgements (`qid 0 docno 1`)."""
    folder = Path(folder)
    notes = load_trec(folder / "doc-text.trec")
    text = (folder / "query-text.trec").read_text(encoding="utf-8", errors="replace")
    queries = {num: " ".join(title.split()).lower() for num, title in _TOPIC.findall(text)}
    judged: dict[str, dict[str, float]] = {}
    for line in (folder / "qrels").read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and float(parts[3]) > 0:
            judged.setdefault(parts[0], {})[parts[2]] = float(parts[3])
    queries = {q: t for q, t in queries.items() if q in judged}
    return Collection("vaswani", notes, queries, judged)


_CRAN_FIELD = re.compile(r"^\.([ITABW])\s*(.*)$")


def _cran_records(text: str) -> list[dict[str, str]]:
    """Records of a Cranfield file: `.I id` starts one, `.T .A .B .W` lines start its fields."""
    records: list[dict[str, str]] = []
    field = None
    for line in text.splitlines():
        m = _CRAN_FIELD.match(line)
        if m and m.group(1) == "I":
            records.append({"I": m.group(2).strip()})
            field = None
        elif m and records:
            field = m.group(1)
            records[-1][field] = m.group(2)
        elif field and records:
            records[-1][field] = records[-1][field] + "\n" + line
    return records


def load_cranfield(folder: str | Path) -> Collection:
    """The Cranfield collection: 1,400 abstracts, 225 queries, graded judgements.

    cranqrel numbers the queries 1..225 in file order, not by the `.I` ids of cran.qry (which skip
    numbers). Relevance codes (cranqrel.readme, Cleverdon): 1 a complete answer .. 4 minimum interest,
    -1 no interest; the gain is 5 - code (4 .. 1), and -1 gains nothing.
    """
    import hashlib

    folder = Path(folder)
    notes = []
    path = str((folder / "cran.all.1400").resolve())
    for rec in _cran_records((folder / "cran.all.1400").read_text(encoding="utf-8", errors="replace")):
        title = " ".join(rec.get("T", "").split()).rstrip(" .") or rec["I"]
        body = rec.get("W", "")
        # the abstract repeats the title as its first lines: keep the body as the text after it
        flat = " ".join(body.split())
        if flat.startswith(title):
            flat = flat[len(title):].lstrip(" .")
        digest = hashlib.sha256((title + "\n" + flat).encode("utf-8")).hexdigest()
        notes.append(Note(id=rec["I"], title=title, body=flat, where=f"cran.all.1400#{rec['I']}", path=path,
                          content_hash=digest))
    queries_in_order = _cran_records((folder / "cran.qry").read_text(encoding="utf-8", errors="replace"))
    queries = {str(n): " ".join(rec.get("W", "").split()) for n, rec in enumerate(queries_in_order, start=1)}
    judged: dict[str, dict[str, float]] = {}
    for line in (folder / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3:
            code = int(parts[2])
            if 1 <= code <= 4:
                judged.setdefault(parts[0], {})[parts[1]] = float(5 - code)
    queries = {q: t for q, t in queries.items() if q in judged}
    return Collection("cranfield", notes, queries, judged)
