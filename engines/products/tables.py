"""What people export, read into one shape: a header and numbered rows of text cells.

A wholesaler's catalogue arrives as a CSV or TSV (any delimiter, quoting and encoding), a spreadsheet
(.xlsx, .xls, .ods) with title rows above the header, or JSON Lines. Each reader here returns a
``Table``: the header, the rows with the line (or sheet row) each came from, the rows it could not
read with their reasons, and ``how`` it read them (encoding, dialect, sheet) for ``index products``
to print. The columns' meaning is ``columns.py``'s business, the products ``exported.py``'s.

Encoding rule: a byte-order mark decides; else strict UTF-8; else, where the file has valid UTF-8
multi-byte sequences on other lines, it is UTF-8 with some broken lines (each named and skipped);
else cp1252 (the "ANSI" code page Excel writes CSV in on Finnish and Swedish Windows; a superset of
ISO-8859-1's printable characters). Chosen over charset-normalizer: for the two encodings Nordic
exports come in the rule is exact, and a statistical guess on a short file can pick a neighbour
(cp1250, mac_roman) that turns "ä" into another letter.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from engines.problems import Problem

DELIMITERS = (";", ",", "\t", "|")
DELIMITER_NAMES = {";": "';'", ",": "','", "\t": "tab", "|": "'|'"}
SAMPLE_LINES = 200  # rows the dialect is judged on; whole-file sniffing costs ~4x on a 17,500-row export
MAX_RECORD_LINES = 50  # a quoted field running longer than this is an unclosed quote, not a long text


_NEWLINE = re.compile(r"(\r\n|\r|\n)")


class TableError(ValueError):
    """The file cannot be read as a table at all (binary, empty): the one-line cause."""


@dataclass
class Reading:
    """How one file (or table) was read, for ``index products`` to print: encoding and dialect or sheet,
    each column's field, the main name's language, rows read."""

    where: str
    how: str
    mapping: list[str] = field(default_factory=list)
    language: str = ""
    rows_read: int = 0
    overridden_by: str = ""
    rows_hash: str = ""


@dataclass
class Table:
    where: str  # the file (or database) the rows came from
    header: list[str]
    rows: list[tuple[int, list[str]]]  # (line or sheet row, cells)
    problems: list[Problem] = field(default_factory=list)
    how: str = ""  # "UTF-8 with BOM, ';'-separated" / "sheet 'Tuotteet', header on row 3"
    header_line: int = 1


def read_text_table(path: Path, delimiter: str | None = None, encoding: str | None = None,
                    pick_header=None) -> Table:
    """A delimited text file; ``delimiter``/``encoding`` override the sniffing (catalogue.toml);
    ``pick_header(rows)`` says which of the first records is the header (title lines above it are dropped)."""
    data = path.read_bytes()
    problems: list[Problem] = []
    text, said = decode(data, path, problems, encoding)
    lines = split_lines(text)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise TableError("empty file (no header row)")
    delimiter, width = sniff(lines[first:first + SAMPLE_LINES], delimiter)
    records = list(_records(lines, delimiter, path, problems, first, width))
    if not records:
        raise TableError("empty file (no header row)")
    at = pick_header([cells for _, cells in records[:20]]) if pick_header else 0
    (header_line, header), rows = records[at], records[at + 1:]
    problems = [p for p in problems if _line_order(p) > header_line]  # a title line is not a broken row
    header = [h.strip() for h in header]
    good: list[tuple[int, list[str]]] = []
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            # A trailing delimiter on every data row is an empty last column, not a broken row.
            if len(cells) == len(header) + 1 and not cells[-1].strip():
                cells = cells[:-1]
            else:
                problems.append(Problem(f"{path}:{line}", f"{len(cells)} fields where the header has {len(header)}"))
                continue
        good.append((line, cells))
    return Table(str(path), header, good, sorted(problems, key=_line_order),
                 f"{said}, {DELIMITER_NAMES.get(delimiter, repr(delimiter))}-separated", header_line)


def decode(data: bytes, path: Path, problems: list[Problem], encoding: str | None = None) -> tuple[str, str]:
    """The text and the encoding as said to the user; lines that break UTF-8 in a UTF-8 file are blanked and named."""
    if encoding:
        try:
            return data.decode(encoding), encoding
        except (LookupError, UnicodeDecodeError) as exc:
            raise TableError(f"not readable as {encoding} ({exc.__class__.__name__})") from None
    if data.startswith(b"\xef\xbb\xbf"):
        return _utf8_lines(data[3:], path, problems), "UTF-8 with BOM"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), "UTF-16"
    if b"\x00" in data[:8192]:
        head = data[:8192]
        for codec, zeros in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):
            if zeros.count(0) >= 0.9 * len(zeros):  # Latin text in UTF-16 saved without its byte-order mark
                try:
                    return data.decode(codec), "UTF-16 (no byte-order mark)"
                except UnicodeDecodeError:
                    break
        raise TableError("a binary file, not a text table")
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        pass
    lines = data.splitlines(keepends=True)
    utf8_multibyte = 0
    for line in lines:
        if max(line, default=0) < 0x80:
            continue
        try:
            line.decode("utf-8")
            utf8_multibyte += 1
        except UnicodeDecodeError:
            pass
    if utf8_multibyte:
        return _utf8_lines(data, path, problems), "UTF-8"
    return data.decode("cp1252", errors="replace"), "cp1252 (Windows Latin-1)"


def _utf8_lines(data: bytes, path: Path, problems: list[Problem]) -> str:
    try:
        return data.decode("utf-8")  # the usual case, whole: line by line only to name the broken ones
    except UnicodeDecodeError:
        pass
    out = []
    for number, line in enumerate(data.splitlines(keepends=True), 1):
        try:
            out.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(Problem(f"{path}:{number}", f"not UTF-8 like the rest of the file "
                                                        f"(byte 0x{line[exc.start]:02x}): row skipped"))
            out.append("\n")
    return "".join(out)


def split_lines(text: str) -> list[str]:
    """Lines ending in \\n, \\r\\n or \\r only: str.splitlines also breaks on U+0085 and U+2028, which are text."""
    parts = _NEWLINE.split(text)
    lines = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)]
    return lines + [parts[-1]] if parts[-1] else lines


def sniff_delimiter(sample: list[str]) -> str:
    return sniff(sample)[0]


def sniff(sample: list[str], delimiter: str | None = None) -> tuple[str, int]:
    """(delimiter, column count): the delimiter under which most sample rows share one column count (>1),
    then the most columns; with ``delimiter`` given, only its column count.

    DuckDB's CSV sniffer in small: every candidate parses the sample; the one whose rows agree best wins.
    """
    best, best_score = (delimiter or ";", 0), (-1, -1)
    for candidate in ((delimiter,) if delimiter else DELIMITERS):
        counts: dict[int, int] = {}
        try:
            for row in csv.reader(sample, delimiter=candidate):
                if row:
                    counts[len(row)] = counts.get(len(row), 0) + 1
        except csv.Error:
            pass  # the rows so far still count
        if not counts:
            continue
        width, agreeing = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        score = (agreeing if width > 1 else 0, width)
        if score > best_score:
            best, best_score = (candidate, width), score
    return best


class _Lines:
    """The physical lines, consumed one by one, so a record that ran away can be re-read from its next line."""

    def __init__(self, lines: list[str], start: int) -> None:
        self.lines, self.at = lines, start

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.at >= len(self.lines):
            raise StopIteration
        self.at += 1
        return self.lines[self.at - 1]


def _records(lines: list[str], delimiter: str, path: Path, problems: list[Problem], start: int, width: int):
    """(first line number, cells) per record; an unclosed quote costs its own line only, never the rest.
    ``width``: the sniffed column count, which a record spanning lines must have to be one."""
    source = _Lines(lines, start)
    while source.at < len(lines):
        begin = source.at
        reader = csv.reader(source, delimiter=delimiter, quotechar='"', doublequote=True, strict=False)
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(Problem(f"{path}:{begin + 1}", f"unreadable row ({exc})"))
            source.at = begin + 1
            continue
        spanned = source.at - begin
        if spanned > 1 and (len(cells) != width or spanned > MAX_RECORD_LINES):
            problems.append(Problem(f"{path}:{begin + 1}", "unclosed quote: row skipped"))
            source.at = begin + 1
            continue
        yield begin + 1, cells


def read_sheet(path: Path, pick_header) -> Table:
    """The first sheet of a workbook; ``pick_header(rows)`` says which of the first rows is the header."""
    from python_calamine import CalamineWorkbook

    try:
        book = CalamineWorkbook.from_path(str(path))
        sheet_name = book.sheet_names[0]
        grid = book.get_sheet_by_index(0).to_python(skip_empty_area=False)
    except Exception as exc:  # noqa: BLE001 - calamine raises its own error types for a broken workbook
        raise TableError(f"not a readable spreadsheet ({' '.join(str(exc).split())[:120]})") from None
    rows = [[_cell_text(c) for c in row] for row in grid]
    if not any(any(c for c in row) for row in rows):
        raise TableError("empty spreadsheet (no header row)")
    at = pick_header(rows[:20])
    header = [h.strip() for h in rows[at]]
    body = [(i + 1, (r + [""] * len(header))[:len(header)]) for i, r in enumerate(rows) if i > at and any(r)]
    return Table(str(path), header, body, [], f"sheet {sheet_name!r}, header on row {at + 1}", at + 1)


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an EAN typed as a number: 6410000000000.0 is "6410000000000"
    return str(value).strip()


def read_json_lines(path: Path) -> Table:
    """One JSON object per line; the header is every key in the order first seen."""
    problems: list[Problem] = []
    text, said = decode(path.read_bytes(), path, problems)
    header: list[str] = []
    objects: list[tuple[int, dict]] = []
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"{path}:{number}", f"bad JSON ({exc.msg})"))
            continue
        if not isinstance(item, dict):
            problems.append(Problem(f"{path}:{number}", "not a JSON object"))
            continue
        header.extend(k for k in item if k not in header)
        objects.append((number, item))
    if not header:
        raise TableError("no JSON objects" + (f" ({problems[0].cause})" if problems else ""))
    rows = [(n, [_json_text(item.get(k)) for k in header]) for n, item in objects]
    return Table(str(path), header, rows, problems, f"{said} JSON Lines")


def _json_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_json_text(v) for v in value)
    return _cell_text(value)


def _line_order(problem: Problem) -> int:
    tail = problem.path.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0
