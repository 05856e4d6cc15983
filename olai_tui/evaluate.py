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
from olai_tui.progress import Progress, WaitLine


def evaluate(engine: str, dataset: str, configs: str | None, split: str, fresh: bool, as_json: bool,
             queries: str | None = None, **arguments: str | None) -> int:
    """``arguments``: the CLI arguments some dataset declares for itself (code semble's ``repos``)."""
    from engines.eval.catalogue import DatasetError, datasets, declared, open_suite, pick, without_unavailable

    say = lambda text: print(f"eval: {text}", file=sys.stderr)  # noqa: E731
    try:
        found = declared(engine, dataset)
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    given = {name: value for name, value in arguments.items() if value is not None}
    for name in given:
        if name not in {o.name for o in found.arguments}:
            takers = [f"{d.engine} --dataset {d.name}" for d in datasets() if any(o.name == name for o in d.arguments)]
            raise UsageError(f"--{name}: only eval {' and '.join(takers)} takes it")
    if found.run is not None:  # a dataset with its own runner (semble: per repository, by its own scoring)
        from engines.contract import Console

        console = Console(out=print, say=say, progress=Progress, waiting=WaitLine)
        return found.run(configs=configs, split=split, fresh=fresh, queries=queries, as_json=as_json,
                         console=console, **given)
    if queries is not None and not found.queries:
        raise UsageError(f"--queries: {engine} {dataset} keeps its held-out requests here; datasets whose held-out"
                         f" set is kept elsewhere take it ({held_elsewhere()})")

    try:  # the arguments first, then the files
        names = pick(engine, dataset, [c.strip() for c in configs.split(",") if c.strip()] if configs else None)
        suite = open_suite(engine, dataset, shared_data(), shared_heldout(),
                           progress=Progress(f"indexing {dataset}"), say=say,
                           queries=Path(queries) if queries else None)
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    for line in without_unavailable(engine, dataset, names):
        say(line)
    if not names:
        raise UsageError("--configs: nothing left to run")
    if split in ("heldout", "both") and not any(r.split == "heldout" for r in suite.requests):
        if found.heldout_hint:
            say(found.heldout_hint)
        elif found.queries:
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
    extras = found.extras(suite, tables, say) if found.extras else {}
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


def named(datasets) -> str:
    """Datasets as a person reads them: "notes roadmap, products fineli and food_fisv"."""
    by_engine: dict[str, list[str]] = {}
    for d in datasets:
        by_engine.setdefault(d.engine, []).append(d.name)
    return ", ".join(f"{engine} {' and '.join(names)}" for engine, names in by_engine.items())


def held_elsewhere() -> str:
    """The datasets that take --queries, named."""
    from engines.eval.catalogue import datasets

    return named(d for d in datasets() if d.queries)


def queries_help() -> str:
    """--queries' help: what it names for each dataset that keeps its held-out requests elsewhere."""
    from engines.eval.catalogue import datasets

    kinds: dict[str, list] = {}
    for d in datasets():
        if d.queries:
            kinds.setdefault(d.queries, []).append(d)
    return "held-out queries kept elsewhere: " + "; ".join(f"{named(ds)}, {what}" for what, ds in kinds.items())


def dataset_arguments() -> dict[str, str]:
    """--NAME -> its help, for each argument a dataset declares for itself (code semble's --repos)."""
    from engines.eval.catalogue import datasets

    out: dict[str, list[str]] = {}
    for d in datasets():
        for option in d.arguments:
            out.setdefault(option.name, []).append(f"{d.engine}, {d.name}: {option.help}")
    return {name: "; ".join(helps) for name, helps in out.items()}


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
