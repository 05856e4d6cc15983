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

ENGINES = ("notes",)  # products and code join when their engines land


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, as for every other bad argument
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="olai-tui", description="A terminal search workbench: notes, products and code.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    for engine in ENGINES:
        p = sub.add_parser(engine, help=f"open the workbench on your own {engine} corpus")
        p.add_argument("path")

    p = sub.add_parser("search", help="answer one query and print the envelope")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("query")
    p.add_argument("--corpus", help="a folder or file (default: the embedded demo)")
    p.add_argument("--limit", type=_positive_int, default=10)
    p.add_argument("--tiers", help="comma-separated tiers (notes: exact,semantic)")
    p.add_argument("--json", action="store_true", help="print the answer object as JSON on stdout")

    p = sub.add_parser("index", help="build or refresh an engine's index, with a progress bar")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("--corpus")

    p = sub.add_parser("eval", help="every configuration side by side on a dataset")
    p.add_argument("engine", choices=ENGINES)
    p.add_argument("--dataset", required=True)
    p.add_argument("--configs", help="comma-separated configurations (default: all of the engine's)")
    p.add_argument("--split", choices=("dev", "heldout", "both"), default="both")
    p.add_argument("--fresh", action="store_true", help="measure again instead of reading cached answers")
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
    if args.command is None or args.command in ENGINES:
        from olai_tui.app import run_app

        corpus = _corpus(getattr(args, "path", None), args.command or "notes")
        return run_app(notes_corpus=corpus)
    if args.command == "search":
        from olai_tui.commands import search

        return search(args.engine, args.query, _corpus(args.corpus, args.engine), args.limit, args.tiers, args.json)
    if args.command == "index":
        from olai_tui.commands import index

        return index(args.engine, _corpus(args.corpus, args.engine))
    if args.command == "eval":
        from olai_tui.evaluate import evaluate

        return evaluate(args.engine, args.dataset, args.configs, args.split, args.fresh, args.json)
    if args.command == "bench":
        from olai_tui.bench import bench

        return bench(args.engine, Path(args.corpus) if args.corpus else None, args.json, args.quick)
    raise UsageError(f"unknown command {args.command!r}")


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
