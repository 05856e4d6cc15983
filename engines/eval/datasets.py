"""The evaluation datasets, declared once per engine and dataset: `olai-tui eval`, the workbench's
evaluation view and their help texts read these and name no engine or dataset themselves.

Each dataset that ships declares itself in its package's ``__init__`` (engines/eval/<dataset>/), and
engines/eval/catalogue.py imports every such package: read the declarations through the catalogue.
A dataset or an engine registered elsewhere declares its own with :func:`declare`
(tests/evaluation/dataset_example/ and tests/engines/test_engine_extra.py do). They live with the
evaluation, not on the registry's spec: no engine module may import the evaluation
(tests/engines/test_import_graph.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from engines.contract import Option
from engines.declared import Declared
from engines.errors import BadInput


class DatasetError(BadInput):
    """A dataset that cannot be read: the message is one line naming the file (and line)."""


class DataFileError(DatasetError, ValueError):
    """A dataset's file that its loader cannot read (one line naming the file and line): each loader's
    own error is one of these, so the evaluation reports any of them without naming the loader."""


@dataclass(frozen=True)
class Dataset:
    """One evaluation dataset of one engine, declared once (:func:`declare`): `olai-tui eval`, the
    workbench's evaluation view and their help texts read these and name no dataset or engine.

    ``open(data, heldout, progress, say, queries) -> Suite`` (engines/eval/suite.py): ``data`` is
    ../shared/data, ``heldout`` ../shared/heldout, ``queries`` a file scored as the held-out split. A
    dataset with its own runner instead (semble: per repository, by its own scoring) declares ``run(configs=, split=, fresh=,
    queries=, as_json=, console=, **arguments) -> exit status`` and the ``arguments`` only it takes."""

    engine: str  # the registry's name
    name: str
    configs: Callable[[], tuple[str, ...]]  # its configuration names, known before any file is read
    open: Callable[..., Any] | None = None  # -> Suite
    default_configs: Callable[[], list[str]] | None = None  # what runs without --configs (None: every one)
    queries: str = ""  # held-out requests kept elsewhere: what --queries names (empty: it takes no --queries)
    heldout_hint: str = ""  # said when its held-out table is empty and --queries was not given
    unavailable: Callable[[], dict[str, str]] | None = None  # config -> why it cannot run here (no Milvus)
    # extras(suite, tables, say) -> {"json": fields added to the JSON, "text": what follows the table} (Icecat's)
    extras: Callable[..., dict] | None = None
    run: Callable[..., int] | None = None
    arguments: tuple[Option, ...] = ()


_DATASETS: Declared[tuple[str, str], Dataset] = Declared()


def declare(dataset: Dataset) -> Dataset:
    return _DATASETS.declare((dataset.engine, dataset.name), dataset)


def forget(engine: str, name: str) -> None:
    _DATASETS.forget((engine, name))


def datasets(engine: str | None = None) -> list[Dataset]:
    """The declared datasets (of ``engine``), in the order declared."""
    return [d for d in _DATASETS.values() if engine is None or d.engine == engine]


def declared(engine: str, name: str) -> Dataset:
    """The declared dataset; DatasetError naming the engine's known ones for any other."""
    found = _DATASETS.get((engine, name))
    if found is None:
        known = ", ".join(d.name for d in datasets(engine)) or "none"
        raise DatasetError(f"--dataset: unknown dataset {name!r} for {engine} (known: {known})")
    return found


def configs_of(engine: str, name: str) -> tuple[str, ...]:
    """The configuration names of a dataset, known before any of its files is read."""
    return tuple(declared(engine, name).configs())


def default_configs(engine: str, name: str) -> list[str]:
    """What runs when no --configs is given (food: smart_http only with an endpoint configured)."""
    found = declared(engine, name)
    return list(found.default_configs() if found.default_configs else found.configs())


def known_dataset(engine: str, name: str) -> None:
    """Nothing for a known dataset; an unknown one raises DatasetError naming the known ones."""
    declared(engine, name)


def pick(engine: str, name: str, asked: Sequence[str] | None) -> list[str]:
    """The configurations asked for, in the order given; an unknown one (or dataset) names the known ones."""
    if not asked:
        return default_configs(engine, name)
    return known_configs(configs_of(engine, name), asked)


def known_configs(known: Sequence[str], asked: Sequence[str]) -> list[str]:
    """``asked``, in the order given, each one of ``known``; an unknown one names the known ones."""
    unknown = [c for c in asked if c not in known]
    if unknown:
        raise DatasetError(f"--configs: unknown configuration {unknown[0]!r} (known: {', '.join(known)})")
    return list(asked)


def takes_queries(engine: str, name: str) -> bool:
    """Its held-out requests are kept outside the repository: ``--queries`` is scored as its held-out split."""
    return bool(declared(engine, name).queries)


def without_unavailable(engine: str, name: str, names: list[str]) -> list[str]:
    """Drops (in place) the configurations that cannot run here; a line for each saying why."""
    found = declared(engine, name)
    why = found.unavailable() if found.unavailable else {}
    said = [f"{config} skipped: {why[config]}" for config in names if config in why]
    names[:] = [config for config in names if config not in why]
    return said
