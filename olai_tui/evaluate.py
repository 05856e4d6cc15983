"""`olai-tui eval`: the side-by-side table of an engine's configurations, for people and as JSON."""

from __future__ import annotations

import json
import sys

from olai_tui.bench import shared_data
from olai_tui.errors import UsageError
from olai_tui.progress import Progress

COLUMNS = {  # the figures each engine's table shows, in order
    "notes": ("ndcg@10", "mrr@10", "recall@10", "recall@100", "p50_ms", "p90_ms"),
}


def evaluate(engine: str, dataset: str, configs: str | None, split: str, fresh: bool, as_json: bool) -> int:
    from engines.eval import runner

    if engine != "notes":
        raise UsageError(f"no evaluation for {engine} yet (notes: vaswani, cranfield)")
    from engines.eval.notes_eval import CONFIGS, DATASETS, NotesConfigs, requests_of

    if dataset not in DATASETS:
        raise UsageError(f"--dataset: unknown dataset {dataset!r} for notes (known: {', '.join(DATASETS)})")
    names = _configs(configs, CONFIGS)
    folder = shared_data() / "notes" / dataset
    try:
        collection = DATASETS[dataset](folder)
    except OSError as exc:
        raise UsageError(f"{exc.filename or folder}: {exc.strerror or exc}") from None
    progress = Progress(f"eval notes {dataset}")
    factories = NotesConfigs(collection, folder, progress=Progress(f"indexing {dataset}")).factories()
    tables = runner.run("notes", dataset, requests_of(collection), {n: factories[n] for n in names},
                        split=split, fresh=fresh, progress=progress)
    progress.finish()
    if as_json:
        out = tables[0].to_json() if len(tables) == 1 else {
            "engine": "notes", "dataset": dataset, "split": split,
            "configs": {n: {"metrics": {t.split: t.metrics[n] for t in tables}} for n in names},
            "requests": [r | {"split": t.split} for t in tables for r in t.requests]}
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(markdown(tables, COLUMNS["notes"]))
    return 0


def _configs(asked: str | None, known: tuple[str, ...]) -> list[str]:
    if not asked:
        return list(known)
    names = [c.strip() for c in asked.split(",") if c.strip()]
    unknown = [c for c in names if c not in known]
    if unknown:
        raise UsageError(f"--configs: unknown configuration {unknown[0]!r} (known: {', '.join(known)})")
    return names


def markdown(tables, columns) -> str:
    """One Markdown table: a row per configuration, dev and held-out side by side for each figure."""
    splits = [t.split for t in tables]
    head = ["config"] + [f"{c} {s}" if len(splits) > 1 else c for c in columns for s in splits]
    lines = [f"{tables[0].engine} · {tables[0].dataset} · " + " / ".join(f"{t.split} {next(iter(t.metrics.values()))['requests']} requests" for t in tables),
             "", "| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for name in tables[0].metrics:
        cells = [name]
        for c in columns:
            for t in tables:
                v = t.metrics[name][c]
                cells.append(f"{v:.1f}" if c.endswith("_ms") else f"{v:.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
