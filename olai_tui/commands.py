"""`olai-tui search` and `olai-tui index` for any engine the registry lists: printed for people or as JSON."""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
import time
from pathlib import Path

from engines.answer import Answer, still_building
from engines.contract import Engine
from engines.errors import BadInput
from engines.terminal_text import json_text, one_line, print_bold
from olai_tui.errors import UsageError
from olai_tui.places import LEGEND, places_moved
from olai_tui.products_text import print_products
from olai_tui.progress import Progress, WaitLine


SKIPPED_SHOWN = 50  # each skipped file named; a catalogue with thousands of bad lines is summed up after 50


def said(problem) -> str:
    """How a corpus problem is named: "skipped PATH: CAUSE", or "PATH: CAUSE" for a note still read
    (a malformed front matter: the note is searched as text)."""
    return problem.said() if hasattr(problem, "said") else f"skipped {problem}"


def open_engine(name: str, corpus: Path | None, wait_for_index: bool, progress: WaitLine | None = None,
                **options) -> Engine:
    """The registry's engine ``name`` over ``corpus``; each skipped file or line named once on stderr;
    ``progress``: the line that shows what the command waits on (reading a large tree, a first index)."""
    from engines import registry

    try:
        engine = registry.open_engine(name, corpus, wait_for_index=wait_for_index, progress=progress, **options)
    except BadInput as exc:
        raise UsageError(" ".join(str(exc).split())) from None
    finally:
        if progress is not None:
            progress.clear()
    skipped = list(engine.problems)
    for problem in skipped[:SKIPPED_SHOWN]:  # the good files are still searched
        print(f"olai-tui: {said(problem)}", file=sys.stderr)
    if len(skipped) > SKIPPED_SHOWN:
        print(f"olai-tui: skipped {len(skipped) - SKIPPED_SHOWN} more ({len(skipped)} in all)", file=sys.stderr)
    return engine


# How long a one-shot `olai-tui search` waits for a meaning index that is still building before it
# answers with what is ready (the evidence tiers, and the meaning of what is indexed) and says what is
# still indexing: a person at a prompt, or a script, is not kept waiting for an hours-long build.
# `--wait` waits for the whole index; `olai-tui index` builds it with a progress bar. The MCP face's
# grace is the same 1.5 s. On the 100,000-note vault (text index warm, meaning cold) the whole command
# took 4.06-4.45 s wall over three runs (docs/bench-notes.md, "One-shot search on a cold vault").
SEARCH_WAIT_S = 1.5


def search(engine_name: str, query: str, corpus: Path | None, limit: int, tiers: str | None, as_json: bool,
           wait: float | None = None, **options) -> int:
    budget = SEARCH_WAIT_S if wait is None else wait
    waiting = WaitLine(engine_name)
    engine = open_engine(engine_name, corpus, wait_for_index=math.isinf(budget), progress=waiting, **options)
    if hasattr(engine, "answer_by") and not math.isinf(budget):
        # the notes engine spends what is left of the budget on the model's vectors of the notes the
        # query is about (engines/notes/first_notes.py); other engines answer when the wait ends
        engine.answer_by = time.monotonic() + budget
    try:
        try:
            wanted = engine.parse_tiers(tiers)
            if not math.isinf(budget):
                engine.wait_for(wanted, budget, progress=waiting)
            answer = engine.collect(query, engine.search(query, limit=limit, tiers=tiers))
        except ValueError as exc:  # an unknown tier, said before any work
            raise UsageError(f"--tiers: {exc}") from None
    finally:
        waiting.clear()
        engine.close()
    for notice in engine.notices():  # the config's problems, what the search found out (a cache rebuilt)
        print(f"olai-tui: {notice}", file=sys.stderr)
    finish = _how_to_finish(engine_name, corpus, options)
    for report in answer.tiers:
        if report.status == "indexing":
            report.enable = report.enable or finish
            print(f"olai-tui: {report.name} is still indexing ({report.done or 0:,}/{report.of or 0:,} "
                  f"{engine.item_noun}): answered with what is indexed; to finish: {finish}", file=sys.stderr)
        elif still_building(report):
            report.enable = report.enable or finish
            print(f"olai-tui: {report.name} answered for every item: the model's vectors for {report.done or 0:,}/"
                  f"{report.of or 0:,} {engine.item_noun}, static vectors for the rest (the model's still building); "
                  f"to finish: {finish}", file=sys.stderr)
    if as_json:
        # the exact text, with what a terminal would act on escaped (C1, bidi): it reads back the same
        sys.stdout.write(json_text(json.dumps(answer.to_json(), ensure_ascii=False)) + "\n")
    else:
        RENDERERS.get(engine.presentation.printout, print_answer)(answer)
    return 0


def _how_to_finish(engine_name: str, corpus: Path | None, options: dict) -> str:
    """The command that builds the whole index a search did not wait for, as the person would type it."""
    where = [f"--corpus {typed(str(corpus))}"] if corpus is not None else []
    for name, value in options.items():
        if value in (None, False, [], ()):
            continue
        if value is True:
            where.append(f"--{name.replace('_', '-')}")
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        where.append(f"--{name.replace('_', '-')} " + ",".join(typed(str(v)) for v in values))
    return " ".join(["olai-tui index", engine_name, *where]) + " (or search with --wait)"


def typed(word: str) -> str:
    """A word as a shell reads it back: quoted, and a name holding control characters in bash's $'...'
    with each one as \\xHH, so the suggested command can be pasted and is never printed raw."""
    if word.isprintable():
        return shlex.quote(word)
    return "$'" + "".join(ch if ch.isprintable() and ch not in "'\\" else
                          "".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))
                          for ch in word) + "'"


def index(engine_name: str, corpus: Path | None, **options) -> int:
    engine = open_engine(engine_name, corpus, wait_for_index=True, progress=WaitLine(engine_name), **options)
    for line in engine.readings():  # how the corpus was read (products: the column mapping): what to correct
        print(line)
    try:
        progress = Progress(f"indexing {engine_name}")
        state = engine.build_index(progress=progress)
        for notice in engine.notices():
            print(f"olai-tui: {notice}", file=sys.stderr)
    finally:
        engine.close()
    if state is None:
        progress.finish(f"{engine.describe()}: nothing to index")
        return 0
    if state.state == "ready":
        progress.finish(engine.index_summary(state))
        return 0
    print(f"olai-tui: {engine_name} index {state.state}: {state.reason}"
          + (f" (to enable: {state.enable})" if state.enable else ""), file=sys.stderr)
    return 1


def print_answer(answer: Answer, stream=None) -> None:
    out = stream or sys.stdout
    bold = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    # Code rows say their language (a repository mixes them: C headers in a Go module, Lua in Vim plugins).
    languages = any(isinstance(hit.extras.get("language"), str) for hit in answer.hits)
    moved = places_moved(answer.hits)  # a row meaning moved among its tier's rows: lexical ↑
    for hit in answer.hits:
        marker = hit.marker or " "
        title = one_line(hit.title)[:60]  # shown before padding, so a pictured row keeps its columns
        language = f"{hit.extras.get('language') or '':<10}  " if languages else ""
        tier = f"{hit.tier} {moved[hit.id]}" if hit.id in moved else hit.tier
        print(f"{marker} {title:<60}  {one_line(hit.where):<40}  {language}{tier:<9} {hit.score:.3f}", file=out)
    if not answer.hits:
        print("(no matches)", file=out)
    chips = []
    for t in answer.tiers:
        chip = f"{t.name}: {t.status}"
        if t.ms is not None:
            chip += f" {t.ms:.1f} ms"
        if t.status == "indexing" or still_building(t):
            chip += f" {t.done or 0:,}/{t.of or 0:,}"
        if t.reason:
            chip += f" ({t.reason})"
        if t.enable and (t.status in ("unavailable", "off", "indexing") or still_building(t)):
            chip += f" [enable: {t.enable}]"
        chips.append(chip)
    if answer.extras.get("backend"):  # an engine routed to a remote backend says who answered (code on Milvus)
        chips.append(f"via {answer.extras['backend']}"
                     + (f" ({answer.extras['backend_fallback']})" if answer.extras.get("backend_fallback") else ""))
    if moved:
        chips.append(LEGEND)
    line = " · ".join(chips) + f" · total {answer.total}"
    print_bold(line, out, bold)


# How a person reads an answer on the terminal, by the layout the engine declares
# (``Presentation.printout``): "judged" is the words as read, a badge per row, "we do not sell that".
RENDERERS = {"judged": print_products}
