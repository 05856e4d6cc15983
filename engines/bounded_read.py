"""A hit's text as an engine's ``read(id)`` returns it: a file's lines or a text, cut at
:data:`~engines.contract.READ_LIMIT` characters, and whether it was cut.

Apart from the contract, which promises the bound; these are how the engines keep it (code reads a
symbol's lines from its file, notes and products bound a text they hold).
"""

from __future__ import annotations

from engines.contract import READ_LIMIT


def read_lines(path: str, start: int, end: int | None = None, limit: int = READ_LIMIT) -> tuple[str, bool]:
    """Lines ``start..end`` (1-based, inclusive; None: to the end) of a text file, at most ``limit``
    characters, and whether it was cut. OSError when the file cannot be read."""
    out: list[str] = []
    size = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            if number < start:
                continue
            if end is not None and number > end:
                break
            if size + len(line) > limit:
                out.append(line[:limit - size])
                return "".join(out), True
            out.append(line)
            size += len(line)
    return "".join(out), False


def bounded(text: str, limit: int = READ_LIMIT) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)
