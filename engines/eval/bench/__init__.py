"""Each engine's benchmark, declared once: `olai-tui bench NAME` runs what is declared here for NAME
and names no engine itself.

The declarations live with the evaluation, not on the registry's spec, because the measuring code is
the evaluation's (engines/eval/bench/<engine>/) and no engine module may import the evaluation
(tests/engines/test_import_graph.py). An engine registered elsewhere declares its bench with
:func:`declare` beside its ``registry.register`` (tests/engines/test_engine_extra.py does).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from engines.declared import Declared

if TYPE_CHECKING:
    from engines.contract import Console


@dataclass(frozen=True)
class Bench:
    engine: str  # the registry's name
    # run(corpus or None for its own corpora, as_json, quick, console) -> exit status; BadInput for a bad corpus
    run: Callable[[Path | None, bool, bool, "Console"], int]
    quick: str = ""  # what --quick leaves out, for the help text


_BENCHES: Declared[str, Bench] = Declared()


def declare(bench: Bench) -> Bench:
    return _BENCHES.declare(bench.engine, bench)


def forget(engine: str) -> None:
    _BENCHES.forget(engine)


def bench_of(engine: str) -> Bench | None:
    return _BENCHES.get(engine)


def benched() -> tuple[str, ...]:
    """The engines with a bench, by name."""
    return tuple(sorted(_BENCHES.keys()))


# -- the built-in engines' benches ---------------------------------------------------------------
def _notes(corpus: Path | None, as_json: bool, quick: bool, console: Console) -> int:
    from engines.eval.bench.notes.command import bench_notes

    return bench_notes(corpus, as_json, quick, console)


def _code(corpus: Path | None, as_json: bool, quick: bool, console: Console) -> int:
    from engines.eval.bench.code.command import bench_code

    return bench_code(corpus, as_json, quick, console)


def _products(corpus: Path | None, as_json: bool, quick: bool, console: Console) -> int:
    from engines.eval.bench.products.command import bench_products

    return bench_products(corpus, as_json, quick, console)


declare(Bench("notes", _notes, "the demo notebook and the roadmap only (no Vaswani)"))
declare(Bench("products", _products, "the default catalogue only (no Icecat)"))
declare(Bench("code", _code, "no CoSQA quality, no embedding of httpx"))
