"""Reading a request file: one JSON object a line, blank lines passed over, a malformed line named by
file and line (the food set, the id-judged sets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")


def read_requests(path: str | Path, make: Callable[[dict], T], error: type[Exception]) -> list[T]:
    """``make(object)`` for each line of ``path``; ``error("file:line: malformed request (...)")`` for a
    line that is not JSON or lacks what ``make`` reads."""
    path = Path(path)
    out: list[T] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                out.append(make(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise error(f"{path}:{number}: malformed request ({exc.__class__.__name__}: {exc})") from None
    return out
