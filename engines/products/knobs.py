"""The products engine's knobs (engines/knobs.py): each default is the constant recall, the judge or the
order reads, and its measurement is the one written beside that constant (engines/products/recall.py,
engines/products/engine.py, engines/products/http_judge.py, engines/products/judge.py,
engines/products/order.py).

Recall's knobs (the first four) choose which rows reach the judge and break its ties; what orders an
answer after recall is the judge's label, then its confidence with the lifts below, and the fused
order only among equals: the judge's pool and those lifts are knobs too (docs/tuning.md, "What orders a
products answer"). Left as constants: the labels' confidences (each label ranks apart whatever its
confidence, order.LABEL_RANK), the Fineli shares of the named lift (judge.CLOSER_SHARE, PREPARED_SHARE,
PREPARED_COST: wholesale names in capitals only), recall's other quotas (60 to 120 rows a list, past
the judge's pool of 40: they reach the pool only through the fused sums of rows deep in a list), and
BM25's k1 and b (bm25s's own 1.5 and 0.75, never measured here, and the Milvus collection indexes with
the same pair: backends/collection.py).
"""

from engines.knobs import Knob, Knobs
from engines.products.http_judge import DEADLINE_S
from engines.products.judge import HEAD_LIFT, NAMED_LIFT, QUALIFIER_COST
from engines.products.order import BRAND_LIFT, JUDGE_POOL, PACK_LIFT, RECALL_WEIGHT
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
    # what orders the answer after recall (order.py, judge.py)
    Knob("judge_pool", "int", JUDGE_POOL, low=10, high=120,
         does="how many of recall's fused rows the judge labels; a row past them is shown only when its name "
              "carries a word said (distinguishing.carrying_rows)",
         measured="40, a judgement call: the rules judge labels 40 in ~0.3 ms (engines/products/order.py), not tuned"),
    Knob("recall_weight", "float", RECALL_WEIGHT, low=0.0, high=0.3,
         does="how much recall's fused score (a share of the pool's best) adds to a match's confidence; "
              "0: the fused order only breaks ties",
         measured="0, a judgement call: the judge's reading of the product's data outranks how many sources "
                  "found it (engines/products/order.py)"),
    Knob("brand_lift", "float", BRAND_LIFT, low=0.0, high=0.3,
         does="what a product of the brand the words named adds to its confidence among matches of one label",
         measured="0.15, a judgement call: above the named lift, so a named brand leads matches of equal "
                  "confidence (engines/products/order.py)"),
    Knob("pack_lift", "float", PACK_LIFT, low=0.0, high=0.3,
         does="what a product of the pack size the words named adds to its confidence among matches of one label",
         measured="0.15, as the brand's (engines/products/order.py)"),
    Knob("named_lift", "float", NAMED_LIFT, low=0.0, high=0.1,
         does="what a match whose name is the words said adds over one that holds them among other words (the rules judge)",
         measured='0.05, a judgement call below the brand and pack lifts: "HUNAJA" before "MURO, HUNAJAMURO" '
                  "for hunaja (engines/products/judge.py)"),
    Knob("qualifier_cost", "float", QUALIFIER_COST, low=0.0, high=0.05,
         does="the share of the named lift each word of a name past its naming ones takes away (10 at most; the rules judge)",
         measured='0.02: "BANAANI, KUORITTU" before "BANAANI, FRITEERATTU, UPPOPAISTETTU" (engines/products/judge.py)'),
    Knob("head_lift", "float", HEAD_LIFT, low=0.0, high=0.1,
         does="what a name whose first word is the thing said adds (a name not in capitals: a shop's; the rules judge)",
         measured='0.03: "Gräddfil 10-12 % fett" before "Fiskpirog ... gräddfil"; fineli dev right first 98.3 % '
                  "kept (engines/products/judge.py)"),
)
