"""The Vaswani (NPL) collection read as notes: the abstracts from its TREC file, the queries, the judgements."""

from __future__ import annotations

import re
from pathlib import Path

from engines.eval.collection import Collection, read_judgements
from engines.eval.vaswani.trec import load_trec

_TOPIC = re.compile(r"<num>\s*(\S+?)\s*</num>\s*<title>(.*?)</title>", re.DOTALL | re.IGNORECASE)


def load_vaswani(folder: str | Path) -> Collection:
    """The NPL collection: 11,429 abstracts, 93 queries, binary judgements (`qid 0 docno 1`)."""
    folder = Path(folder)
    notes = load_trec(folder / "doc-text.trec")
    text = (folder / "query-text.trec").read_text(encoding="utf-8", errors="replace")
    queries = {num: " ".join(title.split()).lower() for num, title in _TOPIC.findall(text)}
    judged: dict[str, dict[str, float]] = {}
    for qid, docno, grade in read_judgements(folder / "qrels", 4, 0, 2, 3):  # `qid 0 docno grade`
        if grade > 0:
            judged.setdefault(qid, {})[docno] = grade
    queries = {q: t for q, t in queries.items() if q in judged}
    return Collection("vaswani", notes, queries, judged)
