"""The products engine's knobs (engines/knobs.py): each default is the constant recall or the judge
reads, and its measurement is the one written beside that constant (engines/products/recall.py,
engines/products/engine.py, engines/products/http_judge.py)."""

from engines.knobs import Knob, Knobs
from engines.products.http_judge import DEADLINE_S
from engines.products.recall import QUOTAS, RRF_K, STANDARD_WEIGHT, TYPO_CUTOFF
from engines.products.vectors import VECTOR_TOP

KNOBS = Knobs(
    "products",
    Knob("rrf_k", "int", RRF_K, low=5, high=120,
         does="the reciprocal rank fusion's k over the recall sources: lower lets each source's first rows lead more",
         measured="Cormack et al.'s 60, not tuned (engines/products/recall.py)"),
    Knob("standard_weight", "float", STANDARD_WEIGHT, low=0.5, high=5.0,
         does="how much the standard BM25 source counts in the fusion when the request names no kind",
         measured="Icecat dev ratings, fused nDCG@10 by weight 1/2/3: 0.671/0.698/0.715 (engines/products/recall.py)"),
    # at most what the source returns: 60 and 80 repeated 40 and spent a tune's budget on nothing
    Knob("vectors_quota", "int", QUOTAS["vectors"], low=0, high=VECTOR_TOP,
         does="how many of the vector source's rows take part in the fusion (0: the source is left out)",
         measured="40, as many as the vector source returns (engines/products/vectors.py VECTOR_TOP), not tuned"),
    Knob("typo_cutoff", "int", TYPO_CUTOFF, low=60, high=95,
         does="how close (rapidfuzz ratio) an unknown word must be to a catalogue word to be read as its typo",
         measured='80: "mozarella" -> "mozzarella" 95, "yogourt" -> "yogurt" 92, "gin" -> "gun" 67 (engines/products/recall.py)'),
    Knob("judge_deadline_s", "float", DEADLINE_S, low=0.1, high=5.0, scored=False,
         does="seconds the judge has before the recall order stands (a slow judge's labels arrive later or not at all)",
         measured="0.8: issue 5's budget, everything inside 800 ms (engines/products/http_judge.py)"),
)
