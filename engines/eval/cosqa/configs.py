"""The code engine's configurations for the side-by-side runner (engines/eval/runner.py) on CoSQA.

Requests: the 500 dev queries (../shared/data/code/cosqa) split "dev" and the 500 test queries
(../shared/heldout/code) split "heldout", as the files divide them. Each configuration ranks the
6,267 functions through the engine itself (depth 100, for recall@100):

- ``lexical``: the BM25 tier (bm25s); ``lexical_rank_bm25``: the same documents and query words
  through rank_bm25.BM25Okapi, the library not chosen (same quality, p50/p90 ms show why);
- ``embedding``: the embedding tier alone;
- ``merged``: lexical rows first, meaning fills what is left (the engine's ``merge="merged"``);
- ``fused``: the shipped merge (merge.py);
- ``rrf-equal``: the naive baseline, equal-weight RRF (k 60) of the two tiers' whole lists;
- ``code_table``: the trained code table alone (engines/embed/trained_code_table.py);
- ``default``: the code pane's default answer, lexical with the trained code table's meaning.

``embedding``, ``merged``, ``fused`` and ``rrf-equal`` are the contextual model's (MiniLM, or the one
handed in), as they were before the trained table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from engines.answer import collect
from engines.eval.cosqa.load import SCOPE, load_functions, load_queries
from engines.code.engine import CANDIDATES, EMBEDDING, LEXICAL, CodeEngine
from engines.code.lexical_tier import symbol_document
from engines.code.merge import fuse
from engines.eval.runner import Ranker, Request
from engines.eval.suite import Suite, judged_by_gain, need
from engines.lexical import top_of

COLUMNS = ("mrr@10", "recall@1", "recall@10", "p50_ms", "p90_ms")
CONFIGS = ("lexical", "lexical_rank_bm25", "embedding", "merged", "fused", "rrf-equal", "code_table", "default")
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
            symbols = self._symbols()
            # one model for every merge's engine: the first engine's, once it has loaded one
            embedder = next(iter(self._engines.values())).embedder if self._engines else self._embedder
            engine = CodeEngine(symbols=symbols, embedder=embedder, scope=SCOPE, wait_for_index=True, merge=merge,
                                contextual=True, static=False)
            engine.build_index(progress=self.progress)
            self._engines[merge] = engine
        return self._engines[merge]

    def _symbols(self):
        """The functions, read once: the first engine's."""
        return next(iter(self._engines.values())).symbols if self._engines else load_functions(self.data)

    def factories(self) -> dict[str, Callable[[], Ranker]]:
        return {
            "lexical": lambda: self._tiers((LEXICAL,)),
            "lexical_rank_bm25": self._rank_bm25,
            "embedding": lambda: self._tiers((EMBEDDING,)),
            "merged": lambda: self._tiers((LEXICAL, EMBEDDING), merge="merged"),
            "fused": lambda: self._tiers((LEXICAL, EMBEDDING)),
            "rrf-equal": self._rrf_equal,
            "code_table": lambda: self._as_shipped(("embedding",)),
            "default": lambda: self._as_shipped(None),
        }

    def _as_shipped(self, tiers) -> Ranker:
        """The engine as the code pane opens it: the trained code table's vectors, no contextual model."""
        if "shipped" not in self._engines:
            engine = CodeEngine(symbols=self._symbols(), scope=SCOPE, wait_for_index=True, contextual=False)
            engine.build_index(progress=self.progress)
            self._engines["shipped"] = engine
        engine = self._engines["shipped"]
        return lambda q: [h.id for h in collect("code", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]

    def _tiers(self, tiers, merge: str = "fused") -> Ranker:
        engine = self.engine(merge)
        return lambda q: [h.id for h in collect("code", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]

    def _rank_bm25(self) -> Ranker:
        """rank_bm25.BM25Okapi (its defaults: k1 1.5, b 0.75) over the lexical tier's own documents and
        query words: only the library differs. It scores every document in Python per query word."""
        from rank_bm25 import BM25Okapi

        engine = self.engine()
        lexical = engine.lexical_tier
        okapi = BM25Okapi([symbol_document(s, lexical.weights, lexical.stem) for s in engine.symbols])
        ids = [s.id for s in engine.symbols]

        def rank(q: str) -> list[str]:
            words = lexical.query_words(q)
            if not words:
                return []
            scores = np.asarray(okapi.get_scores(words), dtype=np.float32)
            return [ids[p] for p, s in top_of(scores, DEPTH)]

        return rank

    def _rrf_equal(self) -> Ranker:
        engine = self.engine()

        def rank(q: str) -> list[str]:
            lexical = engine.lexical_tier.search(q, CANDIDATES)
            meaning = engine.embedding_ranking(q)
            nearest = meaning.ranked if hasattr(meaning, "ranked") else []
            merged = fuse(lexical, nearest, DEPTH, k=60, weights={LEXICAL: 1.0, EMBEDDING: 1.0}, heads={})
            return [engine.symbols[m.position].id for m in merged]

        return rank


def cosqa_suite(data: Path, heldout: Path, progress) -> Suite:
    need(data)
    setup = CodeConfigs(data, progress=progress)
    requests = cosqa_requests(data, heldout)

    def title(symbol_id: str) -> str:
        engine = setup.engine()
        symbol = next((s for s in engine.symbols if s.id == symbol_id), None)
        return f"{symbol.qualname}{symbol.signature}" if symbol is not None and symbol.qualname else symbol_id

    return Suite("code", "cosqa", requests, setup.factories(), COLUMNS, judged_by_gain(title), salt=str(data.resolve()))
