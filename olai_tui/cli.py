"""The olai-tui command line: the workbench, search, index and bench, over the same engines.

Exit status: 0 answered (even with no hits), 2 bad arguments or an unreadable corpus, with one line
on stderr naming the argument or path and the cause. Never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from engines import registry
from engines.contract import Console, Option
from engines.errors import BadInput
from engines.terminal_text import ShownStream
from olai_tui import interrupt
from olai_tui.corpus_argument import corpus_given, is_url
from olai_tui.errors import UsageError

COMMANDS = ("search", "index", "eval", "bench", "mcp", "model", "judgements", "settings", "tune")


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
    p.add_argument("--wait", nargs="?", type=_seconds, const=math.inf, default=None, metavar="SECONDS",
                   help="wait for the meaning index: the whole of it, or at most SECONDS (default: "
                        "answer within a few seconds with what is indexed, and say what is still indexing)")

    p = sub.add_parser("index", help="build or refresh an engine's index, with a progress bar")
    p.add_argument("engine", help=f"one of: {', '.join(registry.names())}")
    p.add_argument("--corpus")
    _engine_options(p)
    _engine_options(p, "index_options")

    p = sub.add_parser("eval", help="every configuration side by side on a dataset")
    p.add_argument("engine", help=f"one of: {', '.join(registry.names())}")
    p.add_argument("--dataset", help="a public dataset (or --judged / --judgements: your own grades)")
    p.add_argument("--configs", help="comma-separated configurations (default: all of the engine's)")
    p.add_argument("--split", choices=("dev", "heldout", "both"), default="both")
    p.add_argument("--fresh", action="store_true", help="measure again instead of reading cached answers")
    from olai_tui.evaluate import dataset_arguments, queries_help

    p.add_argument("--queries", help=queries_help())
    for name, helps in dataset_arguments().items():  # code semble's --repos
        p.add_argument(_flag(name), help=helps)
    from olai_tui.judging import add_command, add_eval_arguments

    add_eval_arguments(p)  # --judged, --judgements FILE, --against RUN, --corpus
    p.add_argument("--json", action="store_true")
    add_command(sub)  # olai-tui judgements import|export|where
    from olai_tui.tuning import add_commands as add_tuning

    add_tuning(sub)  # olai-tui settings ENGINE, olai-tui tune ENGINE

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
    p.add_argument("--quick", action="store_true", help=_quick_help())
    return parser


def _quick_help() -> str:
    """What --quick leaves out, as each engine's bench declares it."""
    from engines.eval.bench import bench_of, benched

    return "; ".join(f"{name}: {bench_of(name).quick}" for name in benched() if bench_of(name).quick)


def _version() -> str:
    """The installed distribution's version; a checkout run without installing says so."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("olai-tui")
    except PackageNotFoundError:
        return "(not installed: run from a checkout)"


def _engine_options(parser: argparse.ArgumentParser, field: str = "options") -> None:
    """Every option some engine declares (``field``: its search options, or its index options), as
    --NAME; an engine that does not take one says so. Search options sorted by name, index options in
    the order declared (products' --backend first). A name several engines declare with other values
    (code's and products' --backend) is checked against the chosen engine's own values by ``_options``."""
    seen: dict[str, tuple[Option, list[str], set]] = {}
    for spec in registry.specs():
        for option in getattr(spec, field):
            entry = seen.setdefault(option.name, (option, [], set()))
            entry[1].append(f"{spec.name}: {option.help}")
            entry[2].add(option.choices)
    taken = set(parser._option_string_actions)  # a search option an index option shares (code's --backend)
    for name, (option, helps, choices) in sorted(seen.items()) if field == "options" else seen.items():
        if _flag(name) in taken:
            action = parser._option_string_actions[_flag(name)]
            action.choices, action.help = None, f"{action.help}; {'; '.join(helps)}"
            continue
        if option.kind == "flag":
            parser.add_argument(_flag(name), action="store_true", help="; ".join(helps))
        else:
            shared = len(choices) == 1
            parser.add_argument(_flag(name), choices=(option.choices or None) if shared else None,
                                default=option.default if shared else None, help="; ".join(helps))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _options(args: argparse.Namespace, engine: str, field: str = "options",
             besides: frozenset = frozenset()) -> dict:
    """The engine options given on the command line (a value other than the declared default), read as
    the engine declares them; ``besides``: names checked elsewhere (an index command's own options)."""
    out = {}
    own = {o.name: o for o in getattr(registry.spec(engine), field)}
    for spec in registry.specs():
        for option in getattr(spec, field):
            value = getattr(args, option.name, None)
            declared = own.get(option.name, option)
            if value is None or value is False or value == declared.default or option.name in out \
                    or option.name in besides:
                continue
            if option.name in own and declared.choices and value not in declared.choices:
                raise UsageError(f"{_flag(option.name)}: {value!r} is not one of {', '.join(declared.choices)}")
            if option.kind == "list":
                items = [v.strip() for v in value.split(",") if v.strip()]
                if not items:
                    one = option.name.removesuffix("s")
                    raise UsageError(f"{_flag(option.name)}: no {one} named (give NAME[,NAME...])")
                value = items
            out[option.name] = value
    for name in out:
        if name not in own:
            raise UsageError(f"{_flag(name)}: only the {_takers(name, field)} not {engine}")
    return out


def _takers(option: str, field: str) -> str:
    """"products engine takes it," or "products and code engines take it," """
    names = [s.name for s in registry.specs() if any(o.name == option for o in getattr(s, field))]
    if len(names) == 1:
        return f"{names[0]} engine takes it,"
    return f"{', '.join(names[:-1])} and {names[-1]} engines take it,"


def _console(name: str) -> Console:
    """Where a declared command (an index command, a bench, a dataset's runner) prints: its output on
    stdout, what it says about the run on stderr after ``name:``, the progress bar and wait line."""
    from olai_tui.progress import Progress, WaitLine

    return Console(out=print, say=lambda line: print(f"{name}: {line}", file=sys.stderr), progress=Progress,
                   waiting=WaitLine)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more: {text}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    with shown_output():
        return _main(argv)


@contextmanager
def shown_output():
    """stdout and stderr as ``ShownStream``s while a command runs: whatever it prints (a title, a path,
    a row a catalogue skipped, a query in an evaluation table) shows its control characters instead of
    sending them to the terminal. JSON is already escaped, so ``--json`` passes through unchanged."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, ShownStream):
        sys.stdout = ShownStream(sys.stdout)
    if not isinstance(sys.stderr, ShownStream):
        sys.stderr = ShownStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _main(argv: list[str] | None) -> int:
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
        return run_app({pane: corpus_given(getattr(args, "path", None), pane)}, pane=pane)
    registry.for_commands()  # no one types into a command: its threads share one heap
    engine = getattr(args, "engine", None)
    if engine is not None:
        registry.spec(engine)  # UnknownEngine: exit 2, the known names listed
    if args.command == "index" and _options(args, engine, "index_options"):
        return _index_command(engine, args)
    if args.command in ("search", "index"):
        from olai_tui import commands

        options = _options(args, engine)
        instead = [o.name for o in registry.spec(engine).options if o.instead_of_corpus and options.get(o.name)]
        if instead and args.corpus is not None:
            raise UsageError(f"--{instead[0]} and --corpus: give one or the other")
        corpus = None if instead else corpus_given(args.corpus, engine)
        if args.command == "index":
            return commands.index(engine, corpus, **options)
        return commands.search(engine, args.query, corpus, args.limit, args.tiers, args.json, wait=args.wait,
                               **options)
    if args.command == "eval":
        from olai_tui import judging
        from olai_tui.evaluate import evaluate

        if judging.asked(args):
            return judging.evaluate_judged(engine, args)

        from olai_tui.evaluate import dataset_arguments

        return evaluate(engine, args.dataset, args.configs, args.split, args.fresh, args.json,
                        queries=args.queries, **{n: getattr(args, n) for n in dataset_arguments()})
    if args.command == "bench":
        return _bench(engine, args)
    if args.command in ("settings", "tune"):
        from olai_tui import tuning

        return tuning.run(args)
    if args.command == "judgements":
        from olai_tui.judging import judgements_command

        return judgements_command(args)
    if args.command == "model":
        from engines.eval import model

        return model.install() if args.action == "install" else model.list_models(args.json)
    raise UsageError(f"unknown command {args.command!r}")


def _index_command(engine: str, args: argparse.Namespace) -> int:
    """`index ENGINE` with one of the engine's index options: the command its spec declares for them."""
    from olai_tui import commands

    spec = registry.spec(engine)
    _options(args, engine, besides=frozenset(o.name for o in spec.index_options))  # another engine's: bad here
    if spec.index_command is None:
        raise UsageError(f"index: {engine} declares index options but no command to run them")
    corpus = corpus_given(args.corpus, engine) or spec.default_corpus()
    options = {o.name: _given(getattr(args, o.name, None), o.default) for o in spec.index_options}
    return spec.index_command(lambda: commands.open_engine(engine, corpus, wait_for_index=True), options,
                              _console("olai-tui"))


def _given(value: Any, default: Any) -> Any:
    return default if value is None else value


def _bench(engine: str, args: argparse.Namespace) -> int:
    """The bench the evaluation declares for ``engine`` (engines/eval/bench/__init__.py)."""
    from engines.eval.bench import bench_of, benched

    found = bench_of(engine)
    if found is None:
        raise UsageError(f"bench: no benchmark for {engine} (benchmarks: {', '.join(benched()) or 'none'})")
    corpus = args.corpus or None  # a bench names a corpus that is not there itself
    if corpus is not None and not is_url(corpus, engine):
        corpus = Path(corpus)
    return found.run(corpus, args.json, args.quick, _console("olai-tui"))


if __name__ == "__main__":
    sys.exit(main())
