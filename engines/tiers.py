"""Which tiers a search asks for: one rule for every engine (--tiers, OLAI_RECALL)."""

from __future__ import annotations

import os
from typing import Iterable


def recall_switched_off() -> bool:
    """OLAI_RECALL=off (or 0/false/no) turns every meaning tier off: the cheap tiers answer alone."""
    return os.environ.get("OLAI_RECALL", "").strip().lower() in ("off", "0", "false", "no")


def choose_tiers(tiers: str | Iterable[str] | None, known: tuple[str, ...], default: tuple[str, ...],
                 engine: str) -> tuple[str, ...]:
    """The tiers asked for, in the engine's own order; None: its default. ValueError names a bad one."""
    if tiers is None:
        return default
    names = [t.strip() for t in (tiers.split(",") if isinstance(tiers, str) else tiers) if t.strip()]
    unknown = [t for t in names if t not in known]
    if unknown:
        raise ValueError(f"unknown tier {unknown[0]!r} for {engine} (choose from {', '.join(known)})")
    return tuple(t for t in known if t in names)
