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
