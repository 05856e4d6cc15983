"""Choosing the fused blend's weight on semble's dev repositories (never the held-out ones).

    .venv/bin/python -m engines.eval.tuning.semble_blend [--weights 0,0.1,0.2,0.3] [--repos a,b] [--static]

Each dev repository is indexed once with the embedding tier from the vector cache (fill it first:
engines/eval/semble/embed.py, or one `eval code --dataset semble --configs fused` run), then every weight
ranks the repository's queries as the shipped `fused` does (engines/code/merge.py ``blend``; symbol-
shaped queries keep ``BLEND_WEIGHT_SYMBOL``). Prints mean NDCG@10 over repositories per weight, with
the semantic / architecture / symbol means, scored as `olai-tui eval code --dataset semble` scores.
``--static``: the static embedder (engines/embed/static.py) as the code model, as ``static_fused``.
"""

from __future__ import annotations

import argparse
import sys

from engines.eval.semble.load import load_queries, load_repos, mean, ndcg


def main(argv: list[str] | None = None) -> int:
    import engines.code.engine as code_engine
    from engines.eval.semble.run import RepoRun
    from engines.locations import shared_data

    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", default="0,0.1,0.2,0.3,0.5")
    parser.add_argument("--repos", default=None)
    parser.add_argument("--static", action="store_true", help="the static embedder as the code model")
    args = parser.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    data = shared_data() / "code" / "semble"
    wanted = set(args.repos.split(",")) if args.repos else None
    repos = [r for r in load_repos(data).values() if r.split == "dev" and (wanted is None or r.name in wanted)]
    per_weight: dict[float, list[float]] = {w: [] for w in weights}
    per_cat: dict[float, dict[str, list[float]]] = {w: {} for w in weights}
    shipped = code_engine.BLEND_WEIGHT
    for n, repo in enumerate(repos, 1):
        queries = load_queries(data / "annotations" / f"{repo.name}.json", repo.name)
        run = RepoRun(repo)
        try:
            # the eval's own fused ranker (it builds the embedding index from the cache and checks it is
            # whole); the engine reads BLEND_WEIGHT at each search, so each weight below takes effect
            rank = run.ranker("static_fused" if args.static else "fused")
            for w in weights:
                code_engine.BLEND_WEIGHT = w
                scores, cats = [], {}
                for q in queries:
                    score = ndcg(rank(q.text), q.targets)
                    scores.append(score)
                    cats.setdefault(q.category, []).append(score)
                per_weight[w].append(mean(scores) or 0.0)
                for c, v in cats.items():  # a category's figure: the mean over repositories, as the eval's
                    per_cat[w].setdefault(c, []).append(mean(v) or 0.0)
        finally:
            code_engine.BLEND_WEIGHT = shipped
            run.close()
        print(f"{n}/{len(repos)} {repo.name}: " + " ".join(f"{w}={per_weight[w][-1]:.3f}" for w in weights),
              file=sys.stderr, flush=True)
    print("| weight | ndcg@10 | semantic | architecture | symbol |\n|---:|---:|---:|---:|---:|")
    for w in weights:
        cats = {c: mean(v) for c, v in per_cat[w].items()}
        print(f"| {w} | {mean(per_weight[w]):.4f} | {cats.get('semantic', 0):.3f} | "
              f"{cats.get('architecture', 0):.3f} | {cats.get('symbol', 0):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
