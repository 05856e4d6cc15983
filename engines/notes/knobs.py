"""The notes engine's knobs (engines/knobs.py): each default is the constant the fill reads, and its
measurement is the one written beside that constant."""

from engines.knobs import Knob, Knobs
from engines.notes.fill import FUSION_K, LEG_WEIGHTS, WEAK_GUESSES

KNOBS = Knobs(
    "notes",
    Knob("fusion_k", "int", FUSION_K, low=5, high=120,
         does="the reciprocal rank fusion's k for the words and meaning legs of the fill: lower lets a "
              "leg's first rows lead more",
         measured="Cormack et al.'s 60, as the hybrid baseline uses it (not tuned; engines/notes/fill.py)"),
    Knob("words_weight", "float", LEG_WEIGHTS["words"], low=0.25, high=3.0,
         does="how much the words leg (BM25) counts in the fill's fusion",
         measured="1 beside meaning's 1 (engines/notes/fill.py)"),
    Knob("meaning_weight", "float", LEG_WEIGHTS["semantic"], low=0.25, high=3.0,
         does="how much the meaning leg counts in the fill's fusion",
         measured="Vaswani/Cranfield dev merged nDCG@10 rose to 2 (0.5236/0.4055 from 0.5201/0.3984) but the "
                  "held-out halves fell (0.454 -> 0.448, 0.454 -> 0.444): 1 kept (engines/notes/fill.py)"),
    Knob("floor_shift", "float", 0.0, low=-0.1, high=0.1,
         does="added to this notebook's measured meaning floor (p75 of off-topic probes + 0.08): up shows "
              "fewer resemblance rows, down more",
         measured="0: the margin 0.08 puts the demo notebook's floor at 0.387 (engines/notes/floor.py)"),
    Knob("weak_guesses", "int", WEAK_GUESSES, low=0, high=6,
         does="at most this many weak guesses by meaning when nothing else answers",
         measured="3, as the roadmap dev set scores an answer by its first three rows (engines/notes/fill.py)"),
)
