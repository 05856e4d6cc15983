"""Order: matches (exact, variant), then stand-ins, never "no"; flags for what the answer must say.

Among matches, the judge's confidence plus the brand and the pack size the words named, each
checked from the product's data; fused rank breaks ties. Flags: ``not_sold`` (nothing in the
assortment is the thing: say "we do not sell that"), ``only_standins`` (say "instead"), ``unsure``
(the judge did not answer, or the words contradict themselves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from engines.lexical import fold
from engines.products.catalogue import Product
from engines.products.judge import Judgement
from engines.products.request import Request

LABEL_RANK = {"exact": 0, "variant": 1, "standin": 2}
BRAND_LIFT = 0.15  # a named brand moves a match above unbranded ones of equal confidence (0.9 vs 0.7 apart)
PACK_LIFT = 0.15


@dataclass
class Placed:
    position: int  # in the catalogue
    judgement: Judgement
    score: float
    brand_match: bool
    pack_match: bool


def order(request: Request, products: Sequence[Product], positions: Sequence[int],
          judgements: Sequence[Judgement]) -> list[Placed]:
    """``positions`` in fused order, one judgement each; returns the shown ones, best first."""
    placed = []
    for rank, (pos, j) in enumerate(zip(positions, judgements)):
        if j.label not in LABEL_RANK:
            continue
        p = products[pos]
        brand = bool(request.brand and p.brand and fold(request.brand) == fold(p.brand))
        pack = bool(request.pack and p.quantity and p.quantity.matches(request.pack))
        score = j.confidence + BRAND_LIFT * brand + PACK_LIFT * pack
        placed.append((LABEL_RANK[j.label], -score, rank, Placed(pos, j, round(score, 4), brand, pack)))
    placed.sort(key=lambda t: t[:3])
    return [t[3] for t in placed]


def flags_for(request: Request, labels: Sequence[str], judged: bool) -> list[str]:
    flags = []
    matches = any(label in ("exact", "variant") for label in labels)
    if not matches and not request.empty:
        flags.append("not_sold")
        if "standin" in labels:
            flags.append("only_standins")
    if not judged or request.contradiction:
        flags.append("unsure")
    return flags
