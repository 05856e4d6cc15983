"""`olai-tui settings ENGINE`: each knob, its value in force and where it came from. The knobs and
their precedence: engines/knobs.py."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engines.errors import BadInput
from olai_tui.errors import UsageError, shown

COMMANDS = ("settings",)


def add_commands(sub) -> None:
    p = sub.add_parser("settings", help="an engine's settings (knobs): each value in force and where it came from")
    p.add_argument("engine")
    p.add_argument("--corpus", help="the corpus whose own settings count (default: the demo)")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    return settings_command(args)


def _knobs(engine: str):
    from engines import registry
    from engines.knobs import knobs_of

    found = registry.spec(engine)
    knobs = knobs_of(found.engine_class()) if found.engine_class is not None else None
    if knobs is None:
        raise UsageError(f"{engine}: declares no settings yet")
    return knobs


def settings_command(args: argparse.Namespace) -> int:
    from engines.knobs import corpora_path, resolve
    from olai_tui.judging import _corpus

    knobs = _knobs(args.engine)
    corpus = _corpus(args.engine, args.corpus)
    found = resolve(knobs, corpus)
    for line in found.problems:
        print(f"olai-tui: {line}", file=sys.stderr)
    if args.json:
        json.dump({"engine": args.engine, "corpus": str(corpus), "corpora_file": str(corpora_path()),
                   "settings": [k.to_json() | {"value": found.values[k.name], "from": found.sources[k.name]}
                                for k in knobs]}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    width = max(len(k.name) for k in knobs)
    print(f"{args.engine} over {corpus}")
    for k in knobs:
        value = found.values[k.name]
        print(f"  {k.name:<{width}}  {value!s:<8} {found.sources[k.name]:<12} range {k.range_said()}, default {k.default}"
              + (" (read when the index is built)" if k.rebuilds else ""))
        print(f"  {'':<{width}}  {k.does}; chosen by: {k.measured}")
    return 0
