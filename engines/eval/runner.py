"""The side-by-side runner: every configuration over the same requests, through the same scoring code.

A configuration is a function query -> ranked ids. Each request's answer is cached with its timing
(under ``$XDG_CACHE_HOME/olai-tui/eval/``, keyed by the dataset, the configuration, the model and a
fingerprint of the engines' source), so a second run only prints; ``fresh=True`` measures again.
An interrupted run keeps what it had cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Union

from engines.embed.cache import cache_root
from engines.eval.metrics import percentile, ranking_figures

# A configuration answers a query with ranked ids, or ranked ids and extras the scoring reads (labels, flags).
Ranker = Callable[[str], Union[list[str], tuple[list[str], dict]]]
Scorer = Callable[[Sequence[str], Mapping[str, float]], Mapping[str, "float | None"]]


@dataclass
class Request:
    id: str
    text: str
    judged: dict[str, float]  # id -> gain (> 0 relevant)
    split: str = "dev"
    spec: Any = None  # what a dataset's own scoring needs beyond gains (a food request's kinds and rules)


@dataclass
class Outcome:
    ranked: list[str]
    ms: float
    extras: dict = field(default_factory=dict)


# Scores one configuration's outcome for one request: figure -> value (None: not defined for it).
OutcomeScorer = Callable[[Outcome, Request], Mapping[str, "float | None"]]


def by_gains(score: Scorer) -> OutcomeScorer:
    """A scorer of (ranked ids, judged gains), the usual shape, as one of (outcome, request)."""
    return lambda outcome, request: score(outcome.ranked, request.judged)


@dataclass
class Table:
    engine: str
    dataset: str
    split: str
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"engine": self.engine, "dataset": self.dataset, "split": self.split,
                "configs": {name: {"metrics": m} for name, m in self.metrics.items()}, "requests": self.requests}


def split_of(text: str, heldout_share: int = 3) -> str:
    """dev or heldout, by a hash of the request text: a third held out, the same on every machine."""
    return "heldout" if hashlib.sha256(text.encode("utf-8")).digest()[0] % heldout_share == 0 else "dev"


def ranking_metrics(ranked: Sequence[str], judged: Mapping[str, float]) -> dict[str, float]:
    """nDCG@10, MRR@10 and recall@1, @10, @100 (engines/eval/metrics.py: ir-measures)."""
    return ranking_figures(ranked, judged)


def code_fingerprint() -> str:
    """A hash of every engines/*.py source and the data the engines read (the notes probes, the request
    sets: *.txt, *.jsonl): a change to either measures again. A run started from a script outside
    this repository (an experiment that patches the engines at run time) adds the script's text, so
    its answers are kept apart from the shipped code's: without it such a run stored its figures
    under the shipped code's key, and the next plain run printed them."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(p for pattern in ("*.py", "*.txt", "*.jsonl") for p in root.rglob(pattern)):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if main:
        script = Path(main).resolve()
        if not script.is_relative_to(root.parent):
            try:
                digest.update(b"started from " + script.read_bytes())
            except OSError:
                digest.update(b"started from " + str(script).encode())
    return digest.hexdigest()[:16]


def models_chosen() -> str:
    """Which embedding model each engine uses now (OLAI_EMBED_MODEL, config.toml): answers measured with
    one model are never printed for another (docs/embedders.md measures both side by side)."""
    from engines.embed.choose import DEFAULTS, chosen

    return "|models:" + ",".join(f"{e}={spec.key}:{path or ''}" for e in sorted(DEFAULTS)
                                  for spec, path, _ in [chosen(e)])


def _settings(engine: str) -> str:
    """The engine's settings in force that are not the defaults (engines/knobs.py): part of the cache key."""
    from engines.knobs import not_the_defaults

    changed = not_the_defaults(engine)
    return "|settings:" + json.dumps(changed, sort_keys=True) if changed else ""


class AnswerCache:
    def __init__(self, engine: str, dataset: str, config: str, salt: str, fresh: bool) -> None:
        key = hashlib.sha256(f"{engine}|{dataset}|{config}|{salt}".encode()).hexdigest()[:20]
        self.path = cache_root() / "eval" / f"{engine}-{dataset}-{config}-{key}.json"
        self.rows: dict[str, dict] = {}
        if not fresh:
            try:
                self.rows = json.loads(self.path.read_text())
            except (OSError, ValueError):
                self.rows = {}
        self._dirty = False

    def get(self, query: str) -> Outcome | None:
        row = self.rows.get(query)
        return Outcome(row["ranked"], row["ms"], row.get("extras") or {}) if row else None

    def put(self, query: str, outcome: Outcome) -> None:
        self.rows[query] = {"ranked": outcome.ranked, "ms": outcome.ms}
        if outcome.extras:
            self.rows[query]["extras"] = outcome.extras
        self._dirty = True

    def save(self) -> None:
        if not self._dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as fh:
                json.dump(self.rows, fh)
            os.replace(tmp, self.path)
            self._dirty = False
        except OSError:
            pass  # evaluation still reports; it only measures again next time


def run(engine: str, dataset: str, requests: Sequence[Request], configs: Mapping[str, Callable[[], Ranker]],
        split: str = "both", fresh: bool = False, salt: str = "",
        progress: Callable[[int, int], None] | None = None, score: Scorer | None = None,
        score_outcome: OutcomeScorer | None = None, summed: frozenset[str] = frozenset()) -> list[Table]:
    """One table per split asked for (dev, heldout, or both), a row per configuration.

    ``score`` (ranked ids, judged) -> figures: ``ranking_metrics`` unless a dataset needs others (Icecat's
    graded figures); ``score_outcome`` (outcome, request) -> figures where the scoring needs more (food).
    A figure that is None for a request (not defined for it) is averaged over the requests where it
    is defined; a figure defined for none of them is None; figures in ``summed`` are counted, not
    averaged. Only the configurations' own work is timed; an interrupt keeps every answer cached so far."""
    scorer = score_outcome or by_gains(score or ranking_metrics)
    salt = salt + code_fingerprint() + models_chosen() + _settings(engine)
    outcomes: dict[str, dict[str, Outcome]] = {}
    total, done = len(requests) * len(configs), 0
    for name, make in configs.items():
        cache = AnswerCache(engine, dataset, name, salt, fresh)
        ranker: Ranker | None = None
        outcomes[name] = {}
        try:
            for request in requests:
                outcome = cache.get(request.text)
                if outcome is None:
                    ranker = ranker or make()
                    start = time.perf_counter()
                    answered = ranker(request.text)
                    ms = (time.perf_counter() - start) * 1000
                    ranked, extras = answered if isinstance(answered, tuple) else (answered, {})
                    outcome = Outcome(list(ranked), ms, extras)
                    cache.put(request.text, outcome)
                outcomes[name][request.id] = outcome
                done += 1
                if progress:
                    progress(done, total)
        finally:
            cache.save()
    splits = ["dev", "heldout"] if split == "both" else [split]
    return [_table(engine, dataset, s, [r for r in requests if r.split == s], outcomes, scorer, summed)
            for s in splits]


def _table(engine: str, dataset: str, split: str, requests: Sequence[Request],
           outcomes: Mapping[str, Mapping[str, Outcome]], score: OutcomeScorer,
           summed: frozenset[str] = frozenset()) -> Table:
    table = Table(engine, dataset, split)
    per_request: dict[str, dict] = {r.id: {"id": r.id, "query": r.text, "configs": {}} for r in requests}
    for name, by_id in outcomes.items():
        sums: dict[str, float] = {}
        counts: dict[str, int] = {}
        times = []
        for r in requests:
            outcome = by_id[r.id]
            values = score(outcome, r)
            for k, v in values.items():
                sums.setdefault(k, 0.0)
                counts.setdefault(k, 0)
                if v is not None:
                    sums[k] += v
                    counts[k] += 1
            times.append(outcome.ms)
            per_request[r.id]["configs"][name] = {"top": outcome.ranked[:10], "ms": round(outcome.ms, 3),
                                                   **{k: None if v is None else round(float(v), 4)
                                                      for k, v in values.items()}}
            for key, value in outcome.extras.items():  # labels and flags travel with the answer they describe
                per_request[r.id]["configs"][name][key] = value[:10] if isinstance(value, list) else value
        metrics = {k: (int(v) if k in summed else round(v / counts[k], 4)) if counts[k] else None
                   for k, v in sums.items()}
        metrics["p50_ms"] = round(percentile(times, 50), 3) if times else 0.0
        metrics["p90_ms"] = round(percentile(times, 90), 3) if times else 0.0
        metrics["requests"] = len(requests)
        table.metrics[name] = metrics
    table.requests = list(per_request.values())
    return table


def engine_configs(engine, depth: int = 100) -> dict[str, Callable[[], Ranker]]:
    """Configurations any registered engine has through its contract alone: each tier's own ranking
    (``rank``) and ``answer``, the engine's default search. An engine with no dataset-specific
    configurations is evaluated with these."""
    def tier(name: str) -> Callable[[], Ranker]:
        return lambda: (lambda q: [r.id for r in engine.rank(name, q, depth)])

    configs = {name: tier(name) for name in engine.tiers}
    configs["answer"] = lambda: (lambda q: [h.id for h in engine.collect(q, engine.search(q, limit=depth)).hits])
    return configs
