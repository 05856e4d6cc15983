"""A person's graded queries as an evaluation suite: every configuration of the engine, scored by the one
runner (engines/eval/runner.py) and the one set of metrics (engines/eval/metrics.py) the public
datasets go through.

The figures, per configuration: ``ndcg@10`` (the grades as gains), ``right_first`` (the first row is
graded 3, over the queries that have a 3), ``good_recall@10`` (the share of the rows graded 2 or 3 in
the top 10, over the queries that have one) and ``unrated@10`` (rows of the top 10 with no grade,
summed over the queries: a figure over unrated rows is a guess, so they are counted and listed, as
Quepid lists them). The configurations are the engine's through its contract alone: each tier's own
ranking and ``answer``, the default search (runner.engine_configs).

A corpus changes under its grades (a note edited, a row added), so its answers are measured afresh on
every run rather than read from the answer cache the public datasets use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from engines.eval.datasets import DatasetError, known_configs
from engines.eval.judgements import exchange
from engines.eval.judgements.items import exists, resolve
from engines.eval.judgements.runs import tier_states
from engines.eval.judgements.store import Judgements
from engines.eval.metrics import graded_recall_at, ndcg_at, right_first, unrated_at
from engines.eval.runner import Request, engine_configs, run
from engines.eval.suite import Suite, Verdict

DATASET = "judged"  # the runner's name for a person's own grades (never a declared dataset)
SHOWN = "your grades"
COLUMNS = ("ndcg@10", "right_first", "good_recall@10", "unrated@10", "p50_ms")
RIGHT = 3  # "exactly right": what right_first asks of the first row
GOOD = 2  # "good or a stand-in" and better: what good_recall@10 counts
DEPTH = 100


def judged_metrics(ranked: Sequence[str], judged: Mapping[str, float]) -> dict[str, float | None]:
    return {
        "ndcg@10": ndcg_at(ranked, judged, 10) if any(g > 0 for g in judged.values()) else None,
        "right_first": right_first(ranked, judged, RIGHT),
        "good_recall@10": graded_recall_at(ranked, judged, 10, GOOD),
        "unrated@10": unrated_at(ranked, judged, 10),
    }


@dataclass
class JudgedSuite(Suite):
    """A Suite whose requests are a person's graded queries; ``notes``: what reading the grades found
    (items moved or gone, lines of an imported file skipped), each said once."""

    notes: list[str] = field(default_factory=list)
    store: Judgements | None = None
    corpus: str = ""
    states: dict = field(default_factory=dict)  # each tier's status when opened (kept with the run)
    opened: object = None  # the open engine (its items found by title or path, its settings tried)

    def run(self, names: Sequence[str] | None = None, split: str = "both", fresh: bool = True,
            progress: Callable[[int, int], None] | None = None):
        chosen = pick_configs(self.factories, names)
        return run(self.engine, DATASET, self.requests, {n: self.factories[n] for n in chosen}, split="dev",
                   fresh=True, progress=progress, score=judged_metrics, summed=self.summed)


def pick_configs(factories: Mapping, asked: Sequence[str] | None) -> list[str]:
    return known_configs(list(factories), asked) if asked else list(factories)


def requests_of(graded: Mapping[str, Mapping[str, int]]) -> list[Request]:
    return [Request(f"q{n}", query, {item: float(g) for item, g in grades.items()}, "dev")
            for n, (query, grades) in enumerate(graded.items(), 1) if grades]


def open_judged(engine, corpus: str | Path, file: Path | None = None, queries: Path | None = None,
                close_engine: bool = True) -> JudgedSuite:
    """The suite of ``engine`` (open) over its corpus's kept grades, or over ``file`` (CSV, or TREC qrels
    with ``queries``). DatasetError when there is no graded query to score. ``close_engine``: closing the
    suite closes the engine (the command line's; a pane's engine stays open)."""
    notes: list[str] = []
    store = Judgements(engine.name, corpus)
    if file is not None:
        read = exchange.read_file(file, queries)
        notes += read.problems
        graded = read.by_query()
        source = str(file)
        missing = sorted({item for grades in graded.values() for item in grades if not exists(engine, item)})
        if missing:  # scored as not found, said (issue 57: never a silent 0)
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            notes.append(f"{file}: {len(missing)} graded id{'s are' if len(missing) > 1 else ' is'} not in the corpus "
                         f"({shown}): scored as not found")
    else:
        found = resolve(engine, store)
        notes += [f"{store.path}: {line}" for line in found.lines()]
        graded = {q: {i: g for i, g in grades.items() if i not in found.gone} for q, grades in store.by_query().items()}
        notes += store.problems
        source = str(store.path)
    requests = requests_of(graded)
    if not requests:
        raise DatasetError(f"{source}: no graded queries for {engine.name} over {store.corpus} yet "
                           "(grade rows in the workbench with 0-3, or give --judgements FILE)")

    def titles(item: str) -> str:
        try:
            return engine.read(item).title
        except (KeyError, OSError, ValueError):
            return item

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        return [Verdict(i, titles(i), request.judged.get(i), request.judged.get(i, 0.0) >= GOOD,
                        unrated=i not in request.judged) for i in ranked]

    return JudgedSuite(engine.name, DATASET, requests, engine_configs(engine, DEPTH), COLUMNS, verdicts,
                       summed=frozenset({"unrated@10"}), close=engine.close if close_engine else (lambda: None), notes=notes, store=store,
                       corpus=store.corpus, states=tier_states(engine), opened=engine)
