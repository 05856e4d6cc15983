"""Each scored run kept, and two runs compared: "did this setting, model or version help on my corpus".

A run is one JSON file under ``$XDG_DATA_HOME/olai-tui/runs/<engine>/<hash of the corpus>/<id>.json``
(the corpus keyed as its judgements are), written atomically: when it ran, the source's version and
fingerprint (runner.code_fingerprint: a hash of the engines' source), the models chosen, the settings
read (config.toml, OLAI_RECALL), which grades scored it, and per configuration its figures and each
query's figures and top 10.

Two runs compared, per configuration both have: each figure before and after; the queries whose
nDCG@10 rose or fell; the rows that entered and left each query's top 10, and the top 10s' overlap
as OpenSearch's Search Relevance Workbench measures a pairwise experiment (Jaccard of the two sets);
and a paired t-test over the queries' nDCG@10 (scipy's ttest_rel, the test ranx and PyTerrier's
experiments run): a difference with p under 0.05 is called more than noise, else within noise.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from engines.atomic import atomic_file
from engines.errors import BadInput
from engines.eval.judgements.store import corpus_key
from engines.locations import data_root

FORMAT = 1
SIGNIFICANT = 0.05  # the p under which a paired difference is called more than noise
FIGURE = "ndcg@10"  # the per-query figure queries are compared and tested on


def runs_folder(engine: str, corpus: str) -> Path:
    tag = hashlib.sha256(corpus_key(corpus).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return data_root() / "runs" / engine / tag


def source_version() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    from engines.eval.runner import code_fingerprint, models_chosen

    try:
        release = version("olai-tui")
    except PackageNotFoundError:
        release = "unknown"
    return {"version": release, "fingerprint": code_fingerprint(), "models": models_chosen().removeprefix("|models:")}


def settings_read() -> dict:
    from engines.settings import read_config

    config = read_config()
    return {"config": {k: v for k, v in config.data.items() if k != "keys"},
            "OLAI_RECALL": os.environ.get("OLAI_RECALL", ""), "OLAI_EMBED_MODEL": os.environ.get("OLAI_EMBED_MODEL", "")}


def record(table, corpus: str, graded_by: str) -> dict:
    """The run of ``table`` (the runner's table of a judged suite), kept; returns it with its ``id`` and ``path``."""
    folder = runs_folder(table.engine, corpus)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    run_id, n = stamp, 1
    while (folder / f"{run_id}.json").exists():
        n += 1
        run_id = f"{stamp}-{n}"
    configs = {name: {"metrics": metrics, "queries": {}} for name, metrics in table.metrics.items()}
    for request in table.requests:
        for name, row in request["configs"].items():
            configs[name]["queries"][request["query"]] = {k: v for k, v in row.items() if k != "ms"}
    out = {"format": FORMAT, "id": run_id, "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "engine": table.engine, "corpus": corpus_key(corpus), "source": source_version(),
           "settings": settings_read(), "graded_by": graded_by, "configs": configs}
    path = folder / f"{run_id}.json"
    with atomic_file(path, "w") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)
    return out | {"path": str(path)}


def runs_of(engine: str, corpus: str) -> list[Path]:
    """The kept runs of ``engine`` over ``corpus``, oldest first."""
    folder = runs_folder(engine, corpus)
    return sorted(folder.glob("*.json"), key=lambda p: p.stem) if folder.is_dir() else []


def find(engine: str, corpus: str, ref: str) -> dict:
    """A kept run by ``ref``: a run file's path, a run id, or ``last`` (the latest kept)."""
    path = Path(ref)
    if not path.is_file():
        kept = runs_of(engine, corpus)
        if ref == "last":
            if not kept:
                raise BadInput(f"--against last: no earlier run of {engine} over {corpus_key(corpus)} is kept")
            path = kept[-1]
        else:
            path = next((p for p in kept if p.stem == ref), None)
            if path is None:
                ids = ", ".join(p.stem for p in kept[-5:]) or "none yet"
                raise BadInput(f"--against {ref}: no such run file or run id (the latest kept: {ids}; or 'last')")
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if found.get("format") != FORMAT or "configs" not in found:
            raise ValueError("not a run file of this version")
    except (OSError, ValueError) as exc:
        raise BadInput(f"--against {path}: {exc}") from None
    return found | {"path": str(path)}


def _paired(before: list[float], after: list[float]) -> float | None:
    """The paired t-test's p over queries (None: fewer than two, or no difference at all)."""
    import math

    from scipy.stats import ttest_rel

    if len(before) < 2 or all(a == b for a, b in zip(before, after)):
        return None
    p = float(ttest_rel(after, before).pvalue)
    return None if math.isnan(p) else p


def compare(before: dict, after: dict) -> dict:
    """What changed from ``before`` to ``after``, per configuration both have."""
    out = {"before": before["id"], "after": after["id"], "configs": {}}
    for name, now in after["configs"].items():
        was = before["configs"].get(name)
        if was is None:
            continue
        figures = {k: {"before": was["metrics"].get(k), "after": v} for k, v in now["metrics"].items()
                   if k in was["metrics"] and not k.endswith("_ms")}
        better, worse, rows, overlap, pairs = [], [], [], [], ([], [])
        for query, row in now["queries"].items():
            old = was["queries"].get(query)
            if old is None:
                continue
            a, b = old.get(FIGURE), row.get(FIGURE)
            if a is not None and b is not None:
                pairs[0].append(a)
                pairs[1].append(b)
                if b > a:
                    better.append({"query": query, "before": a, "after": b})
                elif b < a:
                    worse.append({"query": query, "before": a, "after": b})
            top_a, top_b = old.get("top", [])[:10], row.get("top", [])[:10]
            entered = [i for i in top_b if i not in top_a]
            left = [i for i in top_a if i not in top_b]
            union = set(top_a) | set(top_b)
            overlap.append(len(set(top_a) & set(top_b)) / len(union) if union else 1.0)
            if entered or left:
                rows.append({"query": query, "entered": entered, "left": left})
        p = _paired(*pairs)
        out["configs"][name] = {
            "figures": figures, "better": better, "worse": worse, "rows": rows,
            "jaccard@10": round(sum(overlap) / len(overlap), 4) if overlap else None,
            "paired": {"figure": FIGURE, "queries": len(pairs[0]), "p": None if p is None else round(p, 4),
                       "verdict": "no difference" if p is None and pairs[0] == pairs[1] else
                       "too few queries to test" if p is None else
                       "more than noise" if p < SIGNIFICANT else "within noise"}}
    return out


def compare_lines(found: dict) -> list[str]:
    """The comparison as a person reads it, a configuration at a time."""
    lines = [f"against run {found['before']} (this run: {found['after']})"]
    for name, c in found["configs"].items():
        shown = ", ".join(f"{k} {_n(v['before'])} → {_n(v['after'])}" for k, v in c["figures"].items()
                          if v["before"] != v["after"]) or "figures unchanged"
        test = c["paired"]
        p = f", p = {test['p']:.3f}" if test["p"] is not None else ""
        lines.append(f"{name}: {shown}; {test['figure']} over {test['queries']} queries: {test['verdict']}{p};"
                     f" top-10 overlap (Jaccard) {_n(c['jaccard@10'])}")
        for word, moved in (("better", c["better"]), ("worse", c["worse"])):
            for q in moved:
                lines.append(f"  {word}: {q['query']!r} {q['before']:.3f} → {q['after']:.3f}")
        for r in c["rows"]:
            lines.append(f"  {r['query']!r}: entered the top 10: {', '.join(r['entered']) or 'none'};"
                         f" left it: {', '.join(r['left']) or 'none'}")
    return lines


def _n(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.3f}"
