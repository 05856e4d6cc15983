"""Each scored run kept, and two runs compared: "did this setting, model or version help on my corpus".

A run is one JSON file under ``$XDG_DATA_HOME/olai-tui/runs/<engine>/<hash of the corpus>/<id>.json``
(the corpus keyed as its judgements are), written atomically: when it ran, the source's version and
fingerprint (runner.code_fingerprint: a hash of the engines' source), the models chosen, the settings
read (config.toml, OLAI_RECALL), which grades scored it, and per configuration its figures and each
query's figures and top 10.

A run's id is when it ran, ``YYYYMMDDTHHMMSSZ``, with ``-2``, ``-3`` ... for later runs in the same
second: chosen and written under an flock on the folder, so two evals at once keep two runs, and
ordered by (second, number), so ``last`` is the latest (``-10`` after ``-9``). The newest ``KEEP``
runs of an engine's corpus are kept; older ones are removed, and said. Two runs compared: compare.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from engines.atomic import atomic_file, taking_turns
from engines.errors import BadInput
from engines.eval.judgements.store import corpus_key, query_fold
from engines.knobs import kept_with_a_run
from engines.locations import data_root

FORMAT = 1
# Runs kept per engine and corpus: a year of weekly runs; each is ~2-40 KB (a hundred graded queries'
# top 10s), so a corpus's runs stay a few MB at most.
KEEP = 50


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


def grades_of(requests) -> dict:
    """Which grades scored a run: a hash of its (query, item, grade)s, queries matched as the store
    matches them, and the counts a person reads."""
    rows = sorted((query_fold(r.text), item, int(g)) for r in requests for item, g in r.judged.items())
    digest = hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
    return {"sha256": digest, "queries": sorted({q for q, _, _ in rows}), "grades": len(rows)}


def tier_states(engine) -> dict:
    """Each tier's status now (``answered``, ``off``, ``unavailable`` ...): kept with the run."""
    try:
        return {t.name: t.status for t in engine.status().tiers}
    except Exception:  # noqa: BLE001 - a status that cannot be read leaves the run without it
        return {}


def record(table, corpus: str, graded_by: str, grades: dict | None = None, tiers: dict | None = None) -> dict:
    """The run of ``table`` (the runner's table of a judged suite), kept; returns it with its ``id``,
    ``path`` and ``pruned`` (the ids of the oldest runs removed to keep ``KEEP``). ``grades``:
    grades_of(the suite's requests); ``tiers``: each tier's status when it ran (an off tier's figures
    are of no answer). OSError when the data folder cannot be written."""
    folder = runs_folder(table.engine, corpus)
    configs = {name: {"metrics": metrics, "queries": {}} for name, metrics in table.metrics.items()}
    for request in table.requests:
        for name, row in request["configs"].items():
            configs[name]["queries"][request["query"]] = {k: v for k, v in row.items() if k != "ms"}
    out = {"format": FORMAT, "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "engine": table.engine, "corpus": corpus_key(corpus), "source": source_version(),
           "settings": settings_read() | kept_with_a_run(table.engine), "graded_by": graded_by, "grades": grades or {}, "tiers": tiers or {},
           "configs": configs}
    with taking_turns(folder / ".lock"):
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        same = [_order(p)[1] for p in folder.glob(f"{stamp}*.json")]
        run_id = f"{stamp}-{max(same) + 1}" if same else stamp  # after the latest, never a pruned one's id
        out = {"format": FORMAT, "id": run_id} | out
        path = folder / f"{run_id}.json"
        with atomic_file(path, "w", sync_folder=True) as fh:
            json.dump(out, fh, ensure_ascii=False, indent=1)
        pruned = []
        for old in runs_of(table.engine, corpus)[:-KEEP]:
            try:
                old.unlink()
                pruned.append(old.stem)
            except OSError:
                continue
    return out | {"path": str(path), "pruned": pruned}


def _order(path: Path) -> tuple[str, int]:
    stamp, _, n = path.stem.partition("-")
    return stamp, int(n) if n.isdigit() else 1


def runs_of(engine: str, corpus: str) -> list[Path]:
    """The kept runs of ``engine`` over ``corpus``, oldest first."""
    folder = runs_folder(engine, corpus)
    return sorted(folder.glob("*.json"), key=_order) if folder.is_dir() else []


def find(engine: str, corpus: str, ref: str) -> dict | None:
    """A kept run by ``ref``: a run file's path, a run id, or ``last`` (the latest kept; None when no
    run is kept yet: the first run keeps itself)."""
    path = Path(ref)
    if not path.is_file():
        kept = runs_of(engine, corpus)
        if ref == "last":
            if not kept:
                return None
            path = kept[-1]
        else:
            path = next((p for p in kept if p.stem == ref), None)
            if path is None:
                ids = ", ".join(p.stem for p in kept[-5:]) or "none yet"
                raise BadInput(f"--against {ref}: no such run file or run id (the latest kept: {ids}; or 'last')")
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(found, dict) or found.get("format") != FORMAT or "configs" not in found:
            raise ValueError("not a run file of this version")
    except (OSError, ValueError) as exc:
        raise BadInput(f"--against {path}: {exc}") from None
    return found | {"path": str(path)}


