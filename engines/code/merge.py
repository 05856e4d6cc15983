"""How the lexical and embedding tiers' rankings become one answer.

Two merges, both kept: ``fused`` (the shipped default) and ``merged`` (lexical first, meaning fills
what is left: ``fill`` below; for the compare view and the evaluation; ``merge="fill"`` is its
earlier name). Measured on CoSQA dev-500 only (`.venv/bin/python -m engines.eval.tuning.code_fields --part merge`),
MRR@10 / recall@10, with the embedding tier's density correction (vectors.py) in place:

- lexical alone 0.350 / 0.552; embedding alone 0.547 / 0.830.
- merged (``fill``: lexical first, meaning fills what is left) is lexical's ranking whenever BM25 finds ten
  symbols, which on 6,267 functions it always does: 0.350 / 0.552.
- equal-weight RRF (k 60, whole lists) lets BM25's weaker ranking pull meaning's hits down: 0.464 / 0.752.
- RRF leaning on meaning: lexical weight 0.1, k 10, over the lexical head 20 and the embedding head
  50: 0.551 / 0.840. Its neighbours in the grid: weight 0.05 0.548, 0.15 0.546; k 5 0.549, k 15
  0.546; heads 20/20 and 20/100 the same, 10/50 0.545. (The grid's top, k 5 with weight 0.15, 0.553,
  sits beside 0.546: not taken.)
- Score fusion instead of ranks (cosine + a x BM25 / the query's best BM25): best 0.551 (a 0.05-0.08);
  with English stopwords and "python" out of the lexical query words 0.553. z-scored: 0.549. No
  change kept: every variant is within 0.003 of the shipped RRF, inside dev's noise.

Chosen again on 2026-12-06, after the code engine's Snowball stems (earlier that day) moved its lexical
ranking (CoSQA dev lexical 0.348 -> 0.356) and took the RRF above to 0.5478: the same grid's top is
now k 5, lexical weight 0.15, heads 50/50, 0.5516 (it was the top before too, then beside 0.546, and not
taken). A finer grid around it (k 3-8 x weight 0.1-0.2, heads 50/50, a /tmp script over the same rankings) is a
plateau: every setting with k 3-6 and weight 0.125-0.175 scores 0.549-0.552, while k 10 falls with
each step of weight (0.5480 / 0.5473 / 0.5458). Against the k 10 setting, paired over the 500 dev
queries, +0.0038 [-0.0003, +0.0083] (29 up, 14 down). A better lexical ranking earns a larger share.
Adding the trained code table as a third list (weight 0.1-1.0, any k) or as a third cosine in a score
fusion never beat the two-list RRF (best 0.5502 at its weight 0): once MiniLM has embedded every
function, the table is not asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engines.fusion import rrf

LEXICAL, EMBEDDING = "lexical", "embedding"
MERGES = ("fused", "merged")  # "merged": lexical first, meaning fills (``fill``)
ALIASES = {"fill": "merged"}  # the earlier name of "merged"

# Chosen on CoSQA dev-500 by engines/eval/tuning/code_fields.py (grid: lexical weight 0.05-1.0, k 5-60, heads
# 10-100): see the module docstring for the figures (k 10, weight 0.1, heads 20/50 until 2026-12-06).
FUSION_K = 5
FUSION_WEIGHTS = {LEXICAL: 0.15, EMBEDDING: 1.0}
FUSION_HEADS = {LEXICAL: 50, EMBEDDING: 50}

# Over a source tree (symbols with files) the lexical tier reads names and paths (ranking.py) and is
# the stronger tier, so the two are blended by score with the lexical one leading. All 42 of semble's
# dev repositories embedded (2026-12-01; `.venv/bin/python -m engines.eval.tuning.semble_blend`), mean
# NDCG@10 by the embedding's weight 0 / 0.1 / 0.2 / 0.3 / 0.5: 0.8619 / 0.8644 / 0.8638 / 0.8555 /
# 0.8362 (0.1 and 0.2 within noise of each other; 0.2 kept, chosen earlier on the first 26 embedded:
# 0.880 / 0.881 / 0.874 / 0.862 at 0.1 / 0.2 / 0.3 / 0.5). The embedding tier alone scores 0.636:
# MiniLM, a prose model, adds little to code that the lexical tier already ranks by names and paths.
# Symbol-shaped queries lose with any weight (0.966 lexical, 0.916 at 0.5 on the 26), so they keep
# the lexical order. CoSQA's pathless functions keep the RRF above, where meaning leads (a lexical
# weight this high would undo its 0.550).
BLEND_WEIGHT = 0.2
BLEND_WEIGHT_SYMBOL = 0.0

# The trained code table's vectors (static_vectors.py) rank below MiniLM's (CoSQA dev alone 0.369 against
# 0.547), so they get their own fusion, chosen on dev only: the lexical tier's head ordered by a share of
# each tier's score, the rows meaning alone found behind it (``weigh``). Pathless functions, CoSQA dev-500
# MRR@10 by the meaning share 0.4 / 0.5 / 0.6 / 0.7 / 0.8: 0.406 / 0.416 / 0.424 / 0.418 / 0.407
# (`.venv/bin/python -m engines.eval.tuning.code_table --table engines/embed/model/olai-code-table.f16.npy
# --dataset cosqa`, rows weigh-*), where an RRF of the two (lexical 0.5-3 x k 10-60, evidence first) gave
# 0.401 at best in the engine: RRF keeps only the places, and a function the words barely found but
# meaning ranks first stays behind. Source trees, where the lexical tier reads names and paths and leads,
# semble dev 42 repositories NDCG@10 by the share 0.1 / 0.2 / 0.3: 0.8628 / 0.8620 / 0.8588 (lexical 0.8619;
# 0.1 - lexical +0.0011 [-0.0019, +0.0041] paired over the 829 queries; `--dataset semble --shares 0.1,0.2,0.3`),
# where the rank blend above at 0.1 gave 0.8612. Symbol queries keep the words' order (BLEND_WEIGHT_SYMBOL).
STATIC_MEANING_SHARE = 0.6
STATIC_TREE_SHARE = 0.1

# A question asked in words over a source tree ("how does the app find its templates", "where are proxy
# settings picked up from the environment": a wh-word and then its verb, or a question opened by its verb)
# is a developer's who does not know the code's names; the words it shares with the code are few and
# general, and meaning weighs more (issue 60). semble's queries were written by a model that had read the
# code: 16 of its 829 dev queries are so asked. Chosen on the natural-question dev set
# (engines/eval/natural, 13 repositories) and semble dev together, the share for asked questions 0.1 (the
# tree's) / 0.4 / 0.5 / 0.6 / 0.7 / 0.8 / 0.9: natural right@3 0.279 / 0.262 / 0.311 / 0.344 / 0.328 /
# 0.377 / 0.361, semble architecture 0.8094 / 0.8083 / 0.8074 / 0.8068 / 0.8042 / 0.8061 / 0.8026 (32 of
# the 42 repositories, a /tmp replay of the engine's rankings; the engine's own figures in
# docs/code-embedder.md). Words by their rank instead of their score, meaning by its rank, or the module
# that holds a function sunk: none better.
STATIC_QUESTION_SHARE = 0.8
QUESTION_WORDS = frozenset({"how", "where", "what", "which", "why", "when", "who"})
NAMED = re.compile(r"[a-z][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|[A-Za-z]\.[A-Za-z]|::|\(\)")  # camelCase, snake_case, a.b
QUESTION_VERBS = frozenset({"is", "are", "does", "do", "did", "can", "could", "should", "would", "will", "was",
                            "were", "has", "have", "must"})


def question_asked(query: str) -> bool:
    """A question in words: a wh-word and then its verb ("how are", "where is"), or a question opened by
    its verb ("does it", "can I") of more than two words; not one that names the code ("how is BaseModel
    defined": a mix, whose asker knows a name the words find)."""
    if NAMED.search(query):
        return False
    words = re.findall(r"[a-z']+", query.lower())
    if len(words) < 2:
        return False
    return (words[0] in QUESTION_WORDS and words[1] in QUESTION_VERBS) or (words[0] in QUESTION_VERBS and len(words) > 2)


@dataclass(frozen=True)
class Merged:
    position: int  # the symbol's position in the corpus
    tier: str  # the tier that ranked it best (lexical on a tie: evidence before resemblance)
    score: float  # that tier's own score
    ranks: dict[str, int]  # {tier: 1-based rank} for each tier that found it
    scores: dict[str, float]  # {tier: own score}
    fused: float | None = None  # the fused score (fused merge only)


def fuse(lexical: Sequence[tuple[int, float]], embedding: Sequence[tuple[int, float]], limit: int,
         k: int = FUSION_K, weights: dict[str, float] | None = None,
         heads: dict[str, int] | None = None) -> list[Merged]:
    """Weighted reciprocal rank fusion of the two rankings, best first."""
    lists = {LEXICAL: [str(p) for p, _ in lexical], EMBEDDING: [str(p) for p, _ in embedding]}
    own = {LEXICAL: {p: s for p, s in lexical}, EMBEDDING: {p: s for p, s in embedding}}
    fused = rrf(lists, k=k, quotas=heads if heads is not None else FUSION_HEADS,
                weights=weights if weights is not None else FUSION_WEIGHTS)
    out = []
    for doc, score, ranks in fused[:limit]:
        position = int(doc)
        best = min(ranks, key=lambda t: (ranks[t], t != LEXICAL))
        scores = {t: own[t][position] for t in ranks}
        out.append(Merged(position, best, scores[best], dict(ranks), scores, score))
    return out


def blend(lexical: Sequence[tuple[int, float]], embedding: Sequence[tuple[int, float]], limit: int,
          weight: float = BLEND_WEIGHT) -> list[Merged]:
    """The fused merge over a source tree: the lexical tier's score over its best, plus ``weight`` x
    the embedding tier's place in its own head (1 for its first, falling evenly; its order is the
    density-corrected one, which raw cosines would undo); best first."""
    own = {LEXICAL: dict(lexical), EMBEDDING: dict(embedding)}
    ranks = {LEXICAL: {p: r for r, (p, _) in enumerate(lexical, 1)},
             EMBEDDING: {p: r for r, (p, _) in enumerate(embedding, 1)}}
    combined: dict[int, float] = {}
    if lexical:
        top = max(s for _, s in lexical) or 1.0
        for p, s in lexical:
            combined[p] = s / top
    for r, (p, _) in enumerate(embedding):  # weight 0: meaning only fills in behind the lexical rows
        combined[p] = combined.get(p, 0.0) + weight * (1 - r / len(embedding))
    out = []
    for p in sorted(combined, key=lambda q: (-combined[q], q))[:limit]:
        found = {t: ranks[t][p] for t in (LEXICAL, EMBEDDING) if p in ranks[t]}
        best = min(found, key=lambda t: (found[t], t != LEXICAL))
        scores = {t: own[t][p] for t in found}
        out.append(Merged(p, best, scores[best], found, scores, combined[p]))
    return out


def weigh(lexical: Sequence[tuple[int, float]], cosines: Sequence[float], meaning: Sequence[tuple[int, float]],
          limit: int, share: float = STATIC_MEANING_SHARE) -> list[Merged]:
    """The trained table's fusion: the lexical tier's rows (``cosines``: the query's cosine to each, NaN
    where not embedded) ordered by ``1 - share`` x their score over the best plus ``share`` x their
    cosine scaled over these rows (the least 0, the most 1), each said as lexical (its words are its
    evidence; meaning only moved it); then the rows meaning alone found (``meaning``, above the floor),
    in its order: a resemblance row is never above an evidence row (engines/contract.py)."""
    meaning_rank = {p: r for r, (p, _) in enumerate(meaning, 1)}
    meaning_score = dict(meaning)
    words = np.asarray([s for _, s in lexical], np.float64)
    words = words / (words.max() or 1.0) if len(words) else words
    near = np.asarray(cosines, np.float64)
    known = ~np.isnan(near)
    scaled = np.zeros(len(near))
    if known.any():
        low, high = near[known].min(), near[known].max()
        scaled[known] = (near[known] - low) / (high - low) if high > low else 0.0
    combined = (1 - share) * words + share * scaled
    out = []
    for i in sorted(range(len(lexical)), key=lambda i: (-combined[i], i)):
        p, s = lexical[i]
        ranks, scores = {LEXICAL: i + 1}, {LEXICAL: s}
        if p in meaning_rank:
            ranks[EMBEDDING], scores[EMBEDDING] = meaning_rank[p], meaning_score[p]
        out.append(Merged(p, LEXICAL, s, ranks, scores, float(combined[i])))
    shown = {m.position for m in out}
    out += [Merged(p, EMBEDDING, c, {EMBEDDING: r}, {EMBEDDING: c}) for r, (p, c) in enumerate(meaning, 1)
            if p not in shown]
    return out[:limit]


def fill(lexical: Sequence[tuple[int, float]], embedding: Sequence[tuple[int, float]], limit: int) -> list[Merged]:
    """Lexical hits first; embedding hits not already shown fill what is left of the limit."""
    out = [Merged(p, LEXICAL, s, {LEXICAL: r}, {LEXICAL: s}) for r, (p, s) in enumerate(lexical[:limit], 1)]
    shown = {m.position for m in out}
    for rank, (p, s) in enumerate(embedding, 1):
        if len(out) >= limit:
            break
        if p not in shown:
            out.append(Merged(p, EMBEDDING, s, {EMBEDDING: rank}, {EMBEDDING: s}))
            shown.add(p)
    return out
