"""Training the static table in numpy: a text is the normalised sum of its tokens' rows, as
engines/embed/static.py embeds it at run time, and the gradient flows back to those rows.

Two objectives, run one after the other (each measured for what it buys: docs/code-embedder.md):

- ``regress``: each text's vector onto the teacher's (MiniLM's) vector of the same text, projected into
  the table's own space (the distilled table's PCA basis), by cosine: tokenlearn's step;
- ``contrast``: MultipleNegativesRankingLoss over (query, code) pairs, the other pairs of the batch as
  negatives (scale 20, sentence-transformers' default), symmetric where asked.

The optimiser is Adam on the rows a batch touched (torch's SparseAdam: an untouched row keeps its
moments). Everything is seeded; float32 on one BLAS, so a rerun on the same machine gives the same
bytes (another CPU's kernels may move the last bits: the manifest's figures are the check there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

SCALE = 20.0  # MNRL's similarity scale (sentence-transformers' default, potion-code-16M's too)


@dataclass
class Encoded:
    vectors: np.ndarray  # [n, dims] unit vectors
    norms: np.ndarray  # [n, 1] the sums' norms
    counts: np.ndarray  # [n, unique] how often each unique token is in each text
    unique: np.ndarray  # the token ids the batch touched


def encode(table: np.ndarray, ids: Sequence[np.ndarray]) -> Encoded:
    lengths = np.fromiter((len(t) for t in ids), np.int64, len(ids))
    flat = np.concatenate(ids) if len(ids) else np.zeros(0, np.int64)
    unique, inverse = np.unique(flat, return_inverse=True)
    text_of = np.repeat(np.arange(len(ids)), lengths)
    counts = np.bincount(text_of * len(unique) + inverse, minlength=len(ids) * len(unique))
    counts = counts.reshape(len(ids), len(unique)).astype(np.float32)
    sums = counts @ table[unique]
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return Encoded(sums / norms, norms, counts, unique)


def backward(enc: Encoded, grad: np.ndarray) -> np.ndarray:
    """d loss / d rows[enc.unique], from d loss / d unit vectors."""
    u = enc.vectors
    d_sums = (grad - u * np.sum(u * grad, axis=1, keepdims=True)) / enc.norms
    return enc.counts.T @ d_sums


def mnrl(q: np.ndarray, d: np.ndarray, symmetric: bool) -> tuple[float, np.ndarray, np.ndarray]:
    """Loss and gradients for unit vectors q, d where q[i] pairs with d[i]."""
    n = len(q)
    logits = SCALE * (q @ d.T)
    loss, g = _cross_entropy(logits)
    if symmetric:
        loss_t, g_t = _cross_entropy(logits.T)
        loss, g = (loss + loss_t) / 2, (g + g_t.T) / 2
    g *= SCALE / n
    return loss, g @ d, g.T @ q


def _cross_entropy(logits: np.ndarray) -> tuple[float, np.ndarray]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(shifted)
    total = p.sum(axis=1, keepdims=True)
    p /= total
    diag = np.arange(len(logits))
    loss = float(np.mean(np.log(total[:, 0]) - shifted[diag, diag]))  # log-softmax, no epsilon to bias it
    p[diag, diag] -= 1.0
    return loss, p


class SparseAdam:
    def __init__(self, shape: tuple[int, int], lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8):
        self.m = np.zeros(shape, np.float32)
        self.v = np.zeros(shape, np.float32)
        self.lr, self.b1, self.b2, self.eps, self.t = lr, b1, b2, eps, 0

    def step(self, table: np.ndarray, rows: np.ndarray, grad: np.ndarray, lr: float | None = None) -> None:
        self.t += 1
        m = self.m[rows] * self.b1 + (1 - self.b1) * grad
        v = self.v[rows] * self.b2 + (1 - self.b2) * grad * grad
        self.m[rows], self.v[rows] = m, v
        m_hat = m / (1 - self.b1 ** self.t)
        v_hat = v / (1 - self.b2 ** self.t)
        table[rows] -= (lr if lr is not None else self.lr) * m_hat / (np.sqrt(v_hat) + self.eps)


def _lr_at(step: int, total: int, lr: float, warmup: float = 0.1) -> float:
    """Linear warm-up over the first tenth, then linear decay to 0 (sentence-transformers' default)."""
    w = max(1, int(total * warmup))
    return lr * (step + 1) / w if step < w else lr * max(0.0, (total - step) / max(1, total - w))


def regress(table: np.ndarray, ids: Sequence[np.ndarray], targets: np.ndarray, epochs: int, batch: int,
            lr: float, seed: int, say: Callable[[str], None] = print) -> None:
    """Each text's unit vector toward its target (unit) vector, loss 1 - cosine; ``table`` in place."""
    rng = np.random.default_rng(seed)
    opt = SparseAdam(table.shape, lr)
    steps = epochs * -(-len(ids) // batch)
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(ids))
        losses = []
        for at in range(0, len(order), batch):
            part = order[at:at + batch]
            enc = encode(table, [ids[i] for i in part])
            cos = np.sum(enc.vectors * targets[part], axis=1)
            losses.append(float(np.mean(1 - cos)))
            grad = backward(enc, -targets[part] / len(part))
            opt.step(table, enc.unique, grad, _lr_at(step, steps, lr))
            step += 1
        say(f"regress epoch {epoch + 1}/{epochs}: 1 - cosine {np.mean(losses):.4f}")


def contrast(table: np.ndarray, queries: Sequence[np.ndarray], codes: Sequence[np.ndarray], epochs: int,
             batch: int, lr: float, seed: int, symmetric: bool = True,
             say: Callable[[str], None] = print, after_epoch: Callable[[int], None] | None = None,
             groups: Sequence[str] | None = None,
             anchor: tuple[Sequence[np.ndarray], np.ndarray, float] | None = None) -> None:
    """MNRL over (queries[i], codes[i]), the batch's other codes as negatives; ``table`` in place.
    ``groups`` (each pair's repository): a batch is drawn from one repository where it can be, so its
    negatives are the same project's code (hard negatives: a search ranks one repository's chunks).
    ``anchor`` (the regression's texts, targets, weight): each step also pulls a batch of them toward
    the teacher's vectors, so the contrast keeps what the regression taught."""
    rng = np.random.default_rng(seed)
    opt = SparseAdam(table.shape, lr)
    steps = epochs * (len(queries) // batch)
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(queries))
        if groups is not None:  # runs of one repository each, in a shuffled order of repositories
            names = sorted(set(groups))
            rank = dict(zip(names, rng.permutation(len(names)).tolist()))
            order = order[np.argsort([rank[groups[i]] for i in order], kind="stable")]
        starts = list(range(0, len(order) - batch + 1, batch))  # whole batches: the loss depends on its size
        if groups is not None:
            starts = [starts[i] for i in rng.permutation(len(starts))]
        losses = []
        for at in starts:
            part = order[at:at + batch]
            q_ids, c_ids = [queries[i] for i in part], [codes[i] for i in part]
            enc = encode(table, q_ids + c_ids)
            n = len(part)
            loss, g_q, g_c = mnrl(enc.vectors[:n], enc.vectors[n:], symmetric)
            losses.append(loss)
            grad = backward(enc, np.vstack([g_q, g_c]))
            rows = enc.unique
            if anchor is not None:
                texts, targets, weight = anchor
                pick = rng.integers(0, len(texts), batch)
                held = encode(table, [texts[i] for i in pick])
                extra = backward(held, -weight * targets[pick] / batch)
                rows = np.union1d(enc.unique, held.unique)
                merged = np.zeros((len(rows), table.shape[1]), grad.dtype)
                merged[np.searchsorted(rows, enc.unique)] += grad
                merged[np.searchsorted(rows, held.unique)] += extra
                grad = merged
            opt.step(table, rows, grad, _lr_at(step, steps, lr))
            step += 1
        say(f"contrast epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}")
        if after_epoch is not None:
            after_epoch(epoch)


def retrieval_mrr(table: np.ndarray, queries: Sequence[np.ndarray], codes: Sequence[np.ndarray],
                  groups: Sequence[str], k: int = 10) -> float:
    """Mean over groups (repositories) of MRR@k: each query ranks every code of its own group."""
    scores = []
    for group in sorted(set(groups)):
        at = [i for i, g in enumerate(groups) if g == group]
        q = encode(table, [queries[i] for i in at]).vectors
        c = encode(table, [codes[i] for i in at]).vectors
        sims = q @ c.T
        right = sims[np.arange(len(at)), np.arange(len(at))]
        rank = 1 + np.sum(sims > right[:, None], axis=1)
        scores.append(float(np.mean(np.where(rank <= k, 1.0 / rank, 0.0))))
    return float(np.mean(scores))
