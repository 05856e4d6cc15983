"""How a benchmark's or an evaluation's report leaves a command: one JSON object (``--json``), else its
table, each line through the face's ``out`` (engines/contract.py Console)."""

from __future__ import annotations

import json
import os
import platform
from typing import Callable


def corpora_report(engine: str, model_id: str, corpora: list) -> dict:
    """A benchmark's report over several corpora (bench notes, bench code): one shape for both."""
    return {"engine": engine, "machine": machine(), "model": model_id, "corpora": corpora}


def machine(**more) -> dict:
    """What a benchmark report says of the machine it ran on (more: figures of the run's own)."""
    return {"cpus": os.cpu_count(), "python": platform.python_version(), **more}


def emit(report: dict, as_json: bool, printer: Callable[[dict, Callable[[str], None]], None],
         out: Callable[[str], None]) -> int:
    """``report`` as one JSON line or through ``printer(report, out)``; the command's exit status (0)."""
    if as_json:
        out(json.dumps(report))
    else:
        printer(report, out)
    return 0

