"""Order: matches (exact, variant), then stand-ins, never "no"; flags for what the answer must say.

Among matches, the judge's confidence plus the brand and the pack size the words named, each
checked from the product's data (plus ``recall_weight`` of recall's fused score, 0 today); fused rank
breaks ties. The lifts and that weight are knobs (engines/products/knobs.py), read where they are used. Flags: ``not_sold`` (nothing in the
assortment is the thing: say "we do not sell that"), ``only_standins`` (say "instead"), ``unsure``
(the judge did not answer, or the words contradict themselves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from engines.knobs import value_of
from engines.lexical import fold
from engines.products.catalogue import Product
from engines.products.judge import Judgement
from engines.products.request import Request

JUDGE_POOL = 40  # fused candidates the judge sees (engine.py; knob judge_pool); the rules judge labels 40 in ~0.3 ms
LABEL_RANK = {"exact": 0, "variant": 1, "standin": 2}
BRAND_LIFT = 0.15  # a named brand moves a match above unbranded ones of equal confidence (0.9 vs 0.7 apart)
PACK_LIFT = 0.15
# Recall's fused score, as a share of the pool's best, added to a match's confidence: 0, so the fused order
# only breaks ties among equal confidences (a judgement call: the judge's reading of the product's data
# outranks how many cheap sources found it; the knob lets a catalogue whose data the judge reads poorly
# let recall speak, engines/products/knobs.py)
RECALL_WEIGHT = 0.0


@dataclass
class Placed:
    position: int  # in the catalogue
    judgement: Judgement
    score: float
    brand_match: bool
    pack_match: bool


def order(request: Request, products: Sequence[Product], positions: Sequence[int],
          judgements: Sequence[Judgement], fused: Sequence[float] | None = None) -> list[Placed]:
    """``positions`` in fused order, one judgement each (``fused``: each one's fused score, 0 for a row
    recall did not find); returns the shown ones, best first."""
    brand_lift, pack_lift = value_of("products", "brand_lift", BRAND_LIFT), value_of("products", "pack_lift", PACK_LIFT)
    weight = value_of("products", "recall_weight", RECALL_WEIGHT)
    top = max(fused, default=0.0) if fused else 0.0
    placed = []
    for rank, (pos, j) in enumerate(zip(positions, judgements)):
        if j.label not in LABEL_RANK:
            continue
        p = products[pos]
        brand = bool(request.brand and p.brand and fold(request.brand) == fold(p.brand))
        pack = bool(request.pack and p.quantity and p.quantity.matches(request.pack))
        score = j.confidence + brand_lift * brand + pack_lift * pack
        if weight and top > 0:
            score += weight * fused[rank] / top
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
