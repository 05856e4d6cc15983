"""Public test collections read as notes with their queries and judgements (../shared/data/notes)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engines.notes.corpus import Note
from engines.eval.trec import load_trec

_TOPIC = re.compile(r"<num>\s*(\S+?)\s*</num>\s*<title>(.*?)</title>", re.DOTALL | re.IGNORECASE)


class CollectionError(ValueError):
    """A judgement file that cannot be read: the message names the file and the line."""


def _judgements(path: Path, fields: int, qid: int, docno: int, grade: int) -> list[tuple[str, str, float]]:
    """(query id, doc id, grade) of each non-blank line of a whitespace-separated qrels file."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            if len(parts) != fields:
                raise ValueError
            out.append((parts[qid], parts[docno], float(parts[grade])))
        except ValueError:
            raise CollectionError(f"{path}:{number}: expected {fields} fields, the last a number: {line.strip()[:60]!r}") from None
    return out


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
    for qid, docno, grade in _judgements(folder / "qrels", 4, 0, 2, 3):  # `qid 0 docno grade`
        if grade > 0:
            judged.setdefault(qid, {})[docno] = grade
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
        # The abstract as written: it repeats the title as its first lines, and is kept so (the issue's
        # baselines index title + .W as written; stripping the repeat cost BM25 nDCG@10 0.373 -> 0.365).
        flat = " ".join(rec.get("W", "").split())
        digest = hashlib.sha256((title + "\n" + flat).encode("utf-8")).hexdigest()
        notes.append(Note(id=rec["I"], title=title, body=flat, where=f"cran.all.1400#{rec['I']}", path=path,
                          content_hash=digest))
    queries_in_order = _cran_records((folder / "cran.qry").read_text(encoding="utf-8", errors="replace"))
    queries = {str(n): " ".join(rec.get("W", "").split()) for n, rec in enumerate(queries_in_order, start=1)}
    judged: dict[str, dict[str, float]] = {}
    for qid, docno, code in _judgements(folder / "cranqrel", 3, 0, 1, 2):  # `query doc code`
        if 1 <= code <= 4:
            judged.setdefault(qid, {})[docno] = float(5 - code)
    queries = {q: t for q, t in queries.items() if q in judged}
    return Collection("cranfield", notes, queries, judged)
