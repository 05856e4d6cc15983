"""Every evaluation dataset behind one shape: its requests, configurations, scoring and judged rows.

`olai-tui eval` (olai_tui/evaluate.py) and the workbench's evaluation view (olai_tui/ui/evaluation.py)
both open a dataset here and run it through engines/eval/runner.py, so the terminal table and the
screen show the same figures from the same scoring code. ``open_suite`` raises ``DatasetError`` with
one line naming the file (and line) for a missing dataset or a malformed line. Each dataset builds its
suite in its own package (engines/eval/<dataset>/); the helpers they share are here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from engines.eval.datasets import DatasetError, declared, pick

if TYPE_CHECKING:  # the runner (numpy, the embedder's cache) only when a suite runs: the CLI's help reads the declarations
    from engines.eval.runner import OutcomeScorer, Ranker, Request, Scorer, Table


@dataclass
class Verdict:
    """One row of one configuration's answer to one request, judged."""

    id: str
    title: str
    gain: float | None  # the judgement; None where the dataset judges by kind and rule (food)
    right: bool  # what the dataset counts as a right answer (notes, code: any gain; icecat: rated 3)
    broke_rule: bool = False  # food: the product breaks one of the request's claims or avoid-rules
    label: str | None = None  # how the configuration itself labelled the row (smart: exact, variant, ...)
    unrated: bool = False  # a person's grades: nobody graded this row for this query (a figure over it is a guess)


@dataclass
class Suite:
    engine: str
    dataset: str
    requests: list[Request]
    factories: dict[str, Callable[[], Ranker]]
    columns: tuple[str, ...]
    verdicts: Callable[[Request, Sequence[str], dict], list[Verdict]]
    score: Scorer | None = None
    score_outcome: OutcomeScorer | None = None
    summed: frozenset[str] = frozenset()
    percent: frozenset[str] = frozenset()
    salt: str = ""
    close: Callable[[], None] = field(default=lambda: None)
    setup: object = None  # the dataset's own configurations object (Icecat: smart_milvus's facts, fallbacks)

    def run(self, names: Sequence[str] | None = None, split: str = "both", fresh: bool = False,
            progress: Callable[[int, int], None] | None = None) -> list[Table]:
        from engines.eval.runner import run

        chosen = pick(self.engine, self.dataset, names)
        # only the split asked for is answered: the other's answers were computed and never shown (a
        # third of every dev run's time, the held-out third)
        requests = [r for r in self.requests if split == "both" or r.split == split]
        return run(self.engine, self.dataset, requests, {n: self.factories[n] for n in chosen}, split=split,
                   fresh=fresh, salt=self.salt, progress=progress, score=self.score,
                   score_outcome=self.score_outcome, summed=self.summed)

    def request(self, request_id: str) -> Request:
        return next(r for r in self.requests if r.id == request_id)


def open_suite(engine: str, name: str, data: Path, heldout: Path, progress=None, say=None,
               queries: Path | None = None) -> Suite:
    """The dataset ``name`` of ``engine``; ``data`` is ../shared/data, ``heldout`` ../shared/heldout;
    ``queries``: a request file scored as the held-out split (the roadmap's, kept outside the repository)."""
    found = declared(engine, name)
    if found.open is None:
        raise DatasetError(f"{engine} {name}: runs on its own (olai-tui eval {engine} --dataset {name}), not as a suite")
    try:
        return found.open(data, heldout, progress, say, queries)  # a loader's DataFileError names file and line
    except OSError as exc:
        raise DatasetError(f"{exc.filename or name}: {exc.strerror or exc}") from None


def judged_by_gain(titles: Callable[[str], str], threshold: float = 0.0):
    """Verdicts of a dataset judged by graded gains: a row is right above ``threshold``."""
    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        return [Verdict(i, titles(i), request.judged.get(i, 0.0), request.judged.get(i, 0.0) > threshold)
                for i in ranked]

    return verdicts


def need(path: Path) -> None:
    """DatasetError naming ``path`` when it is not there."""
    if not path.exists():
        raise DatasetError(f"{path}: no such file or folder")
