"""Choosing the lexical field weights and the merge on CoSQA dev-500 (never on the held-out queries).

    .venv/bin/python -m engines.eval.tuning.code_fields [--part library|lexical|density|merge]

Prints MRR@10 and recall@10 of each candidate on the dev queries. The function vectors come from
the vector cache (scope "cosqa"); functions missing from it are embedded first (minutes, once).
"""

from __future__ import annotations

import argparse
import itertools
import sys

import numpy as np

from engines.eval.cosqa.load import SCOPE, load_functions, load_queries
from engines.code.lexical_tier import LexicalIndex
from engines.code.merge import EMBEDDING, LEXICAL, fill, fuse
from engines.code.vectors import VectorIndex
from engines.eval.metrics import mrr_at, recall_at
from engines.lexical import top_of

CANDIDATES = 100


def shared_cosqa():
    from engines.locations import shared_data

    return shared_data() / "code" / "cosqa"


def score(rankings: list[list[int]], answers: list[str]) -> tuple[float, float]:
    mrr = np.mean([mrr_at([str(p) for p in r], {a}, 10) for r, a in zip(rankings, answers)])
    rec = np.mean([recall_at([str(p) for p in r], {a}, 10) for r, a in zip(rankings, answers)])
    return round(float(mrr), 4), round(float(rec), 4)


def tune_lexical(symbols, queries) -> None:
    answers = [a for _, a in queries]
    for stem in (False, True):
        for name_w, doc_w, sig_w in itertools.product((1, 2, 3, 5), (1, 2, 3), (1, 2)):
            weights = {"name": name_w, "docstring": doc_w, "signature": sig_w, "body": 1}
            index = LexicalIndex.build(symbols, weights, stem)
            ranked = [[p for p, _ in index.search(q, 10)] for q, _ in queries]
            print(f"stem={stem} name={name_w} doc={doc_w} sig={sig_w}: MRR@10, recall@10 = {score(ranked, answers)}",
                  flush=True)


def compare_libraries(symbols, queries) -> None:
    """rank-bm25 against bm25s on the same tokens: build time, queries/s and MRR@10."""
    import time

    from rank_bm25 import BM25Okapi

    from engines.code.lexical_tier import symbol_document
    from engines.lexical import BM25Index, tokenize

    docs = [symbol_document(s) for s in symbols]
    words = [tokenize(q, stem=True) for q, _ in queries]
    answers = [a for _, a in queries]
    for name, build, scores in (("bm25s", BM25Index, lambda index, q: index.scores(q)),
                                ("rank-bm25", BM25Okapi, lambda index, q: index.get_scores(q))):
        start = time.perf_counter()
        index = build(docs)
        build_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        ranked = [[p for p, _ in top_of(np.asarray(scores(index, q), dtype=np.float32), 10)] for q in words]
        seconds = time.perf_counter() - start
        print(f"{name}: build {build_ms:.0f} ms, {len(words) / seconds:,.0f} queries/s "
              f"({seconds * 1000 / len(words):.3f} ms/query), MRR@10, recall@10 = {score(ranked, answers)}", flush=True)


def embedding_rankings(symbols, queries, embedder, weight: float | None = None,
                       neighbours: int | None = None) -> list[list[tuple[int, float]]]:
    """Each query's CANDIDATES best symbols by density-corrected cosine (no floor: the ranking alone)."""
    from engines.code import vectors
    from engines.code.symbols import embed_text

    saved = vectors.DENSITY_WEIGHT, vectors.DENSITY_NEIGHBOURS
    vectors.DENSITY_WEIGHT = saved[0] if weight is None else weight
    vectors.DENSITY_NEIGHBOURS = saved[1] if neighbours is None else neighbours
    try:
        index = VectorIndex(embedder, scope=SCOPE)
        index.set_texts([embed_text(s) for s in symbols])
        index.build()
        out = []
        for v in embedder.embed([q for q, _ in queries], "query"):
            rows, _, ranking = index.scores(v)
            out.append([(int(rows[i]), s - 2.0) for i, s in top_of(ranking + 2.0, CANDIDATES)])
        return out
    finally:
        vectors.DENSITY_WEIGHT, vectors.DENSITY_NEIGHBOURS = saved


def tune_density(symbols, queries, embedder) -> None:
    answers = [a for _, a in queries]
    for neighbours, weight in itertools.product((3, 5, 7, 10, 20), (0.0, 0.3, 0.4, 0.5, 0.7, 1.0)):
        ranked = embedding_rankings(symbols, queries, embedder, weight, neighbours)
        print(f"density neighbours={neighbours} weight={weight}: {score([[p for p, _ in r[:10]] for r in ranked], answers)}",
              flush=True)


def tune_merge(symbols, queries, embedder) -> None:
    answers = [a for _, a in queries]
    lexical_index = LexicalIndex.build(symbols)
    lexical = [lexical_index.search(q, CANDIDATES) for q, _ in queries]
    embedding = embedding_rankings(symbols, queries, embedder)
    print("lexical", score([[p for p, _ in r[:10]] for r in lexical], answers))
    print("embedding", score([[p for p, _ in r[:10]] for r in embedding], answers))
    print("merged (fill)", score([[m.position for m in fill(a, b, 10)] for a, b in zip(lexical, embedding)], answers))
    print("rrf equal k=60", score([[m.position for m in fuse(a, b, 10, k=60, weights={LEXICAL: 1, EMBEDDING: 1},
                                                             heads={})] for a, b in zip(lexical, embedding)], answers))
    for k, w, lh, eh in itertools.product((5, 10, 15, 60), (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0), (10, 20, 50),
                                          (20, 50, 100)):
        ranked = [[m.position for m in fuse(a, b, 10, k=k, weights={LEXICAL: w, EMBEDDING: 1.0},
                                           heads={LEXICAL: lh, EMBEDDING: eh})] for a, b in zip(lexical, embedding)]
        print(f"rrf k={k} lexical_weight={w} heads={lh}/{eh}: {score(ranked, answers)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engines.eval.tuning.code_fields")
    parser.add_argument("--part", choices=("library", "lexical", "density", "merge"), default="merge")
    args = parser.parse_args(argv)
    folder = shared_cosqa()
    symbols = load_functions(folder)
    queries = load_queries(folder / "cosqa-retrieval-dev-500.json")  # dev only: tuning never sees held-out
    if args.part == "library":
        compare_libraries(symbols, queries)
    elif args.part == "lexical":
        tune_lexical(symbols, queries)
    else:
        from engines.embed.llama import LlamaEmbedder

        (tune_density if args.part == "density" else tune_merge)(symbols, queries, LlamaEmbedder())
    return 0


if __name__ == "__main__":
    sys.exit(main())
