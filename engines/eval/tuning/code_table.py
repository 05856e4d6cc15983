"""Measuring a trained code table (training/code_table) on the dev splits only, never the held-out ones.

    .venv/bin/python -m engines.eval.tuning.code_table --table PATH [--dataset cosqa|semble|both]
        [--weights 0.1,0.2,0.3] [--shares 0.1,0.2] [--repos a,b] [--density W] [--out FILE.json]
        [--as-engine] [--path 0|1] [--baseline FILE.json]

CoSQA dev-500: MRR@10 of the table alone, of the shipped RRF fusion with lexical (merge.py ``fuse``,
meaning leading), of an equal-weight RRF (k 60), of a small grid of lexical weights and k (whole
lists) and of the static tier's score fusion by its meaning share (merge.py ``weigh``). semble dev, 42
repositories: NDCG@10 of lexical, the table alone, the shipped score blend (merge.py ``blend``) at each
weight and, with ``--shares``, the score fusion at each share, per category, with a paired bootstrap
of each against lexical over the 829 queries. Rankings come from the engine itself (its lexical tier, its embedding tier with the table as the model, the merge's own functions), scored by the
evaluation's scorers (engines/eval/metrics.py ``mrr_at``, engines/eval/semble/load.py ``ndcg``).

By default the table stands where MiniLM would (the source as text, the density correction at
``--density``): how every table before 2026-12-06's evening was measured. ``--as-engine``: the table
answers as the code pane's static tier does (engines/code/static_vectors.py: the file's path before the
source, ``symbols.static_text``, and the density up to its bound); ``--path 0`` leaves the path out. ``--out`` keeps each
query's score; ``--baseline`` (an earlier ``--out``) adds each ranking's paired difference against the
same ranking there, query by query.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def _near(found, lexical: list[tuple[int, float]]) -> list[float]:
    """The query's cosine to each lexical row (NaN for all where the table did not answer)."""
    positions = [p for p, _ in lexical]
    return list(found.cosines_of(positions)) if hasattr(found, "cosines_of") else [float("nan")] * len(positions)


def _engine(table: Path, as_engine: bool, **corpus):
    """The code engine over ``corpus`` with ``table`` answering its embedding tier, built."""
    from engines.code.engine import CodeEngine
    from engines.embed.code_table import CodeTableEmbedder

    embedder = CodeTableEmbedder(table)
    if as_engine:
        engine = CodeEngine(static_embedder=embedder, contextual=False, wait_for_index=True, **corpus)
    else:
        engine = CodeEngine(embedder=embedder, static=False, wait_for_index=True, **corpus)
    engine.build_index()
    return engine


def cosqa(table: Path, say, as_engine: bool = False) -> dict:
    from engines.code.engine import CANDIDATES
    from engines.code.merge import EMBEDDING, LEXICAL, fuse, weigh
    from engines.eval.cosqa.load import SCOPE, load_functions, load_queries
    from engines.eval.metrics import mrr_at
    from engines.locations import shared_data

    data = shared_data() / "code" / "cosqa"
    engine = _engine(table, as_engine, symbols=load_functions(data), scope=SCOPE)
    ids = [s.id for s in engine.symbols]
    grid = [(w, k) for w in (0.5, 1.0, 2.0, 3.0) for k in (10, 30, 60)]  # a static tier's own RRF, whole lists
    shares = (0.4, 0.5, 0.6, 0.7, 0.8)  # its score fusion over the lexical head (merge.py ``weigh``)
    scores: dict[str, list[float]] = {"lexical": [], "table": [], "fused": [], "rrf-equal": []}
    scores.update({f"rrf-w{w}-k{k}": [] for w, k in grid})
    scores.update({f"weigh-{share}": [] for share in shares})
    for q, answer in load_queries(data / "cosqa-retrieval-dev-500.json"):
        lexical = engine.lexical_tier.search(q, CANDIDATES)
        found = engine.embedding_ranking(q)
        meaning = found.ranked if hasattr(found, "ranked") else []
        rows = {"lexical": lexical, "table": meaning,
                "fused": [(m.position, 0) for m in fuse(lexical, meaning, 100)],
                "rrf-equal": [(m.position, 0) for m in fuse(lexical, meaning, 100, k=60,
                                                             weights={LEXICAL: 1.0, EMBEDDING: 1.0}, heads={})]}
        for w, k in grid:
            rows[f"rrf-w{w}-k{k}"] = [(m.position, 0) for m in fuse(lexical, meaning, 100, k=k,
                                                                    weights={LEXICAL: w, EMBEDDING: 1.0}, heads={})]
        near = _near(found, lexical)
        for share in shares:
            rows[f"weigh-{share}"] = [(m.position, 0) for m in weigh(lexical, near, meaning, 100, share)]
        for name, ranked in rows.items():
            scores[name].append(mrr_at([ids[p] for p, _ in ranked], {answer}))
    engine.close()
    out = {name: round(float(np.mean(v)), 4) for name, v in scores.items()}
    say(f"CoSQA dev MRR@10: {out}")
    return {**out, "per_query": {name: [round(x, 4) for x in v] for name, v in scores.items()}}


def semble(table: Path, weights: list[float], repos_wanted: set[str] | None, say,
           shares: tuple[float, ...] = (), as_engine: bool = False) -> dict:
    from engines.code.engine import CANDIDATES
    from engines.code.merge import BLEND_WEIGHT_SYMBOL, blend, weigh
    from engines.code.ranking import symbol_query
    from engines.eval.semble.load import load_queries, load_repos, ndcg
    from engines.eval.semble.run import RepoRun
    from engines.locations import shared_data

    data = shared_data() / "code" / "semble"
    repos = [r for r in load_repos(data).values()
             if r.split == "dev" and (repos_wanted is None or r.name in repos_wanted)]
    names = ["lexical", "table"] + [f"blend{w}" for w in weights] + [f"weigh{s}" for s in shares]
    per_query: dict[str, list[float]] = {n: [] for n in names}
    per_repo: dict[str, dict[str, list[float]]] = {}
    per_cat: dict[str, dict[str, dict[str, list[float]]]] = {}
    for n, repo in enumerate(repos, 1):
        queries = load_queries(data / "annotations" / f"{repo.name}.json", repo.name)
        run = RepoRun(repo)  # its chunk() names rows as the benchmark scores them
        engine = _engine(table, as_engine, root=repo.root)
        repo_scores: dict[str, list[float]] = {name: [] for name in names}
        cats: dict[str, dict[str, list[float]]] = {}
        for q in queries:
            lexical = engine.lexical_tier.search(q.text, CANDIDATES)
            found = engine.embedding_ranking(q.text)
            meaning = found.ranked if hasattr(found, "ranked") else []
            rows = {"lexical": lexical, "table": meaning}
            for w in weights:
                weight = BLEND_WEIGHT_SYMBOL if symbol_query(q.text) else w
                rows[f"blend{w}"] = [(m.position, 0) for m in blend(lexical, meaning, 50, weight)]
            near = _near(found, lexical)
            for share in shares:
                share_here = BLEND_WEIGHT_SYMBOL if symbol_query(q.text) else share
                rows[f"weigh{share}"] = [(m.position, 0) for m in weigh(lexical, near, meaning, 50, share_here)]
            for name, ranked in rows.items():
                score = ndcg([run.chunk(p) for p, _ in ranked[:50]], q.targets)
                repo_scores[name].append(score)
                per_query[name].append(score)
                cats.setdefault(q.category, {}).setdefault(name, []).append(score)
        engine.close()
        run.close()
        per_repo[repo.name] = {name: float(np.mean(v)) for name, v in repo_scores.items()}
        for cat, by_name in cats.items():
            for name, v in by_name.items():
                per_cat.setdefault(cat, {}).setdefault(name, []).append(float(np.mean(v)))
        say(f"{n}/{len(repos)} {repo.name}: " + " ".join(f"{k}={v:.3f}" for k, v in per_repo[repo.name].items()))
    out = {"ndcg@10": {name: round(float(np.mean([r[name] for r in per_repo.values()])), 4) for name in names},
           "per_category": {cat: {name: round(float(np.mean(v)), 4) for name, v in by_name.items()}
                            for cat, by_name in per_cat.items()},
           "paired_vs_lexical": {name: _paired(per_query[name], per_query["lexical"]) for name in names[1:]},
           "repos": len(per_repo), "queries": len(per_query["lexical"]),
           "per_query": {name: [round(x, 4) for x in v] for name, v in per_query.items()}}
    say(f"semble dev NDCG@10: {out['ndcg@10']}")
    return out


def against(result: dict, baseline: dict) -> dict:
    """Each ranking's paired difference from the same ranking in ``baseline`` (an earlier ``--out``),
    per dataset, where both scored the same queries."""
    out: dict = {}
    for dataset in ("cosqa_dev", "semble_dev"):
        now, then = result.get(dataset, {}).get("per_query", {}), baseline.get(dataset, {}).get("per_query", {})
        out[dataset] = {name: _paired(now[name], then[name]) for name in now
                        if name in then and len(then[name]) == len(now[name])}
    return out


def _paired(a: list[float], b: list[float], rounds: int = 2000) -> dict:
    """Mean per-query difference a - b and its 95 % bootstrap interval over queries (seeded)."""
    diff = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), (rounds, len(diff)))].mean(axis=1)
    return {"mean": round(float(diff.mean()), 4), "ci95": [round(float(np.percentile(means, 2.5)), 4),
                                                           round(float(np.percentile(means, 97.5)), 4)]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engines.eval.tuning.code_table")
    parser.add_argument("--table", required=True, type=Path)
    parser.add_argument("--dataset", default="both", choices=("cosqa", "semble", "both"))
    parser.add_argument("--weights", default="0.1,0.2,0.3")
    parser.add_argument("--shares", default="", help="semble: the score fusion's meaning shares (merge.py weigh)")
    parser.add_argument("--repos", default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--density", type=float, default=None,
                        help="the embedding tier's density weight (engines/code/vectors.py; 0.3 if not given; with --as-engine the static tier's too)")
    parser.add_argument("--as-engine", action="store_true",
                        help="the table as the code pane's static tier answers (its texts, its density)")
    parser.add_argument("--path", type=int, choices=(0, 1), default=1,
                        help="with --as-engine: the file's path before the source (1, the engine's) or not (0)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="an earlier --out: each ranking's paired difference against it")
    args = parser.parse_args(argv)
    baseline = None
    if args.baseline is not None:
        try:
            baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"--baseline: {args.baseline}: {exc}", file=sys.stderr)
            return 2
    if not args.path:
        import engines.code.symbols as symbols

        symbols.STATIC_TEXT_PATH = False
    if args.density is not None:
        import engines.code.vectors as vectors

        vectors.DENSITY_WEIGHT = args.density  # read at each search: the static table's own, measured here
    if not args.table.is_file():
        print(f"--table: {args.table}: no such file", file=sys.stderr)
        return 2

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    result: dict = {"table": str(args.table), "density": args.density, "as_engine": args.as_engine,
                    "path": bool(args.path)}
    if args.dataset in ("cosqa", "both"):
        result["cosqa_dev"] = cosqa(args.table, say, args.as_engine)
    if args.dataset in ("semble", "both"):
        result["semble_dev"] = semble(args.table, [float(w) for w in args.weights.split(",")],
                                      set(args.repos.split(",")) if args.repos else None, say,
                                      tuple(float(x) for x in args.shares.split(",") if x), args.as_engine)
    if baseline is not None:
        result["against_baseline"] = against(result, baseline)
    if args.out is not None:
        args.out.write_text(json.dumps(result) + "\n", encoding="utf-8")
    shown = {key: {n: v for n, v in value.items() if n != "per_query"} if key.endswith("_dev") else value
             for key, value in result.items()}  # the per-query scores go to --out only
    print(json.dumps(shown, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
