"""A vocabulary of code's own words beside MiniLM's word pieces (potion-code-16M's third step).

WordPiece cuts a frequent identifier of code into pieces that mean nothing alone: ``getcwd`` is
get ##c ##w ##d, ``isfile`` is is ##fi ##le, ``strftime`` str ##ft ##ime. Here the corpus's frequent
whole words (as WordPiece's pre-tokenizer sees a word: engines/embed/code_table.py ``WORD``) that
WordPiece cuts into two pieces or more get a row of their own, after MiniLM's 30,522, initialised to
the sum of their pieces' rows (so a text embeds as it did before training) and then trained like any
other row. The words are written into the manifest (``code_vocabulary``), which the run-time embedder
reads: one tokenization, CodeTableEmbedder.token_ids, at training and at run time.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

MIN_COUNT = 20  # a word seen fewer times has too few texts to train its row
MIN_LENGTH = 3


def mine_words(texts: Sequence[str], embedder, cap: int, min_count: int = MIN_COUNT) -> list[str]:
    """The ``cap`` most frequent lower-cased words of ``texts`` (ties by the word) that WordPiece cuts
    into at least two pieces; ``embedder`` is a CodeTableEmbedder without a code vocabulary."""
    from engines.embed.code_table import WORD, split_identifiers

    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(m.group().lower() for m in WORD.finditer(split_identifiers(text) if embedder.split else text))
    candidates = sorted((w for w, n in counts.items() if n >= min_count and len(w) >= MIN_LENGTH),
                        key=lambda w: (-counts[w], w))
    pieces = embedder.token_ids(candidates)
    return [w for w, p in zip(candidates, pieces) if len(p) >= 2][:cap]


def extended(table: np.ndarray, embedder, words: Sequence[str]) -> np.ndarray:
    """``table`` with a row per word after it: the sum of the word's WordPiece rows."""
    rows = [table[np.asarray(ids, np.int64)].sum(axis=0) for ids in embedder.token_ids(list(words))]
    extra = np.stack(rows).astype(table.dtype) if rows else np.zeros((0, table.shape[1]), table.dtype)
    return np.vstack([table, extra])
