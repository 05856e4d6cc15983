"""One setting tried on a person's grades, as the workbench's settings view tries it (Quepid's loop: grade,
change a setting, watch the score move, keep the better one).

The engine's default answer (what a pane shows, what ``olai-tui tune`` tunes: search.answers_of)
answers every graded query twice through the one runner (engines/eval/runner.py): with the settings
in force, and with the tried values laid over them (knobs.trying). Each query's nDCG@10 under both is
its delta; the means are the total. A grade changed since is scored again from the kept answers
(judgements/rescore.py), not answered again. Keeping a tried setting goes through the one writer
``tune --adopt`` uses (knobs.keep) and puts it in force in this process at once.

In sample, not cross-validated: the view shows what a change does on the very queries a person is
looking at; ``olai-tui tune`` is the guarded search (folds.py), and the view says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from engines.eval.judgements.rescore import rescored
from engines.eval.judgements.suite import DATASET, judged_metrics
from engines.eval.runner import Request, Table, run
from engines.knobs import Knobs, trying

IN_FORCE, TRIED = "in force", "tried"
FIGURE = "ndcg@10"
SUMMED = frozenset({"unrated@10"})


@dataclass(frozen=True)
class Delta:
    id: str
    query: str
    before: float | None  # None: the query has no row graded above 0 (nDCG is not defined)
    after: float | None

    @property
    def change(self) -> float:
        return (self.after or 0.0) - (self.before or 0.0)


@dataclass
class Trial:
    engine: str
    setting: dict[str, Any]  # the tried values (the knobs changed from those in force)
    table: Table  # one row per graded query, configurations IN_FORCE and TRIED

    def deltas(self) -> list[Delta]:
        """Every graded query, the largest move first (rises before falls of the same size), then by text."""
        out = [Delta(r["id"], r["query"], r["configs"][IN_FORCE].get(FIGURE), r["configs"][TRIED].get(FIGURE))
               for r in self.table.requests]
        return sorted(out, key=lambda d: (-abs(round(d.change, 4)), -d.change, d.query))

    def totals(self) -> tuple[float | None, float | None]:
        """The mean nDCG@10 over the graded queries, with the settings in force and with the tried ones."""
        return self.table.metrics[IN_FORCE].get(FIGURE), self.table.metrics[TRIED].get(FIGURE)

    def moved(self) -> tuple[int, int]:
        """(queries that rose, queries that fell)."""
        changes = [round(d.change, 4) for d in self.deltas()]
        return sum(c > 0 for c in changes), sum(c < 0 for c in changes)

    def rescored(self, requests: Sequence[Request]) -> "Trial":
        """The same answers scored on the grades as they are now (a grade changed since the trial ran)."""
        return Trial(self.engine, self.setting, rescored(self.table, requests, SUMMED))


def try_setting(answer: Callable[[str], list[str]], knobs: Knobs, requests: Sequence[Request],
                setting: Mapping[str, Any], progress: Callable[[int, int], None] | None = None) -> Trial:
    """Every graded query answered with the settings in force and with ``setting`` over them, scored."""
    def config(values: Mapping[str, Any]):
        def ranker(query: str) -> list[str]:
            with trying(knobs, values):
                return answer(query)
        return lambda: ranker

    table = run(knobs.engine, DATASET, list(requests), {IN_FORCE: config({}), TRIED: config(dict(setting))},
                split="dev", fresh=True, salt="trial", progress=progress, score=judged_metrics, summed=SUMMED)[0]
    return Trial(knobs.engine, dict(setting), table)


def indexed(engine, progress: Callable[[int, int, str], None] | None = None, seconds: float = 3600.0) -> None:
    """Wait until what the engine's default tiers need is indexed (``progress(done, of, what)`` meanwhile):
    a trial answered while the meaning index grows would show the index's change as the setting's (the
    demo notebook's answer scored 0.278 before its index was built, 0.877 after). `olai-tui eval` and
    `tune` open their engine waiting for the index; the workbench's engine is already open, so it waits here."""
    engine.wait_for(None, seconds, progress)


def steps(knob, current: Any) -> list:
    """The values the settings view steps ``knob`` through: every whole number of a short int range, else
    nine points over the range, with the default and ``current`` among them; a choice knob's choices."""
    if knob.kind == "choice":
        return list(knob.choices)
    if knob.kind == "int" and knob.high - knob.low <= 12:
        points = list(range(int(knob.low), int(knob.high) + 1))
    else:
        points = [knob.low + (knob.high - knob.low) * i / 8 for i in range(9)]
        points = [int(round(p)) for p in points] if knob.kind == "int" else [round(p, 3) for p in points]
    return sorted(set(points) | {knob.default, current})


def step(knob, current: Any, direction: int) -> Any:
    """The value one step up (``direction`` 1) or down (-1) from ``current``: a range stops at its ends,
    choices go round."""
    values = steps(knob, current)
    at = values.index(current)
    if knob.kind == "choice":
        return values[(at + direction) % len(values)]
    return values[max(0, min(len(values) - 1, at + direction))]


def typed_value(knob, text: str) -> Any:
    """The value a person typed for ``knob``, as the knob takes it; ValueError says why not (one line)."""
    text = text.strip()
    if knob.kind == "choice":
        return knob.check(text)
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number ({knob.range_said()})") from None
    return knob.check(number)
