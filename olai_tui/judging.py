"""`olai-tui eval ENGINE --judged` (or `--judgements FILE`), `--against RUN`, and `olai-tui judgements`:
a person's own grades scored, runs compared, grades imported and exported.

The scoring is the evaluation's (engines/eval/judgements/suite.py through the one runner); this module
reads the arguments, opens the engine through the registry and prints.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from engines.errors import BadInput
from olai_tui.errors import UsageError, shown

ACTIONS = ("import", "export", "where")


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", help="with --judged or --judgements: the corpus graded (default: the demo)")
    p.add_argument("--judged", action="store_true",
                   help="score every configuration on your own grades of --corpus (given in the workbench)")
    p.add_argument("--judgements", metavar="FILE",
                   help="score on the grades in FILE: CSV query,id,grade, or TREC qrels with --queries FILE")
    p.add_argument("--against", metavar="RUN",
                   help="with --judged/--judgements: compare with a kept run (its id, its file, or 'last')")
    p.add_argument("--force", action="store_true",
                   help="with --against: compare even when the two runs were scored on different grades")


def add_command(sub) -> None:
    p = sub.add_parser("judgements", help="your grades of a corpus: import or export them (CSV or TREC qrels), "
                                          "or where they are kept")
    p.add_argument("action", choices=ACTIONS)
    p.add_argument("engine")
    p.add_argument("file", nargs="?", help="import/export: a .csv (query,id,grade) or TREC qrels (with --queries)")
    p.add_argument("--queries", metavar="FILE", help="TREC qrels' queries file: QUERY_ID<TAB>text a line")
    p.add_argument("--corpus", help="the corpus graded (default: the demo)")
    p.add_argument("--json", action="store_true")


def asked(args: argparse.Namespace) -> bool:
    """An eval of a person's own grades, not of a dataset; a bad mix of arguments says why."""
    judged = bool(getattr(args, "judged", False) or getattr(args, "judgements", None))
    if args.judged and args.judgements:
        raise UsageError("--judged and --judgements: give one or the other")
    if judged and args.dataset:
        raise UsageError("--dataset and --judged/--judgements: a dataset is scored on its own judgements")
    if not judged:
        for flag in ("corpus", "against", "force"):
            if getattr(args, flag, None):
                raise UsageError(f"--{flag}: only eval --judged or --judgements takes it")
        if not args.dataset:
            raise UsageError("eval: give --dataset NAME, or --judged (your grades) or --judgements FILE")
    return judged


def _corpus(engine: str, given: str | None):
    """The corpus graded: ``--corpus`` checked as every command checks it, else the engine's demo."""
    from engines import registry
    from olai_tui.corpus_argument import corpus_given

    found = corpus_given(given, engine) or registry.spec(engine).default_corpus()
    if found is None:
        raise UsageError(f"{engine}: give a corpus (--corpus PATH)")
    return found


def evaluate_judged(engine_name: str, args: argparse.Namespace) -> int:
    from engines.eval.judgements import compare, runs
    from engines.eval.judgements.suite import open_judged
    from engines.knobs import kept_with_a_run, said_in_force
    from olai_tui.commands import open_engine
    from olai_tui.evaluate import markdown
    from olai_tui.progress import Progress

    say = lambda text: print(f"eval: {text}", file=sys.stderr)  # noqa: E731
    file = Path(args.judgements) if args.judgements else None
    if file is not None and not file.is_file():
        raise UsageError(f"--judgements {shown(args.judgements)}: no such file")
    if args.force and not args.against:
        raise UsageError("--force: only with --against RUN")
    queries = Path(args.queries) if args.queries else None
    corpus = _corpus(engine_name, args.corpus)
    engine = open_engine(engine_name, corpus, wait_for_index=True)
    kept: dict | None = None
    try:
        before = runs.find(engine_name, str(corpus), args.against) if args.against else None
        if args.against and before is None:
            say(f"--against {args.against}: no earlier run is kept: this run is kept as the first")
        suite = open_judged(engine, corpus, file, queries)
        if said_in_force(engine_name):  # a corpus's own or config.toml's settings (olai-tui settings)
            say(f"settings in force: {said_in_force(engine_name)}")
        for line in suite.notes:
            say(line)
        grades = runs.grades_of(suite.requests)
        differ = compare.mismatch(before, grades) if before is not None else []
        if differ and not args.force:
            raise UsageError(f"--against {args.against}: not compared, " + "; ".join(differ)
                             + " (--force compares anyway)")
        for line in differ:
            say(f"--force: {line}: the comparison below is over the queries both runs scored")
        names = [c.strip() for c in args.configs.split(",") if c.strip()] if args.configs else None
        progress = Progress(f"eval {engine_name} your grades")
        tables = suite.run(names, progress=progress)
        progress.finish()
        graded_by = str(file) if file is not None else str(suite.store.path)
        try:
            kept = runs.record(tables[0], suite.corpus, graded_by, grades, suite.states)
        except OSError as exc:  # a read-only data folder: scored and printed, not kept
            say(f"run not kept: {exc.filename or runs.runs_folder(engine_name, str(corpus))}: "
                f"{(exc.strerror or str(exc)).lower()}")
        against = compare.compare(before, kept) if before is not None and kept is not None else None
        unrated = unrated_lines(tables[0], suite)  # titles read while the engine is open
    except BadInput as exc:
        raise UsageError(str(exc)) from None
    except (RuntimeError, OSError) as exc:  # a tier that cannot run
        raise UsageError(f"eval --judged: {exc}") from None
    finally:
        engine.close()
    table = tables[0]
    off = [f"{name}: {state} when this ran: its figures are of no answer" for name, state in suite.states.items()
           if state in compare.NOT_ANSWERING and name in table.metrics]
    if kept is not None and kept["pruned"]:
        say(f"the {len(kept['pruned'])} oldest runs removed ({', '.join(kept['pruned'][:3])}"
            f"{' ...' if len(kept['pruned']) > 3 else ''}): the latest {runs.KEEP} are kept")
    if args.json:
        out = table.to_json() | {"corpus": suite.corpus, "graded_by": graded_by, "notes": suite.notes,
                                 "tiers": suite.states, "settings": kept_with_a_run(engine_name),
                                 "run": {"id": kept["id"], "path": kept["path"], "pruned": kept["pruned"]}
                                 if kept is not None else None}
        if against is not None:
            out["against"] = against
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return 0
    shown_table = markdown(tables, suite.columns).replace(f"· {table.dataset} ·", "· your grades ·", 1)
    print("\n".join(_off_row(line, suite.states) for line in shown_table.split("\n")))
    for line in off + unrated:
        print(line)
    if against is not None:
        print()
        for line in compare.compare_lines(against):
            print(line)
    if kept is not None:
        say(f"run kept as {kept['id']} ({kept['path']}): compare a later run with --against {kept['id']}")
    return 0


def _off_row(line: str, states: dict) -> str:
    """A table row of a tier that did not answer says so in each figure's cell, not 0.000."""
    from engines.eval.judgements.compare import NOT_ANSWERING

    cells = line.split("|")
    if len(cells) > 3 and states.get(cells[1].strip()) in NOT_ANSWERING:
        state = states[cells[1].strip()]
        return "|".join(cells[:2] + [f" {state} " for _ in cells[2:-1]] + cells[-1:])
    return line


def unrated_lines(table, suite, width: int | None = None) -> list[str]:
    """Each configuration's unrated rows in its top 10s, listed: a figure over them is a guess. Each query's
    list is cut to ``width`` (the terminal's; None: whole) with a count of what was left out (--json has all)."""
    width = width if width is not None else shutil.get_terminal_size().columns
    lines = []
    for name in table.metrics:
        listed = []
        for r in table.requests:
            if r["configs"][name].get("unrated@10"):
                verdicts = suite.verdicts(suite.request(r["id"]), r["configs"][name]["top"], {})
                listed.append((r["query"], [v.id if v.title == v.id else f"{v.title} ({v.id})"
                                            for v in verdicts if v.unrated]))
        if listed:
            lines.append(f"{name}: unrated in the top 10 (a figure over them is a guess: grade them):")
            lines += [listed_within(f"  {query!r}: ", items, width) for query, items in listed]
    return lines


def listed_within(head: str, items: list[str], width: int, separator: str = "; ") -> str:
    """``head`` and as many whole ``items`` as fit ``width`` cells, then ``… +N more`` for the rest; an item
    too long even alone is cut at a word (``…``). At least one item is always said."""
    from rich.cells import cell_len
    from rich.text import Text

    from olai_tui.ui.text import fit_words

    def more(n: int, after_cut: bool = False) -> str:
        return (f" +{n} more" if after_cut else f" … +{n} more") if n else ""

    line = head
    for i, item in enumerate(items):
        candidate = line + (separator if i else "") + item
        if cell_len(candidate + more(len(items) - i - 1)) <= width:
            line = candidate
            continue
        if i == 0:  # the first item alone is too long: its words that fit
            room = width - cell_len(head + more(len(items) - 1)) - 1
            line = head + fit_words(Text(item), max(room, 8) + 1).plain
            return line + more(len(items) - 1, after_cut=True)
        return line + more(len(items) - i)
    return line


def judgements_command(args: argparse.Namespace) -> int:
    try:
        return _judgements(args)
    except OSError as exc:  # a file or the data folder that cannot be written: one line, exit 2
        raise UsageError(f"judgements {args.action}: {exc.filename or ''}: {(exc.strerror or str(exc)).lower()}") from None


def _judgements(args: argparse.Namespace) -> int:
    from engines import registry
    from engines.eval.judgements import exchange
    from engines.eval.judgements.store import Judgements

    registry.spec(args.engine)
    corpus = _corpus(args.engine, args.corpus)
    store = Judgements(args.engine, corpus)
    if args.action == "where":
        print(json.dumps({"file": str(store.path), "corpus": store.corpus}) if args.json else store.path)
        return 0
    if not args.file:
        raise UsageError(f"judgements {args.action}: name the file (.csv, or TREC qrels with --queries FILE)")
    file = Path(args.file)
    queries = Path(args.queries) if args.queries else None
    if args.action == "export":
        graded = [(j.query, j.item, j.grade) for j in store.all().values()]
        for line in store.problems:  # damaged lines of the journal: named, the rest exported
            print(f"olai-tui: {line}", file=sys.stderr)
        if file.suffix.lower() == ".csv":
            count = exchange.write_csv(file, graded)
        elif queries is None:
            raise UsageError(f"{shown(args.file)}: TREC qrels need a queries file beside them (--queries FILE),"
                             " or give a .csv")
        else:
            count = exchange.write_qrels(file, queries, graded)
        print(f"{count} grades of {store.corpus} written to {file}", file=sys.stderr)
        return 0
    read = exchange.read_file(file, queries)
    for line in read.problems + unknown_ids(args.engine, corpus, read):
        print(f"olai-tui: {line}", file=sys.stderr)
    try:
        store.write([(q, item, grade, "", "") for q, item, grade in read.grades])
    except OSError as exc:  # all or nothing: the journal is as it was
        raise UsageError(f"judgements import: nothing imported from {file}: {exc.filename or store.path}: "
                         f"{(exc.strerror or str(exc)).lower()} (the grades kept before are unchanged)") from None
    for line in store.problems:
        print(f"olai-tui: {line}", file=sys.stderr)
    print(f"{len(read.grades)} grades read from {file} into {store.path}"
          + (f"; {len(read.problems)} lines skipped" if read.problems else ""), file=sys.stderr)
    return 0


UNKNOWN_SHOWN = 10  # unknown ids named one a line; past this, counted


def unknown_ids(engine_name: str, corpus, read) -> list[str]:
    """Each imported id the corpus does not hold now, named with its line (imported all the same: a note
    may come back; eval names it again as not in the corpus)."""
    from olai_tui.commands import open_engine

    if not read.grades:
        return []
    engine = open_engine(engine_name, corpus, wait_for_index=False)
    try:
        known: dict[str, bool] = {}
        lines = []
        for where, (_, item, _) in zip(read.at, read.grades):
            if item not in known:
                try:
                    engine.read(item)
                    known[item] = True
                except (KeyError, OSError, ValueError):
                    known[item] = False
                    lines.append(f"{where}: id {item!r} is not in {engine_name}'s corpus now: kept, it scores as "
                                 "not found until it is")
    finally:
        engine.close()
    if len(lines) > UNKNOWN_SHOWN:
        lines = lines[:UNKNOWN_SHOWN] + [f"and {len(lines) - UNKNOWN_SHOWN} more ids not in the corpus"]
    return lines
