"""Running semble's benchmark: each repository indexed once, every configuration over its queries.

Configurations (each ranks the chunks of the code engine's own corpus of the repository):

- ``bm25_raw``: plain BM25 over each chunk's source as written (bm25s, Lucene's formula, k1 1.5,
  b 0.75; words ``[a-z_][a-z0-9_]*`` lower-cased, unsplit): semble's "BM25 raw" baseline on our chunks;
- ``lexical_plain``: the lexical tier's fielded BM25 without the code-aware ranking (the ablation);
- ``lexical``: the shipped default, the engine's lexical tier;
- ``embedding``: the engine's embedding tier alone (every chunk embedded; vectors cached by content);
- ``fused``: the engine with both tiers, merged as shipped;
- ``static_embedding``, ``static_fused``: ``embedding`` and ``fused`` with the static embedder
  (engines/embed/static.py) as the code model: semble's static-vectors-with-BM25 setup on our engine;
- ``code_table``: the trained code table alone (engines/embed/trained_code_table.py, static_vectors.py);
- ``default``: the code pane's default answer, lexical with the trained code table's meaning.

Figures per repository: NDCG@10 over chunks and over files, per category, the index time (read,
parse and BM25 build of the engine) and the median query time.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from engines.eval.semble.load import (CATEGORIES, Chunk, Query, Repo, file_ndcg, mean, ndcg, percentile)

CONFIGS = ("bm25_raw", "lexical_plain", "lexical", "embedding", "fused", "static_embedding", "static_fused",
           "code_table", "default")
MODEL_CONFIGS = frozenset({"embedding", "fused", "static_embedding", "static_fused", "code_table", "default"})
DEFAULT_CONFIGS = tuple(c for c in CONFIGS if c not in MODEL_CONFIGS)  # the model's need every chunk embedded first
DEPTH = 50  # rows asked of each configuration: 10 scored as chunks, the rest let the file view find 10 files

Ranker = Callable[[str], list[Chunk]]


@dataclass
class RepoResult:
    repo: Repo
    chunks: int
    files: int
    index_ms: float
    embed_s: float | None = None
    ndcg: dict[str, float] = field(default_factory=dict)  # config -> mean NDCG@10 over the repo's queries
    file_ndcg: dict[str, float] = field(default_factory=dict)
    by_category: dict[str, dict[str, float]] = field(default_factory=dict)  # config -> category -> mean
    p50_ms: dict[str, float] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)
    problems: int = 0


_RAW_WORD = re.compile(r"[a-z_][a-z0-9_]*")


class RawBM25:
    """semble's ``bm25`` mode over our chunks: whole lower-cased identifiers, nothing split or stemmed."""

    def __init__(self, texts: Sequence[str]) -> None:
        from engines.lexical import BM25Index

        self.index = BM25Index([_RAW_WORD.findall(t.lower()) for t in texts])

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        return self.index.top(_RAW_WORD.findall(query.lower()), k)


class RepoRun:
    """One repository's engine and the configurations' rankers over it."""

    def __init__(self, repo: Repo, embedder=None, progress=None) -> None:
        from engines.code.engine import CodeEngine

        self.repo = repo
        started = time.perf_counter()
        # ``embedding`` and ``fused`` are the contextual model's (MiniLM, or the one handed in)
        self.engine = CodeEngine(root=repo.root, embedder=embedder, wait_for_index=True, contextual=True, static=False)
        self.index_ms = (time.perf_counter() - started) * 1000
        self.progress = progress
        self.root = os.path.abspath(repo.root)
        self.embed_s: float | None = None
        self._raw: RawBM25 | None = None
        self._static = None  # the engine with the static embedder as its model, made when first asked
        self._default = None  # the engine as the code pane opens it (the trained table's meaning), likewise

    def chunk(self, position: int) -> Chunk:
        s = self.engine.symbols[position]
        return Chunk(os.path.relpath(s.path, self.root).replace(os.sep, "/"), s.line, s.end_line)

    def ranker(self, config: str) -> Ranker:
        from engines.answer import collect

        engine = self.engine
        if config == "bm25_raw":
            if self._raw is None:
                self._raw = RawBM25([s.source for s in engine.symbols])
            raw = self._raw
            return lambda q: [self.chunk(p) for p, _ in raw.top(q, DEPTH)]
        if config == "lexical_plain":
            lexical = engine.lexical_tier
            return lambda q: [self.chunk(p) for p, _ in lexical.plain(q, DEPTH)]
        if config in ("code_table", "default"):
            if self._default is None:
                from engines.code.engine import CodeEngine

                self._default = CodeEngine(root=self.repo.root, wait_for_index=True, contextual=False)
                self._default.build_index()
            engine = self._default
            tiers = ("embedding",) if config == "code_table" else None
            positions = {s.id: i for i, s in enumerate(engine.symbols)}
            return lambda q: [self.chunk(positions[h.id]) for h in
                              collect("code", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits]
        if config.startswith("static_"):
            if self._static is None:
                from engines.code.engine import CodeEngine
                from engines.embed.static import StaticEmbedder

                self._static = CodeEngine(root=self.repo.root, embedder=StaticEmbedder(), wait_for_index=True,
                                          static=False)
                self._static.build_index()
            engine, config = self._static, config.removeprefix("static_")
        tiers = {"lexical": ("lexical",), "embedding": ("embedding",), "fused": ("lexical", "embedding")}[config]
        if "embedding" in tiers and self.embed_s is None and engine is self.engine:
            started = time.perf_counter()
            engine.build_index(progress=self.progress)
            self.embed_s = time.perf_counter() - started
            state = engine.vectors.state()
            if state.state != "ready":
                raise RuntimeError(f"{self.repo.name}: the embedding index is {state.state}: {state.reason or ''}".strip())
        positions = {s.id: i for i, s in enumerate(engine.symbols)}

        def rank(q: str) -> list[Chunk]:
            hits = collect("code", q, engine.search(q, limit=DEPTH, tiers=tiers)).hits
            return [self.chunk(positions[h.id]) for h in hits]

        return rank

    def close(self) -> None:
        self.engine.close()
        for other in (self._static, self._default):
            if other is not None:
                other.close()


def run_repo(repo: Repo, queries: Sequence[Query], configs: Sequence[str], embedder=None,
             progress=None) -> RepoResult:
    run = RepoRun(repo, embedder=embedder, progress=progress)
    try:
        result = RepoResult(repo, len(run.engine.symbols), run.engine.files, round(run.index_ms, 1),
                            problems=len(run.engine.problems))
        rows = [{"repo": repo.name, "query": q.text, "category": q.category, "configs": {}} for q in queries]
        for config in configs:
            rank = run.ranker(config)
            times, scores, files, cats = [], [], [], {}
            for q, row in zip(queries, rows):
                started = time.perf_counter()
                ranked = rank(q.text)
                times.append((time.perf_counter() - started) * 1000)
                score, file_score = ndcg(ranked, q.targets), file_ndcg(ranked, q.targets)
                scores.append(score)
                files.append(file_score)
                cats.setdefault(q.category, []).append(score)
                row["configs"][config] = {"top": [f"{c.path}:{c.start_line}-{c.end_line}" for c in ranked[:10]],
                                          "ndcg@10": round(score, 4), "file_ndcg@10": round(file_score, 4),
                                          "ms": round(times[-1], 3)}
            result.ndcg[config] = mean(scores) or 0.0
            result.file_ndcg[config] = mean(files) or 0.0
            result.by_category[config] = {c: mean(v) or 0.0 for c, v in cats.items()}
            result.p50_ms[config] = percentile(times, 50) if times else 0.0
        result.embed_s = None if run.embed_s is None else round(run.embed_s, 1)
        result.requests = rows
        return result
    finally:
        run.close()


# -- aggregating ---------------------------------------------------------------------------------

def summary(results: Sequence[RepoResult], configs: Sequence[str]) -> dict:
    """Mean over repositories, per language and per category, as the README defines them."""
    metrics = {}
    for c in configs:
        metrics[c] = {
            "ndcg@10": _r(mean(r.ndcg[c] for r in results)),
            "file_ndcg@10": _r(mean(r.file_ndcg[c] for r in results)),
            **{f"ndcg@10_{cat}": _r(mean(r.by_category[c][cat] for r in results if cat in r.by_category[c]))
               for cat in CATEGORIES},
            "p50_ms": _r(float(np.median([r.p50_ms[c] for r in results])) if results else None, 3),
            "index_ms_median": _r(float(np.median([r.index_ms for r in results])) if results else None, 1),
            "repos": len(results),
            "requests": sum(len(r.requests) for r in results),
        }
    languages: dict[str, list[RepoResult]] = {}
    for r in results:
        languages.setdefault(r.repo.language, []).append(r)
    per_language = {lang: {c: _r(mean(r.ndcg[c] for r in rs)) for c in configs} | {"repos": len(rs)}
                    for lang, rs in sorted(languages.items())}
    per_category = {cat: {c: _r(mean(r.by_category[c][cat] for r in results if cat in r.by_category[c]))
                          for c in configs} for cat in CATEGORIES}
    per_repo = {r.repo.name: {"language": r.repo.language, "split": r.repo.split, "chunks": r.chunks,
                              "files": r.files, "index_ms": r.index_ms, "embed_s": r.embed_s,
                              "problems": r.problems, "queries": len(r.requests),
                              "configs": {c: {"ndcg@10": _r(r.ndcg[c]), "file_ndcg@10": _r(r.file_ndcg[c]),
                                              "p50_ms": _r(r.p50_ms[c], 3),
                                              **{f"ndcg@10_{k}": _r(v) for k, v in r.by_category[c].items()}}
                                          for c in configs}}
                for r in results}
    return {"metrics": metrics, "per_repo": per_repo, "per_language": per_language, "per_category": per_category}


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(float(value), digits)
