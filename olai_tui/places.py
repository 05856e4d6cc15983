"""Which rows meaning moved: a row found by one tier whose place among that tier's rows is not the tier's
own rank for it (the engine puts each tier's rank on a hit: the code engine's ``ranks``).

The code engine's fused answer orders the lexical tier's rows by meaning too (engines/code/merge.py); a
row it moved says so beside its tier (``lexical ↑``), as ``≈`` says it for a row meaning found, in the pane
(olai_tui/ui/results.py) and in `olai-tui search` (olai_tui/commands.py). A row whose own tier put it where
it is says nothing, whatever rows meaning found were put between.
"""

from __future__ import annotations

from typing import Sequence

from engines.answer import Hit

MOVED_UP, MOVED_DOWN = "↑", "↓"
LEGEND = f"{MOVED_UP}/{MOVED_DOWN} beside a tier: meaning moved the row up/down among that tier's rows"


def places_moved(hits: Sequence[Hit]) -> dict[str, str]:
    """id -> MOVED_UP or MOVED_DOWN for each row meaning moved: among the rows its own tier found, in the
    answer's order, it stands before (after) where that tier's own ranks would put it."""
    shown: dict[str, list[tuple[int, str]]] = {}
    for hit in hits:
        ranks = hit.extras.get("ranks")
        own = ranks.get(hit.tier) if isinstance(ranks, dict) else None
        if isinstance(own, int):
            shown.setdefault(hit.tier, []).append((own, hit.id))
    moved: dict[str, str] = {}
    for rows in shown.values():
        by_rank = sorted(rows)
        for place, row in enumerate(rows):
            expected = by_rank.index(row)
            if place != expected:
                moved[row[1]] = MOVED_UP if place < expected else MOVED_DOWN
    return moved
