"""The tables trained here that ship beside MiniLM's GGUF (the code table, the prose table): where one
may live and whether its bytes are the pinned ones, said once for both."""

from __future__ import annotations

import sys
from pathlib import Path

from engines.embed.provenance import PACKAGED_MODEL


def table_locations(filename: str) -> list[Path]:
    """Where a shipped table may live, first found wins: inside the package (a checkout, the wheel, the
    Nix build), then under the install prefix."""
    return [PACKAGED_MODEL.parent / filename, Path(sys.prefix) / "share" / "olai-tui" / "models" / filename]


def first_found(paths: list[Path]) -> Path:
    """The first of ``paths`` that is there (the first when none is)."""
    return next((p for p in paths if p.is_file()), paths[0])


def verified(path: Path, sha256: str, what: str, enable: str) -> Path:
    """``path`` when its bytes are the pinned ones; EmbedderUnavailable (one line, and ``enable``: what
    enables it) when it is missing or damaged. ``what`` names the table ("trained code table")."""
    from engines.embed.base import EmbedderUnavailable
    from engines.embed.llama import sha256_file

    if not path.is_file():
        raise EmbedderUnavailable(f"no {what} at {path}", enable)
    if sha256_file(path) != sha256:
        raise EmbedderUnavailable(f"{path} is damaged (its sha256 is not the pinned one)", enable)
    return path
