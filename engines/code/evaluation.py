"""The code engine's configurations for the side-by-side runner (engines/eval/runner.py) on CoSQA.

Requests: the 500 dev queries (../shared/data/code/cosqa) split "dev" and the 500 test queries
(../shared/heldout/code) split "heldout", as the files divide them. Each configuration ranks the
6,267 functions through the engine itself (depth 100, for recall@100); "rrf-equal" is the naive
baseline, equal-weight RRF (k 60) of the two tiers' whole lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from engines.answer import collect
from engines.code.cosqa import SCOPE, load_functions, load_queries
from engines.code.engine import CANDIDATES, EMBEDDING, LEXICAL, CodeEngine
from engines.code.merge import fuse
from engines.eval.runner import Ranker, Request

CONFIGS = ("lexical", "embedding", "fused", "fill", "rrf-equal")
DEPTH = 100


def cosqa_requests(data: Path, heldout: Path | None) -> list[Request]:
    requests = [Request(f"dev-{i}", q, {a: 1.0}, "dev")
                for i, (q, a) in enumerate(load_queries(data / "cosqa-retrieval-dev-500.json"))]
    test = heldout / "cosqa-retrieval-test-500.json" if heldout is not None else None
    if test is not None and test.is_file():  # read to report, never to tune
        requests += [Request(f"test-{i}", q, {a: 1.0}, "heldout") for i, (q, a) in enumerate(load_queries(test))]
    return requests


class CodeConfigs:
    """Builds the engine once, on first use (the CoSQA vectors come from the cache, scope "cosqa")."""

    def __init__(self, data: Path, embedder=None, progress=None) -> None:
        self.data = data
        self._embedder = embedder
        self.progress = progress
        self._engines: dict[str, CodeEngine] = {}

    def engine(self, merge: str = "fused") -> CodeEngine:
        if merge not in self._engines:
            symbols = next(iter(self._engines.values())).symbols if self._engines else load_functions(self.data)
            engine = CodeEngine(symbols=symbols, embedder=self._embedder, scope=SCOPE, wait_for_index=True, merge=merge)
            if self._engines:
                engine._embedder = next(iter(self._engines.values())).embedder
            engine.build_index(progress=self.progress)
            self._engines[merge] = engine
        return self._engines[merge]

    def factories(self) -> dict[str, Callable[[], Ranker]]:
        return {
            "lexical": lambda: self._tiers((LEXICAL,)),
            "embedding": lambda: self._tiers((EMBEDDING,)),
            "fused": lambda: self._tiers((LEXICAL, EMBEDDING)),
            "fill": lambda: self._tiers((LEXICAL, EMBEDDING), merge="fill"),
            "rrf-equal": self._rrf_equal,
        }

    def _tiers(self, tiers, merge: str = "fused") -> Ranker:
        engine = self.engine(merge)
        return lambda q: [h.id for h in collect("code", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]

    def _rrf_equal(self) -> Ranker:
        engine = self.engine()

        def rank(q: str) -> list[str]:
            lexical = engine._lexical.search(q, CANDIDATES)
            meaning = engine._embedding_ranking(q)
            nearest = meaning.ranked if hasattr(meaning, "ranked") else []
            merged = fuse(lexical, nearest, DEPTH, k=60, weights={LEXICAL: 1.0, EMBEDDING: 1.0}, heads={})
            return [engine.symbols[m.position].id for m in merged]

        return rank
