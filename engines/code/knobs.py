"""The code engine's knobs (engines/knobs.py): each default is the constant the ranking reads, and its
measurement is the one written beside that constant (engines/code/merge.py, lexical_tier.py)."""

from engines.code.lexical_tier import B, K1
from engines.code.merge import BLEND_WEIGHT, STATIC_MEANING_SHARE, STATIC_TREE_SHARE
from engines.code.reread import ROWS, WEIGHT
from engines.knobs import Knob, Knobs

KNOBS = Knobs(
    "code",
    Knob("bm25_k1", "float", K1, low=0.3, high=3.0, rebuilds=True,
         does="BM25's term-frequency saturation in the lexical tier: higher lets a word said often count more",
         measured="the libraries' default 1.5, not tuned (engines/code/lexical_tier.py)"),
    Knob("bm25_b", "float", B, low=0.0, high=1.0, rebuilds=True,
         does="BM25's length normalisation: 1 scales a long symbol's words down fully, 0 not at all",
         measured="the libraries' default 0.75, not tuned (engines/code/lexical_tier.py)"),
    Knob("tree_meaning_share", "float", STATIC_TREE_SHARE, low=0.0, high=0.5,
         does="over a source tree, the trained code table's share of a row's score beside the lexical tier's",
         measured="semble dev, 42 repositories, NDCG@10 by share 0.1/0.2/0.3: 0.8628/0.8620/0.8588 "
                  "(lexical alone 0.8619; engines/code/merge.py)"),
    Knob("tree_blend_weight", "float", BLEND_WEIGHT, low=0.0, high=0.6,
         does="over a source tree, MiniLM's weight in its blend with the lexical ranking",
         measured="semble dev 42 repositories, NDCG@10 by weight 0/0.1/0.2/0.3/0.5: "
                  "0.8619/0.8644/0.8638/0.8555/0.8362 (engines/code/merge.py)"),
    Knob("meaning_share", "float", STATIC_MEANING_SHARE, low=0.2, high=0.9,
         does="over functions without paths, the trained code table's share of a row's score",
         measured="CoSQA dev-500 MRR@10 by share 0.4/0.5/0.6/0.7/0.8: 0.406/0.416/0.424/0.418/0.407 "
                  "(engines/code/merge.py)"),
    Knob("reread_rows", "int", ROWS, low=0, high=50,
         does="for a question asked in words over a source tree, how many of the answer's first rows MiniLM "
              "re-reads at query time (0: none)",
         measured="natural questions dev (66) right@3 0.439-0.470 for 15-40 rows, 0.394 with none; "
                  "semble dev 0.8694 -> 0.8688 (engines/code/reread.py)"),
    Knob("reread_weight", "float", WEIGHT, low=0.0, high=3.0,
         does="MiniLM's scaled cosine beside the table's fused score for the rows it re-reads",
         measured="natural questions dev right@3 0.439-0.470 for 0.8-3.0; the check set keeps 0.222 only at "
                  "1.0 (engines/code/reread.py)"),
)

