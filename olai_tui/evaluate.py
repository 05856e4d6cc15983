"""`olai-tui eval`: the side-by-side table of an engine's configurations, for people and as JSON.

The datasets, configurations and scoring live in engines/eval/suite.py, which the workbench's
evaluation view uses too; this module reads the arguments, shows progress and prints.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engines.locations import shared_data, shared_heldout
from olai_tui.errors import UsageError
from olai_tui.progress import Progress


def evaluate(engine: str, dataset: str, configs: str | None, split: str, fresh: bool, as_json: bool,
             queries: str | None = None, repos: str | None = None) -> int:
    from engines.eval.suite import DatasetError, open_suite, pick, takes_queries

    if engine == "code" and dataset == "semble":  # per repository, scored by its own rules (evaluate_semble.py)
        from olai_tui.evaluate_semble import evaluate_semble

        return evaluate_semble(shared_data() / "code" / "semble", configs, split, queries, repos, as_json)
    if repos is not None:
        raise UsageError("--repos: only eval code --dataset semble takes it")
    if queries is not None and not takes_queries(engine, dataset):
        raise UsageError(f"--queries: {engine} {dataset} keeps its held-out requests here; datasets whose held-out"
                         " set is kept elsewhere take it (code semble, notes roadmap, products fineli and food_fisv)")

    say = lambda text: print(f"eval: {text}", file=sys.stderr)  # noqa: E731
    try:  # the arguments first, then the files
        names = pick(engine, dataset, [c.strip() for c in configs.split(",") if c.strip()] if configs else None)
        suite = open_suite(engine, dataset, shared_data(), shared_heldout(),
                           progress=Progress(f"indexing {dataset}"), say=say,
                           queries=Path(queries) if queries else None)
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    if "smart_milvus" in names:
        from engines.eval.icecat import milvus_available

        if why := milvus_available():
            say(f"smart_milvus skipped: {why}")
            names.remove("smart_milvus")
    if not names:
        raise UsageError("--configs: nothing left to run")
    if split in ("heldout", "both") and not any(r.split == "heldout" for r in suite.requests):
        if dataset == "roadmap":
            say("the roadmap's held-out set is kept outside this repository: pass it with --queries FILE"
                " (one {\"query\", \"accept\"} or {\"query\", \"off_topic\"} object a line); its table is empty")
        elif takes_queries(engine, dataset):
            say(f"the held-out requests of {dataset} are kept outside this repository: pass them with --queries FILE"
                " (a file of the dev requests' shape); its table is empty")
        else:
            say("no held-out requests were found; its table is empty")
    progress = Progress(f"eval {engine} {dataset}")
    try:
        tables = suite.run(names, split=split, fresh=fresh, progress=progress)
    except (DatasetError, RuntimeError) as exc:  # vectors not ready, Milvus not starting: one line, no traceback
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        progress.finish("interrupted; the answers so far are cached")
        raise
    finally:
        suite.close()
    progress.finish()
    extras = _icecat_extras(suite, tables, say) if dataset == "icecat" else {}
    fell_back = getattr(suite.setup, "judge_fell_back", None)
    if fell_back:
        say("smart_http: the fused order answered " + ", ".join(f"{n} x {why}" for why, n in fell_back.items()))
    if as_json:
        out = _json(tables, engine, dataset, split)
        out.update(extras.get("json", {}))
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(markdown(tables, suite.columns, suite.percent) + extras.get("text", ""))
    return 0


def _icecat_extras(suite, tables, say) -> dict:
    """Icecat's denominators and the smart / smart_milvus comparison, for the text and the JSON."""
    from engines.eval.icecat import DEPTH, same_first

    setup = suite.setup
    if setup.fell_back:
        say("smart_milvus fell back to memory: " + ", ".join(f"{n} x {why}" for why, n in setup.fell_back.items()))
    compared = {t.split: same_first(t) for t in tables}
    scored = {t.split: sum(1 for r in suite.requests if r.split == t.split and any(g >= 3 for g in r.judged.values()))
              for t in tables}
    out = {"depth": DEPTH, "scored_requests": scored}  # the requests with a product rated 3: the denominators
    if any(compared.values()):
        out["smart_vs_smart_milvus"] = compared
    if setup.milvus_facts:
        out["milvus"] = setup.milvus_facts
    text = ("\n\nFigures over the requests with a product rated 3 (" + ", ".join(f"{k} {v}" for k, v in scored.items())
            + f"); recall: the rated-3 products among the first {DEPTH} ids returned (smart: the 40 its judge saw at"
            " most); timings over every request.")
    for s, c in compared.items():
        if c:
            text += (f"\n\n{s}: smart_milvus against smart, the same first product on {c['same_first']}/{c['requests']}"
                     f" requests; top-10 overlap (Jaccard) {c['top10_jaccard_mean']:.3f}")
    return {"json": out, "text": text}


def _json(tables, engine: str, dataset: str, split: str) -> dict:
    if len(tables) == 1:
        return tables[0].to_json()
    names = list(tables[0].metrics)
    return {"engine": engine, "dataset": dataset, "split": split,
            "configs": {n: {"metrics": {t.split: t.metrics[n] for t in tables}} for n in names},
            "requests": [r | {"split": t.split} for t in tables for r in t.requests]}


def cell(figure: str, metrics: dict, percent: frozenset[str] = frozenset()) -> str:
    """One figure as the table shows it: ms to 0.1, rates as 0.000 or %, counts whole, said/due."""
    value = metrics.get(figure)
    if figure == "not_sold_said":
        return f"{value or 0}/{metrics.get('not_sold_due') or 0}"
    if value is None:
        return "—"
    if figure.endswith("_ms"):
        return f"{value:.1f}"
    if figure in percent:
        return f"{value:.1%}"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.3f}"


def markdown(tables, columns, percent: frozenset[str] = frozenset()) -> str:
    """One Markdown table: a row per configuration, dev and held-out side by side for each figure."""
    splits = [t.split for t in tables]
    head = ["config"] + [f"{c} {s}" if len(splits) > 1 else c for c in columns for s in splits]
    lines = [f"{tables[0].engine} · {tables[0].dataset} · " + " / ".join(f"{t.split} {len(t.requests)} requests" for t in tables),
             "", "| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for name in tables[0].metrics:
        lines.append("| " + " | ".join([name] + [cell(c, t.metrics[name], percent) for c in columns for t in tables])
                     + " |")
    return "\n".join(lines)
