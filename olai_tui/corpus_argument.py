"""A corpus named on the command line, checked once for every command that takes one (search, index,
bench, eval --judged, judgements, the workbench): a path that is there and readable, or a URL the
engine reads from; a bad one is one line and exit 2 (UsageError)."""

from __future__ import annotations

import os
from pathlib import Path

from engines import registry
from olai_tui.errors import UsageError, shown


def is_url(path: str, engine: str) -> bool:
    """A corpus the engine reads from a URL (products: a catalogue kept in a database), kept a string:
    a Path would fold sqlite:///x to sqlite:/x."""
    urls = registry.spec(engine).corpus_urls
    return bool(urls) and path.lower().startswith(urls)


def corpus_given(path: str | None, engine: str) -> Path | str | None:
    """``path`` checked, or None where none was given (the engine's own default, its demo corpus)."""
    if path is None:
        return None
    if is_url(path, engine):
        return path
    corpus = Path(path)
    if not corpus.exists():
        raise UsageError(f"{shown(path)}: no such file or directory")
    if not os.access(corpus, os.R_OK):
        raise UsageError(f"{shown(path)}: permission denied")
    return corpus
