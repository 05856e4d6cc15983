"""Every chunk of the training repositories as a teacher's code text, documented or not (``--teacher-chunks``).

The pairs (mine.py) take only documented symbols, at most PER_REPO of a kind a repository: 37,609 chunks at
seed 0, while the corpus holds ~121,000 symbols. The regression onto MiniLM is worth what its texts are and
its fit is near memorised (docs/code-embedder.md), so the rest of the code is the teacher's next texts:
every symbol the code pane indexes (engines/code/corpus.py, the text ``embed_text`` gives it), the held-out
validation repositories left out, at least MIN_CHARS, deduplicated, at most PER_REPO a repository (chosen
by a seeded hash, so none dominates), then one seeded shuffle of them all, so a smaller cap is a prefix of
a larger one (the teacher's cache of a smaller run is used whole by a larger).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from training.code_table.mine import MIN_CHARS, _norm, _rank

PER_REPO = 4000  # ~121,000 symbols in 57 repositories; the largest hold 10,000+


def repo_chunks(root: Path) -> list[str]:
    """Every symbol's text as the pane embeds it, in the parser's order."""
    from engines.code.corpus import load_sources, tree_source
    from engines.code.symbols import embed_text

    return [embed_text(s) for s in load_sources([tree_source(root)]).symbols]


def mine_chunks(corpus: Path, repos: Sequence[dict], held: set[str], seed: int, chars: int,
                say: Callable[[str], None] = print) -> list[str]:
    """The training repositories' chunks, each its first ``chars`` characters, capped per repository and
    deduplicated (on the opening, whitespace folded), in one seeded shuffle."""
    seen: set[str] = set()
    out: list[str] = []
    for n, r in enumerate(repos, 1):
        if r["name"] in held:
            continue
        found = [t[:chars] for t in repo_chunks(corpus / "repos" / r["name"])]
        found = sorted((t for t in found if len(t) >= MIN_CHARS), key=lambda t: _rank(seed, t))
        taken = 0
        for text in found:
            key = _norm(text)
            if key in seen or taken >= PER_REPO:
                continue
            seen.add(key)
            out.append(text)
            taken += 1
        say(f"chunks {n}/{len(repos)} {r['name']}: {taken:,} of {len(found):,}")
    out.sort()
    return [out[i] for i in np.random.default_rng([seed, 3]).permutation(len(out))]
