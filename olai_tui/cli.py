"""The olai-tui command line: the workbench, search, index and bench, over the same engines.

Exit status: 0 answered (even with no hits), 2 bad arguments or an unreadable corpus, with one line
on stderr naming the argument or path and the cause. Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from olai_tui.errors import UsageError, shown
from olai_tui.paths import default_corpus

ENGINES = ("notes", "code", "products")
WORKBENCH = ("notes", "products", "code")  # `olai-tui ENGINE PATH`: the app on your corpus, that pane selected


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, as for every other bad argument
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="olai-tui", description="A terminal search workbench: notes, products and code.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    for engine in WORKBENCH:
        p = sub.add_parser(engine, help=f"open the workbench on your own {engine} corpus")
        p.add_argument("path")

    p = sub.add_parser("search", help="answer one query and print the envelope")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("query")
    p.add_argument("--corpus", help="a folder or file (default: the embedded demo)")
    p.add_argument("--limit", type=_positive_int, default=10)
    p.add_argument("--tiers", help="comma-separated tiers (notes: exact,words,semantic; code: lexical,embedding; products: exact,recall,judge)")
    p.add_argument("--modules", help="code: installed modules to search, comma-separated (instead of --corpus)")
    p.add_argument("--json", action="store_true", help="print the answer object as JSON on stdout")

    p = sub.add_parser("index", help="build or refresh an engine's index, with a progress bar")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("--corpus")
    p.add_argument("--modules", help="code: installed modules to index, comma-separated")
    p.add_argument("--backend", choices=("memory", "milvus"), default="memory",
                   help="products: milvus publishes the catalogue to Milvus at --uri")
    p.add_argument("--uri", help="products: the Milvus to publish to (http://HOST:19530)")
    p.add_argument("--rollback", action="store_true", help="products, milvus: move the alias back one version")
    p.add_argument("--status", action="store_true", help="products, milvus: list the published versions")
    p.add_argument("--index-type", default="FLAT", help="products, milvus: the vector index (FLAT; HNSW on a cluster)")

    p = sub.add_parser("eval", help="every configuration side by side on a dataset")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("--dataset", required=True)
    p.add_argument("--configs", help="comma-separated configurations (default: all of the engine's)")
    p.add_argument("--split", choices=("dev", "heldout", "both"), default="both")
    p.add_argument("--fresh", action="store_true", help="measure again instead of reading cached answers")
    p.add_argument("--queries", help="notes roadmap: a request file scored as the held-out split")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("bench", help="speed, memory and quality figures of an engine")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("--corpus", help="benchmark this corpus only")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quick", action="store_true", help="the demo notebook and the roadmap only (no Vaswani)")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return _dispatch(args)
    except UsageError as exc:
        print(f"olai-tui: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("olai-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.command is None or args.command in WORKBENCH:
        from olai_tui.app import run_app

        pane = args.command or "notes"
        corpus = _corpus(getattr(args, "path", None), pane)
        return run_app(**{f"{pane}_corpus": corpus}, pane=pane)
    if args.command == "index" and args.engine != "products" and \
            (args.backend != "memory" or args.uri or args.rollback or args.status):
        raise UsageError(f"--backend/--uri/--rollback/--status: only products publish to Milvus, not {args.engine}")
    if args.command in ("search", "index", "bench") and args.engine == "products":
        return _products_command(args)
    if args.command in ("search", "index") and args.engine == "code":
        return _code_command(args)
    if getattr(args, "modules", None) is not None:
        raise UsageError(f"--modules: only the code engine searches installed modules, not {args.engine}")
    if args.command == "search":
        from olai_tui.commands import search

        return search(args.engine, args.query, _corpus(args.corpus, args.engine), args.limit, args.tiers, args.json)
    if args.command == "index":
        from olai_tui.commands import index

        return index(args.engine, _corpus(args.corpus, args.engine))
    if args.command == "eval":
        from olai_tui.evaluate import evaluate

        return evaluate(args.engine, args.dataset, args.configs, args.split, args.fresh, args.json,
                        args.queries)
    if args.command == "bench" and args.engine == "code":
        from olai_tui.bench import bench_code

        return bench_code(Path(args.corpus) if args.corpus else None, args.json, args.quick)
    if args.command == "bench":
        from olai_tui.bench import bench

        return bench(args.engine, Path(args.corpus) if args.corpus else None, args.json, args.quick)
    raise UsageError(f"unknown command {args.command!r}")


def _products_command(args: argparse.Namespace) -> int:
    from olai_tui import commands_products

    if getattr(args, "modules", None) is not None:
        raise UsageError("--modules: only the code engine searches installed modules, not products")
    if args.command == "search":
        corpus = _corpus(args.corpus, "products")
        return commands_products.search_products(args.query, corpus, args.limit, args.tiers, args.json)
    if args.command == "index" and (args.backend != "memory" or args.uri or args.rollback or args.status):
        return commands_products.index_products_milvus(_corpus(args.corpus, "products"), args)
    if args.command == "index":
        return commands_products.index_products(_corpus(args.corpus, "products"))
    return commands_products.bench_products(Path(args.corpus) if args.corpus else None, args.json, args.quick)


def _code_command(args: argparse.Namespace) -> int:
    from olai_tui.commands import index_code, search_code

    if args.modules is not None and args.corpus is not None:
        raise UsageError("--modules and --corpus: give one or the other")
    modules = [m.strip() for m in args.modules.split(",") if m.strip()] if args.modules is not None else []
    if args.modules is not None and not modules:
        raise UsageError("--modules: no module named (give NAME[,NAME...])")
    corpus = None if modules else _corpus(args.corpus, "code")
    if args.command == "index":
        return index_code(corpus, modules)
    return search_code(args.query, corpus, modules, args.limit, args.tiers, args.json)


def _corpus(path: str | None, engine: str) -> Path:
    if path is None:
        return default_corpus(engine)
    corpus = Path(path)
    if not corpus.exists():
        raise UsageError(f"{shown(path)}: no such file or directory")
    if not os.access(corpus, os.R_OK):
        raise UsageError(f"{shown(path)}: permission denied")
    return corpus


if __name__ == "__main__":
    sys.exit(main())
