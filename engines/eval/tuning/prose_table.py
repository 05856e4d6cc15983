"""Measuring a static table for notes (the distilled one, or a prose table training/prose_table wrote) on
the dev splits only, never the held-out ones (issue 61).

    .venv/bin/python -m engines.eval.tuning.prose_table --table distilled|PATH [--datasets vaswani,cranfield,roadmap]
        [--floor F]

Vaswani and Cranfield dev: nDCG@10 of the static vectors alone (``static``: the semantic tier with the
table as its model) and of the answer before MiniLM (``static_merged``: exact and words with the table's
meaning filling what is left), as `olai-tui eval notes --configs static,static_merged` gives them for the
table that ships. The roadmap dev set: paraphrases found in the top 3 and off-topic queries with a
confident row, the table as the model (``semantic`` alone and ``merged``). Answers are cached under the
eval cache by the table's sha256 (engines/eval/runner.py), apart from the shipped configurations'.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def embedder_of(table: str, floor: float | None = None):
    from engines.embed.static import StaticEmbedder
    from engines.embed.trained_prose_table import FLOOR, ProseTableEmbedder

    return StaticEmbedder() if table == "distilled" else ProseTableEmbedder(Path(table), FLOOR if floor is None else floor)


def collection_figures(dataset: str, embedder, say) -> dict[str, dict[str, float]]:
    from engines.eval.configs.notes import NotesConfigs, requests_of
    from engines.eval.cranfield.load import load_cranfield
    from engines.eval.runner import run
    from engines.eval.vaswani.load import load_vaswani
    from engines.locations import shared_data

    folder = shared_data() / "notes" / dataset
    collection = (load_vaswani if dataset == "vaswani" else load_cranfield)(folder)
    configs = NotesConfigs(collection, folder, static=embedder).factories()
    requests = [r for r in requests_of(collection) if r.split == "dev"]
    salt = f"{folder.resolve()}|table:{embedder.info().model_id}|floor:{embedder.info().floor}"
    (table,) = run("notes", dataset, requests, {n: configs[n] for n in ("static", "static_merged")}, split="dev",
                   salt=salt)
    return table.metrics


def roadmap_figures(embedder) -> dict[str, dict[str, float]]:
    from engines.eval.roadmap.configs import roadmap_suite
    from engines.locations import shared_data

    suite = roadmap_suite(shared_data() / "notes" / "olai-roadmap.jsonl", None, None, embedder=embedder)
    suite.salt += f"|table:{embedder.info().model_id}|floor:{embedder.info().floor}"
    try:
        (table,) = suite.run(["semantic", "merged"], split="dev")
    finally:
        suite.close()
    return table.metrics


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m engines.eval.tuning.prose_table", description=__doc__.split("\n")[0])
    p.add_argument("--table", required=True, help="distilled, or the path of a table training.prose_table wrote")
    p.add_argument("--datasets", default="vaswani,cranfield,roadmap")
    p.add_argument("--floor", type=float, help="a prose table's floor (default: the shipped one's, trained_prose_table.FLOOR)")
    args = p.parse_args(argv)
    if args.table != "distilled" and not Path(args.table).is_file():
        print(f"--table: {args.table} is not a file", file=sys.stderr)
        return 2
    embedder = embedder_of(args.table, args.floor)
    print(f"table {args.table} ({embedder.info().model_id}, floor {embedder.info().floor})", flush=True)
    for dataset in args.datasets.split(","):
        if dataset == "roadmap":
            metrics = roadmap_figures(embedder)
            for config, m in metrics.items():
                print(f"roadmap dev {config}: top3 {m.get('top3'):.0f} of {m.get('paraphrases'):.0f} "
                      f"(weak {m.get('top3_weak'):.0f}), off-topic confident {m.get('offtopic_confident'):.0f} "
                      f"of {m.get('offtopic'):.0f}", flush=True)
        else:
            metrics = collection_figures(dataset, embedder, print)
            for config, m in metrics.items():
                print(f"{dataset} dev {config}: nDCG@10 {m['ndcg@10']:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
