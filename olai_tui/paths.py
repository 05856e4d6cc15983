"""Where the embedded default corpora live: fixtures/ beside the packages (a checkout), inside the
engines package (a wheel: setup.py copies them there), or under share/ (older installs)."""

from __future__ import annotations

import sys
from pathlib import Path

import engines


def fixtures_dir() -> Path:
    beside = Path(__file__).resolve().parent.parent / "fixtures"
    if beside.is_dir():
        return beside
    packaged = Path(engines.__file__).resolve().parent / "fixtures"
    if packaged.is_dir():
        return packaged
    return Path(sys.prefix) / "share" / "olai-tui" / "fixtures"


def default_corpus(engine: str) -> Path:
    return fixtures_dir() / engine
