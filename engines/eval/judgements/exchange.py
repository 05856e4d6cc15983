"""Judgement lists in the shapes other tools read and write.

- TREC qrels, ``QUERY_ID 0 ITEM_ID GRADE`` a line (trec_eval, ir_measures, ranx), with a queries file
  beside it, ``QUERY_ID<TAB>query text`` a line (the shape ir_datasets and MS MARCO ship queries in):
  qrels name queries by id only.
- CSV ``query,id,grade`` with that header (Quepid's ratings export is ``query,docid,rating``: those
  names are read too), quoted as the csv module quotes.

Reading never stops at a bad line: each malformed line is named once, ``FILE:LINE: why``, and the
rest are read. Grades are 0-3 (engines/eval/judgements/store.py's scale); any other is a malformed line,
as is a byte that is not UTF-8, a query or id over ``MAX_FIELD`` characters, ``inf`` or ``1e309``.

CSV cells a spreadsheet would read as a formula (starting ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return) are written with a ``'`` before them, as OWASP's CSV injection page advises; a cell that starts
with ``'`` gets one more. Reading takes one ``'`` off a cell that starts with ``'`` and then one of those
(or ``'``), so an exported file imports back to exactly the grades it was written from.
"""

from __future__ import annotations

import csv
import io
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from engines.errors import BadInput
from engines.eval.judgements.journal import MAX_FIELD
from engines.eval.judgements.store import GRADES, query_fold, query_key

QUERY_NAMES = ("query", "query_text", "keyword")
ID_NAMES = ("id", "docid", "doc_id", "item")
GRADE_NAMES = ("grade", "rating", "relevance")
FORMULA = ("=", "+", "-", "@", "\t", "\r")  # OWASP's list of a formula's first characters


@dataclass
class Read:
    """What a file held: (query, item, grade) in file order, and a line for each line skipped."""

    grades: list[tuple[str, str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    at: list[str] = field(default_factory=list)  # each grade's FILE:LINE

    def add(self, where: str, query: str, item: str, grade: int) -> None:
        self.grades.append((query, item, grade))
        self.at.append(where)

    def by_query(self) -> dict[str, dict[str, int]]:
        """query (as first written) -> {item: grade}; "Seedlings" and "seedlings" are one query."""
        out: dict[str, dict[str, int]] = {}
        typed: dict[str, str] = {}
        for query, item, grade in self.grades:
            out.setdefault(typed.setdefault(query_fold(query), query_key(query)), {})[item] = grade
        return out


def neutral(cell: str) -> str:
    """A cell a spreadsheet shows as text (OWASP): a ``'`` before a formula's first character."""
    return "'" + cell if cell[:1] in FORMULA or cell[:1] == "'" else cell


def unneutral(cell: str) -> str:
    return cell[1:] if cell[:1] == "'" and (cell[1:2] in FORMULA or cell[1:2] == "'") and len(cell) > 1 else cell


def _field(name: str, cell: str) -> str:
    bad = next((c for c in cell if "\udc80" <= c <= "\udcff"), None)
    if bad is not None:
        raise ValueError(f"the {name} is not UTF-8 (byte 0x{ord(bad) - 0xDC00:02x})")
    if len(cell) > MAX_FIELD:
        raise ValueError(f"the {name} is {len(cell):,} characters (over {MAX_FIELD:,})")
    if "\0" in cell:
        raise ValueError(f"the {name} holds a NUL byte")
    return cell


def _grade(text: str) -> int:
    shown = text[:20] + ("…" if len(text) > 20 else "")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"grade {shown!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"grade {shown!r} is not 0, 1, 2 or 3 (it overflows)")
    text = shown
    if value != int(value) or int(value) not in GRADES:
        raise ValueError(f"grade {text!r} is not 0, 1, 2 or 3")
    return int(value)


def _text(path: Path) -> str:
    """The file's text, a byte that is not UTF-8 kept as U+DC80-DCFF so its line can be named and skipped."""
    try:
        return path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except OSError as exc:
        raise BadInput(f"{path}: {(exc.strerror or str(exc)).lower()}") from None


# -- CSV ---------------------------------------------------------------------------------------------
def read_csv(path: Path) -> Read:
    out = Read()
    limit = csv.field_size_limit(sys.maxsize)  # a huge cell is named by _field, not by the csv module's error
    try:
        _read_rows(path, csv.reader(io.StringIO(_text(path), newline="")), out)
    finally:
        csv.field_size_limit(limit)
    return out


def _read_rows(path: Path, rows, out: Read) -> None:
    columns: tuple[int, int, int] | None = None
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            out.problems.append(f"{path}:{rows.line_num}: not CSV ({exc}); skipped")
            continue
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
            q, i, g = (unneutral(row[c]) for c in columns)
            q, i = _field("query", q), _field("id", i)
            if not q.strip() or not i.strip():
                raise ValueError("an empty query or id")
            out.add(f"{path}:{number}", query_key(q), i.strip(), _grade(_field("grade", g).strip()))
        except IndexError:
            out.problems.append(f"{path}:{number}: {len(row)} fields where query, id and grade were expected; skipped")
        except ValueError as exc:
            out.problems.append(f"{path}:{number}: {exc}; skipped")


def write_csv(path: Path, grades: Iterable[tuple[str, str, int]]) -> int:
    from engines.atomic import atomic_file

    count = 0
    with atomic_file(path, "w") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["query", "id", "grade"])
        for query, item, grade in grades:
            writer.writerow([neutral(query), neutral(item), grade])
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
        try:
            _field("query", line)
        except ValueError as exc:
            problems.append(f"{path}:{number}: {exc}; skipped")
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
            _field("line", line)
        except ValueError as exc:
            out.problems.append(f"{path}:{number}: {exc}; skipped")
            continue
        if qid not in texts:
            if qid not in unknown:
                unknown.add(qid)
                out.problems.append(f"{path}:{number}: query {qid!r} is not in {queries.name}; its lines skipped")
            continue
        out.add(f"{path}:{number}", texts[qid], item, value)
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
