"""How a benchmark's or an evaluation's report leaves a command: one JSON object (``--json``), else its
table, each line through the face's ``out`` (engines/contract.py Console)."""

from __future__ import annotations

import json
from typing import Callable


def emit(report: dict, as_json: bool, printer: Callable[[dict, Callable[[str], None]], None],
         out: Callable[[str], None]) -> int:
    """``report`` as one JSON line or through ``printer(report, out)``; the command's exit status (0)."""
    if as_json:
        out(json.dumps(report))
    else:
        printer(report, out)
    return 0

