"""`olai-tui eval`: the side-by-side table of an engine's configurations, for people and as JSON."""

from __future__ import annotations

import json
import sys

from olai_tui.bench import shared_data
from olai_tui.errors import UsageError
from olai_tui.progress import Progress

COLUMNS = {  # the figures each engine's table shows, in order
    "notes": ("ndcg@10", "mrr@10", "recall@10", "recall@100", "p50_ms", "p90_ms"),
    "code": ("mrr@10", "recall@1", "recall@10", "p50_ms", "p90_ms"),
    "icecat": ("right_first", "in_top3", "ndcg@10", "recall", "p50_ms", "p90_ms"),
}


def evaluate(engine: str, dataset: str, configs: str | None, split: str, fresh: bool, as_json: bool) -> int:
    if engine == "notes":
        tables = _notes(dataset, configs, split, fresh)
    elif engine == "code":
        tables = _code(dataset, configs, split, fresh)
    elif engine == "products" and dataset == "icecat":
        return _icecat(configs, split, fresh, as_json)
    elif engine == "products":
        return _products(dataset, configs, split, as_json)
    else:
        raise UsageError(f"no evaluation for {engine}")
    if as_json:
        json.dump(_json(tables, engine, dataset, split), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(markdown(tables, COLUMNS[engine]))
    return 0


def _notes(dataset: str, configs: str | None, split: str, fresh: bool):
    from engines.eval import runner
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
    return tables


def _code(dataset: str, configs: str | None, split: str, fresh: bool):
    from engines.code.evaluation import CONFIGS, CodeConfigs, cosqa_requests
    from engines.eval import runner

    if dataset != "cosqa":
        raise UsageError(f"--dataset: unknown dataset {dataset!r} for code (known: cosqa)")
    names = _configs(configs, CONFIGS)
    data = shared_data() / "code" / "cosqa"
    if not data.is_dir():
        raise UsageError(f"{data}: no such folder")
    requests = cosqa_requests(data, shared_data().parent / "heldout" / "code")
    progress = Progress("eval code cosqa")
    factories = CodeConfigs(data, progress=Progress("indexing cosqa")).factories()
    tables = runner.run("code", "cosqa", requests, {n: factories[n] for n in names}, split=split, fresh=fresh,
                        progress=progress)
    progress.finish()
    return tables


def _products(dataset: str, configs: str | None, split: str, as_json: bool) -> int:
    from engines.eval.food.run import CONFIGS, evaluate as evaluate_food, markdown as food_markdown

    if dataset != "food":
        raise UsageError(f"--dataset: unknown dataset {dataset!r} for products (known: food, icecat)")
    names = _configs(configs, tuple(CONFIGS))
    splits = ["dev", "heldout"] if split == "both" else [split]
    results = [evaluate_food(s, names) for s in splits]
    if as_json:
        out = results[0] if len(results) == 1 else {
            "engine": "products", "dataset": "food", "split": split,
            "configs": {n: {"metrics": {r["split"]: r["configs"][n]["metrics"] for r in results}} for n in names},
            "requests": [q for r in results for q in r["requests"]]}
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print("\n\n".join(food_markdown(r) for r in results))
    return 0


def _icecat(configs: str | None, split: str, fresh: bool, as_json: bool) -> int:
    """Icecat (graded 0..3): the products configurations side by side, smart_milvus beside smart."""
    from engines.eval import runner
    from engines.eval.icecat import (CONFIGS, DEPTH, HELDOUT, IcecatConfigs, RatingsError, icecat_metrics,
                                     icecat_requests, milvus_available, same_first)
    from engines.products.catalogue import CatalogueError

    names = _configs(configs, CONFIGS)
    if "smart_milvus" in names and (why := milvus_available()):
        print(f"eval: smart_milvus skipped: {why}", file=sys.stderr)
        names.remove("smart_milvus")
    if not names:
        raise UsageError("--configs: nothing left to run")
    corpus = shared_data() / "products" / "icecat"
    if not corpus.is_dir():
        raise UsageError(f"{corpus}: no such folder")
    try:
        requests = icecat_requests(corpus, shared_data().parent / "heldout" / "products" / HELDOUT)
    except RatingsError as exc:
        raise UsageError(str(exc)) from None
    if split in ("heldout", "both") and not any(r.split == "heldout" for r in requests):
        print(f"eval: no held-out file ({HELDOUT}); its table is empty", file=sys.stderr)
    setup = IcecatConfigs(corpus, progress=Progress("indexing icecat"), say=lambda t: print(f"eval: {t}", file=sys.stderr))
    factories = setup.factories()
    progress = Progress("eval products icecat")
    try:
        tables = runner.run("products", "icecat", requests, {n: factories[n] for n in names}, split=split,
                            fresh=fresh, salt=f"{corpus.resolve()}|{DEPTH}", progress=progress, score=icecat_metrics)
    except CatalogueError as exc:
        raise UsageError(str(exc)) from None
    except RuntimeError as exc:  # vectors not ready, Milvus not starting: one line, not a traceback
        raise UsageError(str(exc)) from None
    finally:
        progress.finish()
        setup.close()
    if setup.fell_back:
        print("eval: smart_milvus fell back to memory: " + ", ".join(f"{n} x {why}" for why, n in setup.fell_back.items()),
              file=sys.stderr)
    compared = {t.split: same_first(t) for t in tables}
    scored = {t.split: sum(1 for r in requests if r.split == t.split and any(g >= 3 for g in r.judged.values()))
              for t in tables}
    if as_json:
        out = _json(tables, "products", "icecat", split)
        out["depth"] = DEPTH
        out["scored_requests"] = scored  # the requests with a product rated 3: the figures' denominators
        if any(compared.values()):
            out["smart_vs_smart_milvus"] = compared
        if setup.milvus_facts:
            out["milvus"] = setup.milvus_facts
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return 0
    text = markdown(tables, COLUMNS["icecat"]) + (
        "\n\nFigures over the requests with a product rated 3 (" + ", ".join(f"{k} {v}" for k, v in scored.items())
        + f"); recall: the rated-3 products among the first {DEPTH} ids returned (smart: the 40 its judge saw at"
        " most); timings over every request.")
    for s, c in compared.items():
        if c:
            text += (f"\n\n{s}: smart_milvus against smart, the same first product on {c['same_first']}/{c['requests']}"
                     f" requests; top-10 overlap (Jaccard) {c['top10_jaccard_mean']:.3f}")
    print(text)
    return 0


def _json(tables, engine: str, dataset: str, split: str) -> dict:
    if len(tables) == 1:
        return tables[0].to_json()
    names = list(tables[0].metrics)
    return {"engine": engine, "dataset": dataset, "split": split,
            "configs": {n: {"metrics": {t.split: t.metrics[n] for t in tables}} for n in names},
            "requests": [r | {"split": t.split} for t in tables for r in t.requests]}


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
                v = t.metrics[name].get(c)
                cells.append("—" if v is None else f"{v:.1f}" if c.endswith("_ms") else f"{v:.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
