"""The notes configurations of `olai-tui eval notes`: the shipped tiers and the common alternatives.

- ``exact``, ``words``, ``semantic``: one tier alone (semantic with its floor);
  ``merged``: the shipped answer, every tier (exact first, words and meaning fused fill the rest);
- baselines, built as a standard setup ships them: ``bm25`` (bm25s's analyzer: lower-case words,
  English stopwords, Snowball stems; BM25 k1=1.5 b=0.75, over title + body), ``dense`` (MiniLM vectors,
  one per note of its title and body as one text, no floor), ``hybrid_rrf`` (RRF, k = 60, of the bm25
  and dense top 100s). Over all queries they reproduce the issue's figures: nDCG@10 vaswani 0.428 /
  0.430 / 0.484 (the issue: 0.428 / 0.431 / 0.484), cranfield 0.373 / 0.381 / 0.418 (0.372 / 0.380 /
  0.415). Cranfield's notes hold the abstract as written (engines/eval/cranfield/load.py);
- ``static``, ``static_merged``: ``semantic`` and ``merged`` with the static embedder (engines/embed/
  static.py) as the model: what a cold vault answers from before the model's index reaches it;
- ``first_merged``: ``merged`` before the model's index, as a one-shot answers it (issue 61): the static
  vectors, and the model's own for the notes the static and words tiers put first for each query,
  embedded at query time (engines/notes/first_notes.py; no deadline, so the figure does not move with
  the machine's load). The model's vectors a query embedded stay for the next, as in a session.
Every configuration answers 100 ids, best first, so recall@100 means the same for all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from engines.answer import collect
from engines.embed.cache import VectorCache, text_key
from engines.eval.collection import Collection
from engines.eval.runner import Ranker, Request, split_of
from engines.eval.suite import Suite, judged_by_gain, need
from engines.notes.corpus import Note
from engines.notes.engine import EXACT, SEMANTIC, TIERS, WORDS, NotesEngine
from engines.notes.semantic import EMBED_BATCH

DEPTH = 100
COLUMNS = ("ndcg@10", "mrr@10", "recall@10", "recall@100", "p50_ms", "p90_ms")
CONFIGS = ("exact", "words", "bm25", "semantic", "dense", "merged", "hybrid_rrf", "static", "static_merged",
           "first_merged")


def whole_text(note: Note) -> str:
    return " ".join((note.title + " " + note.body).split())


def requests_of(collection: Collection) -> list[Request]:
    return [Request(qid, text, dict(collection.judged[qid]), split_of(text)) for qid, text in collection.queries.items()]


class NotesConfigs:
    """Builds what each configuration needs once, on first use (the index, the BM25 matrix)."""

    def __init__(self, collection: Collection, root: Path, embedder=None, progress=None, static=None) -> None:
        self.collection = collection
        self.root = root
        self._embedder = embedder
        self._static_embedder = static  # None: the notes pane's own (engines/embed/trained_prose_table.py)
        self._engine: NotesEngine | None = None
        self._static: NotesEngine | None = None
        self._first: NotesEngine | None = None
        self._bm25 = None
        self._whole: np.ndarray | None = None
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
            "words": lambda: self._tiers((WORDS,)),
            "bm25": self._bm25_ranker,
            "semantic": lambda: self._tiers((SEMANTIC,), indexed=True),
            "dense": self._dense_ranker,
            "merged": lambda: self._tiers(TIERS, indexed=True),
            "hybrid_rrf": self._rrf_ranker,
            "static": lambda: self._static_tiers((SEMANTIC,)),
            "static_merged": lambda: self._static_tiers(TIERS),
            "first_merged": self._first_ranker,
        }

    def _first_ranker(self) -> Ranker:
        import tempfile
        import time

        if self._first is None:  # its own cache: the model's index of this collection is not there yet
            self._first = NotesEngine(self.root, embedder=self._embedder, static=self._static_embedder or True,
                                      notes=self.collection.notes,
                                      cache_dir=tempfile.mkdtemp(prefix="olai-eval-first-"))
            self._first.static_vectors.build(progress=self.progress)
            self._first.start_indexing = lambda: None  # no build beside: the model embeds what a query asks
        engine = self._first

        def rank(q: str) -> list[str]:
            engine.answer_by = time.monotonic() + 600
            return [h.id for h in collect("notes", q, engine.search(q, limit=DEPTH, tiers=TIERS)).hits]

        return rank

    def _static_tiers(self, tiers) -> Ranker:
        if self._static is None:
            from engines.embed.trained_prose_table import notes_static

            self._static = NotesEngine(self.root, embedder=self._static_embedder or notes_static(), wait_for_index=True,
                                       notes=self.collection.notes)
            self._static.build_index(progress=self.progress)
        engine = self._static
        return lambda q: [h.id for h in collect("notes", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]

    def _tiers(self, tiers, indexed: bool = False) -> Ranker:
        engine = self.indexed() if indexed else self.engine()
        return lambda q: [h.id for h in collect("notes", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]

    def _bm25_ranker(self) -> Ranker:
        from engines.lexical import BM25Index, standard_tokenize

        if self._bm25 is None:
            notes = self.collection.notes
            self._bm25 = BM25Index([standard_tokenize(n.title + " " + n.body) for n in notes])
        ids = [n.id for n in self.collection.notes]
        index = self._bm25
        return lambda q: [ids[i] for i, _ in index.top(standard_tokenize(q), DEPTH)]

    def _dense_ranker(self) -> Ranker:
        embedder = self.engine().embedder
        matrix = self._whole_vectors()
        ids = [n.id for n in self.collection.notes]

        def rank(q: str) -> list[str]:
            scores = matrix @ embedder.embed([q], "query")[0]
            top = np.argsort(-scores, kind="stable")[:DEPTH]  # equal scores: corpus order
            return [ids[i] for i in top]

        return rank

    def _whole_vectors(self) -> np.ndarray:
        """One vector per note, of its title and body as one text (the model reads the first 256 word
        pieces): how a standard dense baseline embeds a document. Kept in a vector cache of their own."""
        if self._whole is None:
            embedder = self.engine().embedder
            info = embedder.info()
            cache = VectorCache(info.model_id, info.dims, scope=str(self.root.resolve()) + "#whole-notes")
            texts = [whole_text(n) for n in self.collection.notes]
            keys = [text_key(t) for t in texts]
            pending = list({k: t for k, t in zip(keys, texts) if k not in cache}.items())
            for start in range(0, len(pending), EMBED_BATCH):
                batch = pending[start:start + EMBED_BATCH]
                cache.put_many([k for k, _ in batch], embedder.embed([t for _, t in batch], "document"))
                if self.progress:
                    self.progress(min(start + EMBED_BATCH, len(pending)), len(pending))
            cache.save(keep=set(keys))
            self._whole = cache.get_many(keys)
        return self._whole

    def _rrf_ranker(self) -> Ranker:
        from engines.fusion import rrf

        bm25, dense = self._bm25_ranker(), self._dense_ranker()
        return lambda q: [doc for doc, _, _ in rrf({"bm25": bm25(q), "dense": dense(q)}, k=60)][:DEPTH]


def notes_suite(dataset: str, folder: Path, load: Callable[[Path], Collection], progress) -> Suite:
    """A test collection's suite (vaswani, cranfield): ``load`` reads it from ``folder``."""
    need(folder)
    collection = load(folder)
    titles = {n.id: n.title for n in collection.notes}
    factories = NotesConfigs(collection, folder, progress=progress).factories()
    return Suite("notes", dataset, requests_of(collection), factories, COLUMNS,
                 judged_by_gain(lambda i: titles.get(i, i)), salt=str(folder.resolve()))  # another copy: measured apart
