"""The settings a tune tries, within its budget, today's first.

A grid (every combination of each knob's grid, engines/knobs.Knob.grid) when it fits the budget: with
two or three knobs it does, and a grid leaves nothing to chance. Past that, the grid grows as the
product of the knobs' values (the notes engine's five: ~2,000), so the budget goes first to a
coordinate sweep (each knob over its grid with the others at today's value: the change a person
would try by hand, and what tells which knob matters), then to random settings over the whole grid
(Bergstra and Bengio 2012: random search beats a grid of the same size when few knobs matter),
drawn with a fixed seed so a tune is repeatable.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any, Mapping, Sequence

from engines.knobs import Knob

SEED = 62


def tunable(knobs) -> list[Knob]:
    """The knobs a tune moves: not those read when the index is built (a rebuild per setting), nor those
    that trade time rather than order (grades score the order)."""
    return [k for k in knobs if not k.rebuilds and k.scored]


def sweep_size(knobs: Sequence[Knob]) -> int:
    """Today's setting and each knob alone over the rest of its grid: the coordinate sweep's length."""
    return 1 + sum(len(k.grid()) - 1 for k in knobs)


def candidates(knobs: Sequence[Knob], today: Mapping[str, Any], budget: int) -> tuple[list[dict], str]:
    """At most ``budget`` settings (each every tunable knob's value), ``today`` first, and how they were
    chosen ("grid", "coordinate sweep" when the budget ends inside it, or "coordinate sweep + random")."""
    moved = list(knobs)
    base = {k.name: today[k.name] for k in moved}
    grids = [k.grid() for k in moved]
    size = math.prod(len(g) for g in grids)
    tried: list[dict] = [base]
    seen = {_key(base)}

    def add(setting: dict) -> None:
        if len(tried) < budget and _key(setting) not in seen:
            seen.add(_key(setting))
            tried.append(setting)

    if size <= budget:
        for values in itertools.product(*grids):
            add(dict(zip(base, values)))
        return tried, "grid"
    for knob, grid in zip(moved, grids):
        for value in grid:
            add(base | {knob.name: value})
    if len(tried) >= budget:
        return tried, "coordinate sweep"
    draw = random.Random(SEED)
    attempts = 0
    while len(tried) < budget and attempts < budget * 50:
        attempts += 1
        add({k.name: draw.choice(g) for k, g in zip(moved, grids)})
    return tried, "coordinate sweep + random"


def _key(setting: Mapping[str, Any]) -> tuple:
    return tuple(sorted(setting.items()))
