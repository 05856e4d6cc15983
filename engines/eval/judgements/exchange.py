"""Judgement lists in the shapes other tools read and write.

- TREC qrels, ``QUERY_ID 0 ITEM_ID GRADE`` a line (trec_eval, ir_measures, ranx), with a queries file
  beside it, ``QUERY_ID<TAB>query text`` a line (the shape ir_datasets and MS MARCO ship queries in):
  qrels name queries by id only.
- CSV ``query,id,grade`` with that header (Quepid's ratings export is ``query,docid,rating``: those
  names are read too), quoted as the csv module quotes.

Reading never stops at a bad line: each malformed line is named once, ``FILE:LINE: why``, and the
rest are read. Grades are 0-3 (engines/eval/judgements/store.py's scale); any other is a malformed line.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from engines.errors import BadInput
from engines.eval.judgements.store import GRADES, query_key

QUERY_NAMES = ("query", "query_text", "keyword")
ID_NAMES = ("id", "docid", "doc_id", "item")
GRADE_NAMES = ("grade", "rating", "relevance")


@dataclass
class Read:
    """What a file held: (query, item, grade) in file order, and a line for each line skipped."""

    grades: list[tuple[str, str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def by_query(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for query, item, grade in self.grades:
            out.setdefault(query_key(query), {})[item] = grade
        return out


def _grade(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"grade {text!r} is not a number") from None
    if value != int(value) or int(value) not in GRADES:
        raise ValueError(f"grade {text!r} is not 0, 1, 2 or 3")
    return int(value)


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise BadInput(f"{path}: {(exc.strerror or str(exc)).lower()}") from None


# -- CSV ---------------------------------------------------------------------------------------------
def read_csv(path: Path) -> Read:
    out = Read()
    rows = csv.reader(io.StringIO(_text(path), newline=""))
    columns: tuple[int, int, int] | None = None
    for row in rows:
        number = rows.line_num
        if not any(cell.strip() for cell in row):
            continue
        if columns is None:
            names = [cell.strip().lower() for cell in row]
            found = [next((names.index(n) for n in wanted if n in names), None)
                     for wanted in (QUERY_NAMES, ID_NAMES, GRADE_NAMES)]
            if None in found:
                raise BadInput(f"{path}:{number}: the first line is not a header naming query, id and grade"
                               f" (it reads {','.join(row)[:80]!r})")
            columns = tuple(found)  # type: ignore[assignment]
            continue
        try:
            q, i, g = (row[c] for c in columns)
            if not q.strip() or not i.strip():
                raise ValueError("an empty query or id")
            out.grades.append((query_key(q), i.strip(), _grade(g.strip())))
        except IndexError:
            out.problems.append(f"{path}:{number}: {len(row)} fields where query, id and grade were expected; skipped")
        except ValueError as exc:
            out.problems.append(f"{path}:{number}: {exc}; skipped")
    return out


def write_csv(path: Path, grades: Iterable[tuple[str, str, int]]) -> int:
    from engines.atomic import atomic_file

    count = 0
    with atomic_file(path, "w") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["query", "id", "grade"])
        for query, item, grade in grades:
            writer.writerow([query, item, grade])
            count += 1
    return count


# -- TREC qrels and their queries file ----------------------------------------------------------------
def read_queries(path: Path) -> tuple[dict[str, str], list[str]]:
    """QUERY_ID -> text, and a line for each line skipped."""
    found: dict[str, str] = {}
    problems = []
    for number, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        qid, tab, text = line.partition("\t")
        if not tab or not qid.strip() or not text.strip():
            problems.append(f"{path}:{number}: not QUERY_ID<TAB>text; skipped")
            continue
        found[qid.strip()] = query_key(text)
    return found, problems


def read_qrels(path: Path, queries: Path) -> Read:
    texts, problems = read_queries(queries)
    out = Read(problems=problems)
    unknown: set[str] = set()
    for number, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        try:
            if len(fields) != 4:
                raise ValueError(f"{len(fields)} fields where QUERY_ID 0 ITEM_ID GRADE was expected")
            qid, _, item, grade = fields
            value = _grade(grade)
        except ValueError as exc:
            out.problems.append(f"{path}:{number}: {exc}; skipped")
            continue
        if qid not in texts:
            if qid not in unknown:
                unknown.add(qid)
                out.problems.append(f"{path}:{number}: query {qid!r} is not in {queries.name}; its lines skipped")
            continue
        out.grades.append((texts[qid], item, value))
    return out


def write_qrels(path: Path, queries: Path, grades: Iterable[tuple[str, str, int]]) -> int:
    """Queries numbered q1, q2, ... in the order first graded. Ids holding white space cannot be written
    as qrels (its fields are split on it): BadInput names the first such id; CSV keeps them."""
    from engines.atomic import atomic_file

    numbers: dict[str, str] = {}
    lines = []
    for query, item, grade in grades:
        if not item or any(c.isspace() for c in item):
            raise BadInput(f"{path}: the id {item!r} holds white space, which TREC qrels cannot; export as CSV")
        qid = numbers.setdefault(query, f"q{len(numbers) + 1}")
        lines.append(f"{qid} 0 {item} {grade}\n")
    with atomic_file(queries, "w") as fh:
        fh.writelines(f"{qid}\t{query}\n" for query, qid in numbers.items())
    with atomic_file(path, "w") as fh:
        fh.writelines(lines)
    return len(lines)


def read_file(path: Path, queries: Path | None = None) -> Read:
    """A judgement file by its shape: a .csv is CSV; anything else is TREC qrels, which needs ``queries``."""
    if path.suffix.lower() == ".csv":
        return read_csv(path)
    if queries is None:
        raise BadInput(f"{path}: TREC qrels name queries by id only: give the queries file too "
                       "(--queries FILE, QUERY_ID<TAB>text a line), or use a CSV of query,id,grade")
    return read_qrels(path, queries)
