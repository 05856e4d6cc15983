""""Your grades" in the evaluation view: each pane's corpus offered beside the public datasets, the run
kept and compared as `olai-tui eval --judged` keeps it, and which first rows are wrong.

Every pane is offered, opened or not: a pane not shown yet names its configurations from its engine's
class (its tiers and ``answer``), and its engine is opened when the run asks for it, on the run's thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from engines.eval.catalogue import Suite
from engines.eval.runner import Table


@dataclass(frozen=True)
class GradedCorpus:
    """A pane's corpus, offered as "your grades": its engine and corpus (asked for when run) and configurations."""

    engine: str
    label: str
    corpus_now: Callable[[], object]
    configs: tuple[str, ...]
    engine_now: Callable[[], object]


def graded_corpora(panes) -> list[GradedCorpus]:
    """Each pane's corpus as "your grades", whether its engine is open yet or not."""
    out = []
    for pane in panes:
        adapter = pane.adapter
        kind = adapter.engine if adapter.made else adapter.kind  # tiers are declared on the class
        configs = (*kind.tiers, "answer")  # runner.engine_configs: each tier's own ranking, and the default search
        label = adapter.label or (str(adapter.corpus) if adapter.corpus is not None else adapter.name)
        out.append(GradedCorpus(adapter.name, label, lambda adapter=adapter: adapter.graded_corpus, configs,
                                lambda adapter=adapter: adapter.engine))
    return out


def kept_and_compared(suite, tables: Sequence[Table]) -> list[str]:
    """A run over your grades kept as `olai-tui eval --judged` keeps it, and what changed since the last
    kept run of the same corpus (as `--against last --force` says it: grades changed since are said first)."""
    from engines.eval.judgements import compare, runs

    grades = runs.grades_of(suite.requests)
    try:
        before = runs.find(suite.engine, suite.corpus, "last")
        kept = runs.record(tables[0], suite.corpus, str(suite.store.path), grades, suite.states)
    except OSError as exc:
        return [f"run not kept: {exc.filename or ''}: {(exc.strerror or str(exc)).lower()}"]
    except Exception as exc:  # noqa: BLE001 - an earlier run that cannot be read: said, this run stands
        return [f"not compared: {exc}"]
    pruned = [f"the {len(kept['pruned'])} oldest runs removed (the latest {runs.KEEP} are kept)"] if kept["pruned"] else []
    if before is None:
        return [f"run kept as {kept['id']}; the next run is compared with it"] + pruned
    # Grades given here since the last run change the figures too: compared (the view is where a person
    # grades and runs again), with the difference said first, as `eval --against --force` says it.
    differ = [f"{line}: figures moved with the grades too" for line in compare.mismatch(before, grades)]
    return differ + compare.compare_lines(compare.compare(before, kept)) + pruned


def first_row_wrong(suite: Suite, tables: Sequence[Table]) -> dict[str, list[str]]:
    """request id -> the configurations whose first row is not a right answer (an empty answer is not a row)."""
    out: dict[str, list[str]] = {}
    for table in tables:
        for row in table.requests:
            request = suite.request(row["id"])
            firsts = {name: suite.verdicts(request, got["top"][:1], got)[0] for name, got in row["configs"].items()
                      if got["top"]}
            wrong = [name for name, first in firsts.items() if not first.right and not first.unrated]
            if wrong:
                out[row["id"]] = wrong
    return out
