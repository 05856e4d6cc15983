"""A test collection read as notes: the notes, the queries and their judgements, shared by the notes
datasets judged TREC-style (vaswani, cranfield), and the judgement-file reader both use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engines.eval.datasets import DataFileError
from engines.notes.corpus import Note


class CollectionError(DataFileError):
    """A judgement file that cannot be read: the message names the file and the line."""


def read_judgements(path: Path, fields: int, qid: int, docno: int, grade: int) -> list[tuple[str, str, float]]:
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
