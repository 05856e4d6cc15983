"""`olai-tui bench products`: the default food catalogue (the food dev requests) and, unless
--quick, Icecat (its dev queries); or one --corpus catalogue. Measured in engines/eval/bench/products/measure.py;
declared for the CLI in engines/eval/bench/__init__.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from engines.errors import BadInput, shown
from engines.eval.emit import emit

if TYPE_CHECKING:
    from engines.contract import Console


def bench_products(corpus: Path | str | None, as_json: bool, quick: bool, console: Console) -> int:
    from engines.eval.bench.products.measure import default_queries, icecat_queries, measure
    from engines.locations import demo_corpus as default_corpus, shared_data

    icecat = shared_data() / "products" / "icecat"

    runs: list[tuple[Path | str, list[str]]] = []
    if isinstance(corpus, str):  # a catalogue kept in a database (its URL): the food requests ask it
        runs.append((corpus, default_queries()))
    elif corpus is not None:
        if not corpus.exists():
            raise BadInput(f"{shown(str(corpus))}: no such file or directory")
        folder = corpus if corpus.is_dir() else corpus.parent
        runs.append((corpus, icecat_queries(folder) or default_queries()))
    else:
        runs.append((default_corpus("products"), default_queries()))
        if not quick and icecat.is_dir():
            runs.append((icecat, icecat_queries(icecat)))
    results = [measure(path, queries, progress=console.say) for path, queries in runs]  # BadInput: unreadable
    return emit({"engine": "products", "runs": results}, as_json, print_products_report, console.out)


def print_products_report(report: dict, out: Callable[[str], None]) -> None:
    out("| catalogue | products | load s | index ms | memory MB | recall p50 ms | recall p90 ms | rules judge p50 ms | queries |")
    out("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in report["runs"]:
        out(f"| {r['name']} | {r['products']:,} | {r['load_s']} | {r['index_build_ms']} | "
            f"{r['memory_peak_mb']} | {r.get('recall_p50_ms', '-')} | {r.get('recall_p90_ms', '-')} | "
            f"{r.get('rules_judge_p50_ms', '-')} | {r['queries']} |")
        if r.get("note"):
            out(f"  {r['note']}")
