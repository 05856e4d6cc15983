"""The grades journal as bytes on disk: each line read and checked on its own, damaged lines named and
set aside, an append that cannot leave half a line, a batch that lands whole or not at all (issue 57).

A line is a grade when it is UTF-8, JSON, an object whose ``query`` and ``item`` are non-empty strings
of at most ``MAX_FIELD`` characters and whose ``grade`` is the integer 0, 1, 2 or 3 (or null: cleared);
anything else (a cut line, ``true``, ``1e309``, a number for a query, a stray byte) is damaged: named
``FILE:LINE: why`` by every reader and, by the next writer, copied to ``<journal>.damaged.jsonl`` beside
it (``from``, ``why`` and the line itself) before the journal is rewritten without it. A reader needs
no write access; only a writer repairs.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

GRADES = (0, 1, 2, 3)
# A grade line is ~150 bytes; a query or id past these is not one a person typed or a row id an engine
# gives (the longest note path in the shared notes data is ~120 characters).
MAX_FIELD = 4096
MAX_LINE = 65536


@dataclass
class Scan:
    """A journal read: its good lines (number, raw bytes, record), its damaged ones (number, raw, why),
    and whether its last byte ends a line (an append after a cut must start on a line of its own)."""

    good: list[tuple[int, bytes, dict]] = field(default_factory=list)
    damaged: list[tuple[int, bytes, str]] = field(default_factory=list)
    ends_clean: bool = True


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a grade")


def _number(text: str):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} overflows (not a grade)")
    return value


# One decoder: json.loads with hooks builds a new one a call (half the time of reading a journal).
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_number)


def check(record, header: bool = False) -> dict:
    """``record`` as a grade, or ValueError saying why it is not one."""
    if not isinstance(record, dict):
        raise ValueError(f"a JSON {type(record).__name__}, not an object")
    if header and "olai-tui" in record:
        return record
    for name in ("query", "item"):
        if name not in record:
            raise ValueError(f"no {name!r}")
        value = record[name]
        if not isinstance(value, str):
            raise ValueError(f"{name} is a {_kind(value)}, not text")
        if not value.strip():
            raise ValueError(f"an empty {name}")
        if len(value) > MAX_FIELD:
            raise ValueError(f"{name} of {len(value):,} characters (over {MAX_FIELD:,})")
        if "\0" in value:
            raise ValueError(f"{name} holds a NUL character")
    if "grade" not in record:
        raise ValueError("no 'grade'")
    grade = record["grade"]
    if grade is not None and (isinstance(grade, bool) or not isinstance(grade, int) or grade not in GRADES):
        raise ValueError(f"grade {json.dumps(grade)[:40]} is not 0, 1, 2 or 3")
    for name in ("time", "title", "where"):
        if name in record and not isinstance(record[name], str):
            raise ValueError(f"{name} is a {_kind(record[name])}, not text")
    return record


def _kind(value) -> str:
    return {bool: "true/false", int: "number", float: "number", list: "list", dict: "object",
            type(None): "null"}.get(type(value), type(value).__name__)


def parse(raw: bytes, number: int, last: bool) -> dict:
    """One line's record, or ValueError naming why the line is damaged."""
    body = raw.rstrip(b"\r\n")
    if len(body) > MAX_LINE:
        raise ValueError(f"a line of {len(body):,} bytes (over {MAX_LINE:,})")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte 0x{body[exc.start]:02x} at column {exc.start + 1})") from None
    try:
        record = _DECODER.decode(text)
    except json.JSONDecodeError:
        cut = last and not raw.endswith(b"\n")
        raise ValueError("cut short: a write stopped midway" if cut else "not JSON (edited by hand?)") from None
    except RecursionError:
        raise ValueError("JSON nested too deep") from None
    return check(record, header=number == 1)


def scan(path: Path) -> Scan:
    """Every line of ``path`` checked (nothing read when there is no file)."""
    out = Scan()
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return out
    with handle:
        lines = list(handle)
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            out.good.append((number, raw, parse(raw, number, number == len(lines))))
        except ValueError as exc:
            out.damaged.append((number, raw, str(exc)))
    out.ends_clean = not lines or lines[-1].endswith(b"\n")
    return out


def aside_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".jsonl") + ".damaged.jsonl")


def set_aside(path: Path, damaged: list[tuple[int, bytes, str]], stamp: str) -> Path:
    """The damaged lines copied beside the journal, flushed to disk before the journal drops them; a
    line already there (a crash between the two) is not copied twice."""
    aside = aside_path(path)
    kept = set()
    try:
        with open(aside, encoding="utf-8") as fh:
            for line in fh:
                try:
                    kept.add(json.loads(line).get("line"))
                except (ValueError, AttributeError):
                    continue
    except FileNotFoundError:
        pass
    records = []
    for number, raw, why in damaged:
        text = raw.rstrip(b"\r\n").decode("utf-8", "surrogateescape")  # undecodable bytes as \udcXX: read back exactly
        if text not in kept:
            records.append(json.dumps({"from": f"{path}:{number}", "why": why, "when": stamp, "line": text}) + "\n")
    if records:
        with open(aside, "a", encoding="utf-8", errors="surrogatepass") as out:
            out.write("".join(records))
            out.flush()
            os.fsync(out.fileno())
    return aside


def append(path: Path, data: bytes) -> None:
    """``data`` added at the end, flushed to disk; a write that fails midway (a full disk) is cut back
    off, so the file ends where it ended."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, size)  # shrinking needs no space
            raise
    finally:
        os.close(fd)


def sweep(path: Path) -> None:
    """Temporary files a killed writer left (atomic_file's ``.NAME.*.tmp``): under the writers' lock none
    is in use."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            stale.unlink()
        except OSError:
            pass
