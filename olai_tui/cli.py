"""The olai-tui command line: the workbench, search, index and bench, over the same engines.

Exit status: 0 answered (even with no hits), 2 bad arguments or an unreadable corpus, with one line
on stderr naming the argument or path and the cause. Never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import nullcontext
from pathlib import Path

from engines import registry
from engines.errors import BadInput
from olai_tui import interrupt
from olai_tui.errors import UsageError, shown

COMMANDS = ("search", "index", "eval", "bench", "mcp", "model")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, as for every other bad argument
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="olai-tui", description="A terminal search workbench: notes, products and code.")
    parser.add_argument("--version", action="version", version=f"olai-tui {_version()}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    for spec in registry.specs():
        if spec.name in COMMANDS:
            continue  # an engine may not shadow a command
        p = sub.add_parser(spec.name, help=f"open the workbench on your own corpus: {spec.summary}")
        p.add_argument("path")

    p = sub.add_parser("search", help="answer one query and print the envelope")
    p.add_argument("engine", help=f"one of: {', '.join(registry.names())}")
    p.add_argument("query")
    p.add_argument("--corpus", help="a folder or file (default: the embedded demo)")
    p.add_argument("--limit", type=_positive_int, default=10)
    p.add_argument("--tiers", help="comma-separated tiers (an unknown one is answered with the engine's own list)")
    _engine_options(p)
    p.add_argument("--json", action="store_true", help="print the answer object as JSON on stdout")

    p = sub.add_parser("index", help="build or refresh an engine's index, with a progress bar")
    p.add_argument("engine", help=f"one of: {', '.join(registry.names())}")
    p.add_argument("--corpus")
    _engine_options(p)
    p.add_argument("--backend", choices=("memory", "milvus"), default="memory",
                   help="products: milvus publishes the catalogue to Milvus at --uri")
    p.add_argument("--uri", help="products: the Milvus to publish to (http://HOST:19530)")
    p.add_argument("--rollback", action="store_true", help="products, milvus: move the alias back one version")
    p.add_argument("--status", action="store_true", help="products, milvus: list the published versions")
    p.add_argument("--index-type", default="FLAT", help="products, milvus: the vector index (FLAT; HNSW on a cluster)")
    p.add_argument("--force", action="store_true",
                   help="products, milvus: publish a new version even when the rows are those already published")

    p = sub.add_parser("eval", help="every configuration side by side on a dataset")
    p.add_argument("engine", help=f"one of: {', '.join(registry.names())}")
    p.add_argument("--dataset", required=True)
    p.add_argument("--configs", help="comma-separated configurations (default: all of the engine's)")
    p.add_argument("--split", choices=("dev", "heldout", "both"), default="both")
    p.add_argument("--fresh", action="store_true", help="measure again instead of reading cached answers")
    p.add_argument("--queries", help="held-out queries kept elsewhere: code semble, a folder of <repo>.json "
                                     "annotation files; notes roadmap, products fineli and food_fisv, a request file "
                                     "scored as the held-out split")
    p.add_argument("--repos", help="code, semble: only these repositories, comma-separated")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("mcp", help="the engines as MCP tools on stdio, for agents")
    from olai_tui.mcp.server import add_arguments as mcp_arguments

    mcp_arguments(p)

    p = sub.add_parser("model", help="the embedding models: list which engine uses which; install writes e5's GGUF")
    p.add_argument("action", choices=("list", "install"))
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("bench", help="speed, memory and quality figures of an engine")
    p.add_argument("engine", help=f"one of: {', '.join(registry.names())}")
    p.add_argument("--corpus", help="benchmark this corpus only")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quick", action="store_true", help="the demo notebook and the roadmap only (no Vaswani)")
    return parser


def _version() -> str:
    """The installed distribution's version; a checkout run without installing says so."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("olai-tui")
    except PackageNotFoundError:
        return "(not installed: run from a checkout)"


def _engine_options(parser: argparse.ArgumentParser) -> None:
    """Every option some engine declares, as --NAME; an engine that does not take one says so."""
    seen: dict[str, list[str]] = {}
    for spec in registry.specs():
        for option in spec.options:
            seen.setdefault(option.name, []).append(f"{spec.name}: {option.help}")
    for name, helps in sorted(seen.items()):
        parser.add_argument(f"--{name}", help="; ".join(helps))


def _options(args: argparse.Namespace, engine: str) -> dict:
    """The engine options given on the command line, read as the engine declares them."""
    out = {}
    for spec in registry.specs():
        for option in spec.options:
            value = getattr(args, option.name, None)
            if value is None or option.name in out:
                continue
            if option.kind == "list":
                items = [v.strip() for v in value.split(",") if v.strip()]
                if not items:
                    one = option.name.removesuffix("s")
                    raise UsageError(f"--{option.name}: no {one} named (give NAME[,NAME...])")
                value = items
            out[option.name] = value
    known = {o.name for o in registry.spec(engine).options}
    for name in out:
        if name not in known:
            raise UsageError(f"--{name}: only the {_takers(name)} engine takes it, not {engine}")
    return out


def _takers(option: str) -> str:
    return ", ".join(s.name for s in registry.specs() if any(o.name == option for o in s.options))


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
        handles_ctrl_c = args.command not in COMMANDS or args.command == "mcp"  # the workbench and MCP do it themselves
        with nullcontext() if handles_ctrl_c else interrupt.recorded():
            return _dispatch(args)
    except (UsageError, BadInput) as exc:
        print(f"olai-tui: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("olai-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "mcp":
        from olai_tui.mcp.server import run

        return run(args)
    if args.command is None or args.command not in COMMANDS:
        from olai_tui.workbench import run_app

        pane = args.command or registry.specs()[0].name  # the first registered engine's pane
        return run_app({pane: _corpus(getattr(args, "path", None), pane)}, pane=pane)
    engine = getattr(args, "engine", None)
    if engine is not None:
        registry.spec(engine)  # UnknownEngine: exit 2, the known names listed
    if args.command == "index" and engine != "products" and \
            (args.backend != "memory" or args.uri or args.rollback or args.status or args.force):
        raise UsageError(f"--backend/--uri/--rollback/--status/--force: only products publish to Milvus, not {engine}")
    if args.command == "index" and engine == "products" and \
            (args.backend != "memory" or args.uri or args.rollback or args.status or args.force):
        from olai_tui import commands_products

        corpus = _corpus(args.corpus, "products") or registry.spec("products").default_corpus()
        return commands_products.index_products_milvus(corpus, args)
    if args.command in ("search", "index"):
        from olai_tui import commands

        options = _options(args, engine)
        instead = [o.name for o in registry.spec(engine).options if o.instead_of_corpus and options.get(o.name)]
        if instead and args.corpus is not None:
            raise UsageError(f"--{instead[0]} and --corpus: give one or the other")
        corpus = None if instead else _corpus(args.corpus, engine)
        if args.command == "index":
            return commands.index(engine, corpus, **options)
        return commands.search(engine, args.query, corpus, args.limit, args.tiers, args.json, **options)
    if args.command == "eval":
        from olai_tui.evaluate import evaluate

        return evaluate(engine, args.dataset, args.configs, args.split, args.fresh, args.json,
                        queries=args.queries, repos=args.repos)
    if args.command == "bench":
        return _bench(engine, args)
    if args.command == "model":
        from engines.eval import model

        return model.install() if args.action == "install" else model.list_models(args.json)
    raise UsageError(f"unknown command {args.command!r}")


def _bench(engine: str, args: argparse.Namespace) -> int:
    corpus = Path(args.corpus) if args.corpus else None
    if engine == "products":
        from olai_tui import commands_products

        return commands_products.bench_products(corpus, args.json, args.quick)
    if engine == "code":
        from olai_tui.bench import bench_code

        return bench_code(corpus, args.json, args.quick)
    if engine == "notes":
        from olai_tui.bench import bench

        return bench(engine, corpus, args.json, args.quick)
    raise UsageError(f"bench: no benchmark for {engine} (benchmarks: code, notes, products)")


def _corpus(path: str | None, engine: str) -> Path | str | None:
    if path is None:
        return None  # the engine's own default (its demo corpus)
    if registry.spec(engine).corpus_urls and path.lower().startswith(registry.spec(engine).corpus_urls):
        return path  # a corpus the engine reads from a URL (products: a catalogue kept in a database)
    corpus = Path(path)
    if not corpus.exists():
        raise UsageError(f"{shown(path)}: no such file or directory")
    if not os.access(corpus, os.R_OK):
        raise UsageError(f"{shown(path)}: permission denied")
    return corpus


if __name__ == "__main__":
    sys.exit(main())
