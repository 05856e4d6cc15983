"""`olai-tui search` and `olai-tui index`: one engine call each, printed for people or as JSON."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from engines.answer import Answer, collect
from engines.notes.corpus import CorpusError
from engines.notes.engine import NotesEngine, parse_tiers
from olai_tui.errors import UsageError
from olai_tui.progress import Progress


def open_notes(corpus: Path, wait_for_index: bool) -> NotesEngine:
    try:
        engine = NotesEngine(corpus, wait_for_index=wait_for_index)
    except CorpusError as exc:
        raise UsageError(str(exc)) from None
    for problem in engine.problems:  # each bad file named once; the good ones are still searched
        print(f"olai-tui: {problem.said()}", file=sys.stderr)
    return engine


def search(engine_name: str, query: str, corpus: Path, limit: int, tiers: str | None, as_json: bool) -> int:
    try:
        wanted = parse_tiers(tiers)
    except ValueError as exc:
        raise UsageError(f"--tiers: {exc}") from None
    engine = open_notes(corpus, wait_for_index=True)
    answer = collect(engine_name, query, engine.search(query, limit=limit, tiers=wanted))
    for notice in engine.semantic.notices() if engine._semantic is not None else []:
        print(f"olai-tui: {notice}", file=sys.stderr)
    if as_json:
        json.dump(answer.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_answer(answer)
    return 0


def index(engine_name: str, corpus: Path) -> int:
    engine = open_notes(corpus, wait_for_index=True)
    progress = Progress(f"indexing {engine_name}")
    state = engine.build_index(progress=progress)
    for notice in engine.semantic.notices():
        print(f"olai-tui: {notice}", file=sys.stderr)
    if state.state == "ready":
        progress.finish(f"{state.of:,} notes, {len(engine.semantic.embedded_texts):,} passages embedded now")
        return 0
    print(f"olai-tui: semantic index {state.state}: {state.reason}" + (f" (to enable: {state.enable})" if state.enable else ""),
          file=sys.stderr)
    return 1


def print_answer(answer: Answer, stream=None) -> None:
    out = stream or sys.stdout
    bold = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    for hit in answer.hits:
        marker = hit.marker or " "
        title = " ".join(hit.title.split())[:60]
        print(f"{marker} {title:<60}  {hit.where:<40}  {hit.tier:<9} {hit.score:.3f}", file=out)
    if not answer.hits:
        print("(no matches)", file=out)
    chips = []
    for t in answer.tiers:
        chip = f"{t.name}: {t.status}"
        if t.ms is not None:
            chip += f" {t.ms:.1f} ms"
        if t.status == "indexing":
            chip += f" {t.done:,}/{t.of:,}"
        if t.reason:
            chip += f" ({t.reason})"
        if t.enable and t.status in ("unavailable", "off"):
            chip += f" [enable: {t.enable}]"
        chips.append(chip)
    line = " · ".join(chips) + f" · total {answer.total}"
    print(f"\x1b[1m{line}\x1b[0m" if bold else line, file=out)


# -- the code engine -----------------------------------------------------------------------------
def open_code(corpus: Path | None, modules: list[str], wait_for_index: bool):
    from engines.code.corpus import CorpusError as CodeCorpusError
    from engines.code.engine import CodeEngine

    try:
        engine = CodeEngine(corpus, modules=modules, wait_for_index=wait_for_index)
    except CodeCorpusError as exc:
        raise UsageError(str(exc)) from None
    for problem in engine.problems:  # each bad file named once; the good ones are still searched
        print(f"olai-tui: skipped {problem}", file=sys.stderr)
    return engine


def search_code(query: str, corpus: Path | None, modules: list[str], limit: int, tiers: str | None,
                as_json: bool) -> int:
    from engines.code.engine import parse_tiers as parse_code_tiers

    try:
        wanted = parse_code_tiers(tiers)
    except ValueError as exc:
        raise UsageError(f"--tiers: {exc}") from None
    engine = open_code(corpus, modules, wait_for_index=True)
    try:
        answer = collect("code", query, engine.search(query, limit=limit, tiers=wanted))
    finally:
        engine.close()
    notices = engine.notices + (engine.vectors.notices() if engine._vectors is not None else [])
    for notice in notices:
        print(f"olai-tui: {notice}", file=sys.stderr)
    if as_json:
        json.dump(answer.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_answer(answer)
    return 0


def index_code(corpus: Path | None, modules: list[str]) -> int:
    engine = open_code(corpus, modules, wait_for_index=True)
    progress = Progress("indexing code")
    state = engine.build_index(progress=progress)
    for notice in engine.vectors.notices():
        print(f"olai-tui: {notice}", file=sys.stderr)
    if state.state == "ready":
        progress.finish(f"{state.of:,} symbols, {len(engine.vectors.embedded_texts):,} embedded now")
        return 0
    print(f"olai-tui: embedding index {state.state}: {state.reason}" + (f" (to enable: {state.enable})" if state.enable else ""),
          file=sys.stderr)
    return 1
