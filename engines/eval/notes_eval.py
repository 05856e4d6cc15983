"""The notes configurations of `olai-tui eval notes`: the shipped tiers and the common alternatives.

- ``exact``: the exact tier alone; ``semantic``: the semantic tier alone (with its floor);
  ``merged``: the shipped answer (exact first, meaning fills);
- baselines, built as a standard setup ships them: ``bm25`` (stemmed words, BM25 k1=1.5 b=0.75),
  ``dense`` (MiniLM vectors, no floor), ``hybrid_rrf`` (RRF, k = 60, of the bm25 and dense top 100s).
Every configuration answers 100 ids, best first, so recall@100 means the same for all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from engines.answer import collect
from engines.eval.collections import Collection, load_cranfield, load_vaswani
from engines.eval.runner import Ranker, Request, split_of
from engines.notes.engine import EXACT, SEMANTIC, NotesEngine

DEPTH = 100
DATASETS: dict[str, Callable[[Path], Collection]] = {"vaswani": load_vaswani, "cranfield": load_cranfield}
CONFIGS = ("exact", "bm25", "semantic", "dense", "merged", "hybrid_rrf")


def requests_of(collection: Collection) -> list[Request]:
    return [Request(qid, text, dict(collection.judged[qid]), split_of(text)) for qid, text in collection.queries.items()]


class NotesConfigs:
    """Builds what each configuration needs once, on first use (the index, the BM25 matrix)."""

    def __init__(self, collection: Collection, root: Path, embedder=None, progress=None) -> None:
        self.collection = collection
        self.root = root
        self._embedder = embedder
        self._engine: NotesEngine | None = None
        self._bm25 = None
        self.progress = progress

    def engine(self) -> NotesEngine:
        if self._engine is None:
            self._engine = NotesEngine(self.root, embedder=self._embedder, wait_for_index=True,
                                       notes=self.collection.notes)
        return self._engine

    def indexed(self) -> NotesEngine:
        engine = self.engine()
        engine.build_index(progress=self.progress)
        return engine

    def factories(self) -> dict[str, Callable[[], Ranker]]:
        return {
            "exact": lambda: self._tiers((EXACT,)),
            "bm25": self._bm25_ranker,
            "semantic": lambda: self._tiers((SEMANTIC,), indexed=True),
            "dense": self._dense_ranker,
            "merged": lambda: self._tiers((EXACT, SEMANTIC), indexed=True),
            "hybrid_rrf": self._rrf_ranker,
        }

    def _tiers(self, tiers, indexed: bool = False) -> Ranker:
        engine = self.indexed() if indexed else self.engine()
        return lambda q: [h.id for h in collect("notes", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]

    def _bm25_ranker(self) -> Ranker:
        from engines.lexical import BM25Index, tokenize

        if self._bm25 is None:
            notes = self.collection.notes
            self._bm25 = BM25Index([tokenize(n.title + " " + n.body, stem=True) for n in notes])
        ids = [n.id for n in self.collection.notes]
        index = self._bm25
        return lambda q: [ids[i] for i, _ in index.top(tokenize(q, stem=True), DEPTH)]

    def _dense_ranker(self) -> Ranker:
        engine = self.indexed()

        def rank(q: str) -> list[str]:
            vector = engine.embedder.embed([q], "query")[0]
            found = engine.semantic.neighbours(vector, floor=-1.0, exclude_ids=set(), room=DEPTH)
            return [note.id for note, _ in found.ranked]

        return rank

    def _rrf_ranker(self) -> Ranker:
        from engines.fusion import rrf

        bm25, dense = self._bm25_ranker(), self._dense_ranker()
        return lambda q: [doc for doc, _, _ in rrf({"bm25": bm25(q), "dense": dense(q)}, k=60)][:DEPTH]
