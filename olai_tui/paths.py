"""Where the embedded default corpora live: fixtures/ beside the package, or installed under share/."""

from __future__ import annotations

import sys
from pathlib import Path


def fixtures_dir() -> Path:
    beside = Path(__file__).resolve().parent.parent / "fixtures"
    if beside.is_dir():
        return beside
    return Path(sys.prefix) / "share" / "olai-tui" / "fixtures"


def default_corpus(engine: str) -> Path:
    return fixtures_dir() / engine
