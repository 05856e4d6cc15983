"""`olai-tui settings ENGINE` (each knob, its value in force and where it came from) and `olai-tui tune
ENGINE` (a cross-validated search over the knobs on a person's grades; ``--adopt`` keeps the result
for the corpus). The knobs and their precedence: engines/knobs.py; the search: engines/eval/tune/."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engines.errors import BadInput
from olai_tui.errors import UsageError, shown

COMMANDS = ("settings", "tune")


def add_commands(sub) -> None:
    p = sub.add_parser("settings", help="an engine's settings (knobs): each value in force and where it came from")
    p.add_argument("engine")
    p.add_argument("--corpus", help="the corpus whose own settings count (default: the demo)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("tune", help="search the engine's settings on your grades, cross-validated; --adopt keeps the best")
    p.add_argument("engine")
    p.add_argument("--corpus", help="the corpus graded (default: the demo)")
    p.add_argument("--judged", action="store_true", help="tune on your own grades of --corpus (the workbench's)")
    p.add_argument("--judgements", metavar="FILE", help="tune on the grades in FILE (CSV query,id,grade, or TREC qrels)")
    p.add_argument("--queries", metavar="FILE", help="TREC qrels' queries file (with --judgements)")
    p.add_argument("--budget", type=int, default=None, help="settings to try (default 30, or every knob alone once where that is more)")
    p.add_argument("--folds", type=int, default=None, help="cross-validation folds (default 5)")
    p.add_argument("--adopt", action="store_true", help="write the best setting as this corpus's own")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    return settings_command(args) if args.command == "settings" else tune_command(args)


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
                   "corpus_why": found.why or None,
                   "settings": [k.to_json() | {"value": found.values[k.name], "from": found.sources[k.name]}
                                for k in knobs]}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    width = max(len(k.name) for k in knobs)
    print(f"{args.engine} over {corpus}")
    if found.why:
        print(f"  this corpus's settings: {found.why}")
    for k in knobs:
        value = found.values[k.name]
        print(f"  {k.name:<{width}}  {value!s:<8} {found.sources[k.name]:<12} range {k.range_said()}, default {k.default}"
              + (" (read when the index is built)" if k.rebuilds else "") + ("" if k.scored else " (time, not order)"))
        print(f"  {'':<{width}}  {k.does}; chosen by: {k.measured}")
    return 0


def tune_command(args: argparse.Namespace) -> int:
    from engines.eval.datasets import DatasetError
    from engines.eval.judgements.suite import open_judged
    from engines.eval.tune.folds import FOLDS
    from engines.eval.tune.search import answers_of, budget_for, tune, worth_adopting
    from engines.tiers import recall_switched_off
    from engines.knobs import keep
    from olai_tui.commands import open_engine
    from olai_tui.judging import _corpus
    from olai_tui.progress import Progress

    if args.judged == bool(args.judgements):
        raise UsageError("tune: give --judged (your grades of --corpus) or --judgements FILE")
    for flag, value in (("--budget", args.budget), ("--folds", args.folds)):
        if value is not None and value < (2 if flag == "--folds" else 1):
            raise UsageError(f"{flag} {value}: must be at least {2 if flag == '--folds' else 1}")
    file = Path(args.judgements) if args.judgements else None
    if file is not None and not file.is_file():
        raise UsageError(f"--judgements {shown(args.judgements)}: no such file")
    knobs = _knobs(args.engine)
    corpus = _corpus(args.engine, args.corpus)
    say = lambda text: print(f"tune: {text}", file=sys.stderr)  # noqa: E731
    engine = open_engine(args.engine, corpus, wait_for_index=True)
    try:
        suite = open_judged(engine, corpus, file, Path(args.queries) if args.queries else None, close_engine=False)
        for line in suite.notes:
            say(line)
        progress = Progress(f"tune {args.engine}")
        tuned = tune(answers_of(engine), knobs, suite.requests, args.budget or budget_for(knobs), args.folds or FOLDS, progress=progress)
        progress.finish()
    except (DatasetError, ValueError) as exc:
        raise UsageError(f"tune: {exc}") from None
    except BadInput as exc:
        raise UsageError(str(exc)) from None
    finally:
        engine.close()
    adopted, why_not = None, ""
    if args.adopt:
        ok, why_not = worth_adopting(tuned)
        if ok:
            try:
                adopted = keep(knobs, corpus, tuned.changes(), why=f"olai-tui tune: held-out {tuned.held_out_score:.4f} "
                                f"against {tuned.today_score:.4f} on {tuned.queries} queries"
                                + (" with OLAI_RECALL=off (the meaning tiers off)" if recall_switched_off() else ""))
            except OSError as exc:
                raise UsageError(f"tune --adopt: {exc.filename or ''}: {(exc.strerror or str(exc)).lower()}") from None
    if args.json:
        json.dump(tuned.to_json() | {"corpus": str(corpus), "adopted": str(adopted) if adopted else None,
                                     "not_adopted": why_not or None}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    for line in lines(tuned):
        print(line)
    if adopted:
        print(f"adopted for {corpus}: written to {adopted}; `olai-tui eval {args.engine} --judged` now scores it")
    elif args.adopt:
        print(f"not adopted: {why_not}")
    return 0


def lines(tuned) -> list[str]:
    out = [f"{tuned.engine}: {tuned.tried} settings tried ({tuned.method}) on {tuned.queries} graded queries, "
           f"{tuned.folds}-fold cross-validated, in {tuned.seconds:.1f} s",
           f"today's setting       nDCG@10 {tuned.today_score:.4f}",
           f"tuned (held-out)      nDCG@10 {tuned.held_out_score:.4f}  "
           f"({tuned.held_out_score - tuned.today_score:+.4f}; each query scored by a setting chosen without it)",
           f"best on every query   nDCG@10 {tuned.best_score:.4f}  (chosen on these queries: optimistic)"]
    changes = tuned.changes()
    out.append("best setting: " + (", ".join(f"{k} {tuned.today[k]} -> {v}" for k, v in changes.items())
                                   if changes else "today's (no setting tried beat it)"))
    if changes and tuned.why_not():  # Vaswani dev: this setting lost 0.019 held out
        out.append(f"  not recommended, keep today's: {tuned.why_not()}")
    out.append(f"paired t-test, held-out against today: {tuned.verdict}" + (f" (p = {tuned.p:.3f})" if tuned.p is not None else ""))
    for word, rows in (("helps", tuned.helps), ("hurts", tuned.hurts)):
        if rows:
            out.append(f"it {word} {len(rows)} quer{'y' if len(rows) == 1 else 'ies'}:")
            out += [f"  {q!r}: {a:.3f} -> {b:.3f}" for q, a, b in rows[:10]]
    if tuned.left_out:
        out.append(f"not tuned (read when the index is built, or they trade time and not order: set by hand): "
                   f"{', '.join(tuned.left_out)}")
    return out
