"""What the prose table's teacher (MiniLM) reads: the training pairs' passages and queries, capped, in
an order that lets a smaller cap keep a larger one's cached vectors.

The cost: MiniLM embeds ~25 texts a second on 2 quiet cores (a passage of ~220 characters, the mean
here; a heading is faster), ~10 beside other work. The caps are what fits a training run of about 45
minutes on this machine, niced, beside three other engineers' work (docs/notes-prose-table.md).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from training.code_table.mine import Pair

SCOPE = "prose-table-teacher"  # its own cache file under the vector cache (teacher.py's ``scope``)
TEACHER_PASSAGES = 20000  # of 41,000 distinct passages of the training documents at seed 0
TEACHER_QUERIES = 15000  # of 40,000 distinct titles, headings and first sentences


def teacher_texts(pairs: Sequence[Pair], passages_cap: int, queries_cap: int, seed: int) -> list[str]:
    """Up to ``passages_cap`` distinct passages and ``queries_cap`` distinct queries of ``pairs``, each
    the head of its own seeded shuffle, taken in turn (passage, query, passage, ...): the teacher embeds
    in this order and keeps what it embedded, so an interrupted or smaller run holds the heads of both."""
    rng = np.random.default_rng(seed)
    passages = sorted({p.code for p in pairs})
    queries = sorted({p.query for p in pairs} - set(passages))
    passages = [passages[i] for i in rng.permutation(len(passages))[:passages_cap]]
    queries = [queries[i] for i in rng.permutation(len(queries))[:queries_cap]]
    out: list[str] = []
    for n in range(max(len(passages), len(queries))):
        out += passages[n:n + 1] + queries[n:n + 1]
    return out
