"""The Cranfield collection read as notes: its records (`.I .T .A .B .W`), queries and graded judgements."""

from __future__ import annotations

import re
from pathlib import Path

from engines.eval.collection import Collection, read_judgements
from engines.notes.corpus import Note

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
    for qid, docno, code in read_judgements(folder / "cranqrel", 3, 0, 1, 2):  # `query doc code`
        if 1 <= code <= 4:
            judged.setdefault(qid, {})[docno] = float(5 - code)
    queries = {q: t for q, t in queries.items() if q in judged}
    return Collection("cranfield", notes, queries, judged)
