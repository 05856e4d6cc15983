"""How a benchmark's report leaves the command: one JSON object on stdout (``--json``), else its table."""

from __future__ import annotations

import json
import sys
from typing import Callable


def emit(report: dict, as_json: bool, printer: Callable[[dict], None]) -> int:
    """Print ``report`` as JSON or through ``printer``; the command's exit status (0)."""
    if as_json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        printer(report)
    return 0
