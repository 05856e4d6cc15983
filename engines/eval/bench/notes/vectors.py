"""The semantic leg's search at a vault's size, on synthetic vectors grown from real ones (behind
`olai-tui bench notes --corpus DIR`, and `python -m engines.eval.bench.notes.vectors`).

Embedding 100,000 notes takes hours on two cores, so this measures the search, not the build: a
sample of real note vectors (the model's, embedded here) is grown to the vault's size by mixing two
real vectors and a little noise (each synthetic vector is a plausible note: a blend of two topics),
and real query vectors are scored against it. Layouts, each timed over the same queries:

- ``fp32 x3``: three float32 vectors a one-paragraph note (title, passage, whole text), as the
  index held them until 2026-12-03;
- ``fp32``: one vector a note, scored exhaustively (``matrix @ query``): the exact answer;
- ``fp16``: half the memory, scored in blocks converted to float32;
- ``int8``: a quarter of the memory (a scale per row), scored by the engine's int8 rows
  (engines/embed/rows.py: SimSIMD's kernels);
- ``int8, head of 20 rescored``: the same, then the 20 best scored again in float32 (what the notes
  index does with its head: engines/notes/semantic.py, from float32 rows read back from disk).

Each figure is the time of one query's scores plus the full order of them (wall, and the process's
CPU time: on a shared machine the CPU time says what the work costs) (what the engine's ranked()
needs: every note's score), and recall@10 of its top ten against fp32's exact top ten.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Sequence

import numpy as np

from engines.eval.metrics import percentile

BLOCK = 16_384  # rows converted and scored at a time: the block's float32 copy stays in cache-sized pieces


def synthetic(real: np.ndarray, n: int, seed: int = 22, noise: float = 0.02) -> np.ndarray:
    """``n`` unit vectors, each ``a*u + (1-a)*v + noise`` of two random real vectors u, v (a in [0.6, 1))."""
    rng = np.random.default_rng(seed)
    u = real[rng.integers(0, len(real), n)]
    v = real[rng.integers(0, len(real), n)]
    a = rng.uniform(0.6, 1.0, (n, 1)).astype(np.float32)
    out = a * u + (1 - a) * v + rng.normal(0, noise, u.shape).astype(np.float32)
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


class Int8Rows:
    """Rows as the notes index holds them (engines/embed/rows.py): int8 with one float32 scale each."""

    def __init__(self, matrix: np.ndarray) -> None:
        from engines.embed.rows import AppendedRows

        self.rows = AppendedRows(matrix.shape[1])
        self.rows.extend(matrix)
        self.nbytes = self.rows.n * (matrix.shape[1] + 4)

    def scores(self, query: np.ndarray) -> np.ndarray:
        return self.rows.view().dot(query)


def rescored(int8: Int8Rows, matrix: np.ndarray, head: int = 20):
    """int8 scores, then the ``head`` best scored again in float32 (``matrix``: where the index reads
    them back from disk)."""

    def score(query: np.ndarray) -> np.ndarray:
        s = int8.scores(query)
        top = np.argpartition(-s, head)[:head]
        s[top] = matrix[top] @ query
        return s

    return score


def fp16_scores(matrix16: np.ndarray, query: np.ndarray) -> np.ndarray:
    out = np.empty(len(matrix16), dtype=np.float32)
    for start in range(0, len(matrix16), BLOCK):
        out[start:start + BLOCK] = matrix16[start:start + BLOCK].astype(np.float32) @ query
    return out


def as_ranked_today(matrix: np.ndarray, seed: int = 23):
    """The semantic index's layout today (engines/notes/semantic.py ranked()): a one-paragraph note
    holds three vectors (title, passage, whole text); its score is the mean of its best passage's
    cosine and its whole vector's. The title and passage vectors here are the note's own vector
    nudged, so the matrix has the shape and the work of today's, not its exact scores."""
    rng = np.random.default_rng(seed)
    n, dims = matrix.shape
    nudged = [matrix + rng.normal(0, 0.02, matrix.shape).astype(np.float32) for _ in range(2)]
    passages = np.empty((2 * n, dims), np.float32)
    passages[0::2], passages[1::2] = nudged
    starts = np.arange(0, 2 * n, 2)

    def score(q: np.ndarray) -> np.ndarray:
        best = np.maximum.reduceat(passages @ q, starts)
        return (best + matrix @ q) / 2

    return passages.nbytes + matrix.nbytes, score


def measure(matrix: np.ndarray, queries: np.ndarray, k: int = 10) -> dict:
    """Per layout: MB held, p50/p90 ms of scoring and ordering one query, recall@k against fp32."""
    layouts = {"fp32 x3 (title, passage, whole)": as_ranked_today(matrix),
               "fp32": (matrix.nbytes, lambda q: matrix @ q)}
    half = matrix.astype(np.float16)
    layouts["fp16"] = (half.nbytes, lambda q: fp16_scores(half, q))
    rows = Int8Rows(matrix)
    layouts["int8"] = (rows.nbytes, rows.scores)
    layouts["int8, head of 20 rescored"] = (rows.nbytes, rescored(rows, matrix))
    exact = [set(np.argsort(-(matrix @ q), kind="stable")[:k].tolist()) for q in queries]
    out = {}
    for name, (nbytes, score) in layouts.items():
        today = name.startswith("fp32 x3")  # its own scores: no recall against the one-vector fp32
        for q in queries[:3]:
            score(q)  # warm-up
        ms, cpu_ms, recall = [], [], []
        for q, truth in zip(queries, exact):
            start, cpu = time.perf_counter(), time.process_time()
            s = score(q)
            order = np.lexsort((np.arange(len(s)), -s))  # as ranked() orders: best first, ties by note
            ms.append((time.perf_counter() - start) * 1000)
            cpu_ms.append((time.process_time() - cpu) * 1000)
            recall.append(len(truth & set(order[:k].tolist())) / k)
        out[name] = {"mb": round(nbytes / 1e6, 1), "p50_ms": round(percentile(ms, 50), 2),
                     "p90_ms": round(percentile(ms, 90), 2), "cpu_p50_ms": round(percentile(cpu_ms, 50), 2),
                     f"recall@{k}": None if today else round(float(np.mean(recall)), 4)}
    return out


class GrownVectors:
    """An embedder for the engine's own leg at a vault's size: note ``i``'s whole text gets grown vector
    ``i``, its other texts (title, passages) that vector nudged; queries (and the floor's probes) go to
    the real model. The index builds in seconds and searches what an embedded vault would hold."""

    def __init__(self, model, matrix: np.ndarray, texts_of_notes: Sequence[Sequence[str]], seed: int = 24) -> None:
        self.model = model
        self._matrix = matrix
        self._rng = np.random.default_rng(seed)
        self._row = {}
        for i, texts in enumerate(texts_of_notes):
            for j, text in enumerate(texts):
                self._row.setdefault(text, (i, j == len(texts) - 1))

    def info(self):
        from dataclasses import replace

        info = self.model.info()
        return replace(info, model_id=info.model_id + "+grown")

    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        if kind == "query":
            return self.model.embed(texts, kind)
        out = np.empty((len(texts), self._matrix.shape[1]), np.float32)
        for k, text in enumerate(texts):
            i, is_whole = self._row[text]
            v = self._matrix[i] if is_whole else self._matrix[i] + self._rng.normal(0, 0.02, self._matrix.shape[1])
            out[k] = v / np.linalg.norm(v)
        return out


def exact_ranks(cache, texts: Sequence[Sequence[str]], queries: np.ndarray) -> np.ndarray:
    """Per query, every note's rank as the index defines it (the mean of its best passage's cosine and
    its whole vector's), from the float32 vectors the cache file holds: the exact answer the int8 leg is
    held against."""
    from engines.embed.cache import text_key
    from engines.notes.semantic import note_rows

    keys_of = [[text_key(t) for t in of_note] for of_note in texts]
    passage_keys, head_keys, starts = note_rows(keys_of, list(range(len(keys_of))))
    passages, heads = cache.get_many(passage_keys), cache.get_many(head_keys)
    return np.stack([(np.maximum.reduceat(passages @ q, starts) + heads @ q) / 2 for q in queries])


def engine_leg(model, matrix: np.ndarray, queries: np.ndarray, k: int = 10) -> dict:
    """The notes engine's semantic leg over ``len(matrix)`` one-paragraph notes: SemanticIndex.ranked(),
    the head the fill reads, and the notes over the floor (what engine.py's _fill asks of it), timed
    per query; recall@k of its head against the exact float32 ranking of every note (the index scores
    in int8 and its head again in float32)."""
    import tempfile

    from engines.embed.cache import VectorCache
    from engines.notes.corpus import Note
    from engines.notes.chunks import note_texts
    from engines.notes.fill import LEG_DEPTH
    from engines.notes.semantic import SemanticIndex

    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"Paragraph {i} of the grown vault.", where=f"n{i}.md",
                  path=f"/grown/n{i}.md") for i in range(len(matrix))]
    texts = [note_texts(note) for note in notes]
    with tempfile.TemporaryDirectory(prefix="olai-grown-") as cache:
        embedder = GrownVectors(model, matrix, texts)
        index = SemanticIndex(embedder, "grown vault", cache_dir=cache)
        index.set_notes(notes)
        built = time.perf_counter()
        index.build()
        build_s = time.perf_counter() - built
        info = embedder.info()
        exact = exact_ranks(VectorCache(info.model_id, info.dims, "grown vault", directory=cache), texts, queries)
        floor = index.floor().confident
        for q in queries[:3]:
            index.ranked(q).head(LEG_DEPTH)  # warm-up
        ms, cpu_ms, recall = [], [], []
        for q, truth in zip(queries, exact):
            start, cpu = time.perf_counter(), time.process_time()
            ranked = index.ranked(q)
            head = ranked.head(LEG_DEPTH)
            np.flatnonzero(ranked.best >= floor)
            ms.append((time.perf_counter() - start) * 1000)
            cpu_ms.append((time.process_time() - cpu) * 1000)
            best = np.lexsort((np.arange(len(truth)), -truth))[:k]
            recall.append(len(set(best.tolist()) & set(head[:k].tolist())) / k)
        vectors = sum(len(set(t)) for t in texts)
    return {"notes": len(matrix), "vectors": vectors, "vector_mb": round(vectors * matrix.shape[1] * 4 / 1e6, 1),
            "int8_mb": round(vectors * (matrix.shape[1] + 4) / 1e6, 1),
            "build_s": round(build_s, 1), "p50_ms": round(percentile(ms, 50), 2), "p90_ms": round(percentile(ms, 90), 2),
            "cpu_p50_ms": round(percentile(cpu_ms, 50), 2), f"recall@{k}": round(float(np.mean(recall)), 4)}


def bench_vectors(embedder, sample_texts: Sequence[str], queries: Sequence[str], n: int) -> dict:
    """Embed the sample and the queries for real, grow the sample to ``n`` vectors, measure each layout
    and the engine's own leg."""
    start = time.perf_counter()
    real = np.asarray(embedder.embed(list(sample_texts), "document"), dtype=np.float32)
    embed_s = time.perf_counter() - start
    q = np.asarray(embedder.embed(list(queries), "query"), dtype=np.float32)
    grown = synthetic(real, n)
    return {"vectors": n, "real_sample": len(real), "sample_embed_s": round(embed_s, 1), "queries": len(q),
            "layouts": measure(grown, q), "engine": engine_leg(embedder, grown, q)}


if __name__ == "__main__":
    from engines.embed.llama import LlamaEmbedder
    from engines.eval.vaswani.load import load_vaswani
    from engines.locations import shared_data

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    sample = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    c = load_vaswani(shared_data() / "notes" / "vaswani")
    texts = [n.title + "\n" + n.body for n in c.notes[:: max(1, len(c.notes) // sample)]][:sample]
    print(json.dumps(bench_vectors(LlamaEmbedder(), texts, list(c.queries.values()), count)))
