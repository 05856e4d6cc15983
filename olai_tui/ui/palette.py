"""The workbench's commands in the palette (ctrl+p), beside Textual's own (theme, keys, quit, ...).

What the palette offers follows what the workbench holds now: one "switch to" per pane, a "turn off"
or "turn on" per tier of the current pane, and "search <pane> for “what you typed”" for any text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable, Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.screen import Screen

from engines.eval.judgements.store import GRADE_WORDS

if TYPE_CHECKING:
    from olai_tui.ui.pane import SearchPane

TYPED_SEARCH_SCORE = 0.2  # below a good fuzzy match of a command's name, above none


class Workbench(Protocol):
    """What the palette needs of the app (olai_tui.app.WorkbenchApp is one): its panes, and what it does."""

    @property
    def panes(self) -> list[SearchPane]: ...

    @property
    def active_pane(self) -> SearchPane | None: ...

    def key_for(self, key_id: str) -> str: ...

    def switch_to(self, name: str) -> None: ...

    def search_in(self, name: str, query: str) -> None: ...

    def action_compare(self) -> None: ...

    def action_next_pane(self, step: int = 1) -> None: ...

    def action_previous_pane(self) -> None: ...

    async def action_rebuild_index(self) -> None: ...

    def open_highlighted(self) -> None: ...

    def copy_highlighted(self) -> None: ...

    def push_screen(self, screen: Screen) -> object: ...


@dataclass(frozen=True)
class Command:
    text: str
    help: str
    run: Callable[[], object]


def workbench_commands(app: Workbench) -> list[Command]:
    pane = app.active_pane
    commands: list[Command] = []
    for other in app.panes:
        if other is not pane:
            commands.append(Command(f"Switch to the {other.adapter.name} pane", "show that pane",
                                    partial(app.switch_to, other.adapter.name)))
            if pane is not None and pane.query_text.strip():
                commands.append(Command(f"Search {other.adapter.name} for the current query",
                                        "run this pane's query in that pane",
                                        partial(app.search_in, other.adapter.name, pane.query_text)))
    key = app.key_for
    if len(app.panes) > 1:
        commands += [Command("Next pane", f"the pane to the right ({key('next-pane')})", app.action_next_pane),
                     Command("Previous pane", f"the pane to the left ({key('previous-pane')})",
                             app.action_previous_pane)]
    shown = next((p.adapter.name for p in [pane, *app.panes] if p is not None), "")  # the pane on screen, or the first
    evaluate = Command("Evaluate configurations on a dataset",
                       f"each configuration's figures and judged rows (from compare: {key('evaluate')})",
                       partial(open_evaluation, app, shown))
    if pane is None:
        return commands + [evaluate]
    name = pane.adapter.name
    for tier in pane.adapter.tiers:
        if tier in pane.switched_off:
            commands.append(Command(f"Turn the {tier} tier on for {name}", f"{name} answers with {tier} again",
                                    partial(pane.toggle_tier, tier)))
        else:
            commands.append(Command(f"Turn the {tier} tier off for {name}", f"{name} answers without {tier}",
                                    partial(pane.toggle_tier, tier)))
    only = pane.exact_only_label()
    said = "only the cheap, checkable tier answers" if only.endswith(" only") else f"{name} answers with its {only.lower()}"
    commands.append(Command(f"{only} for {name}", f"{said}; again goes back ({key('exact-only')})", pane.toggle_exact_only))
    for token, why in pane.adapter.suggestions():
        commands.append(Command(f"Filter {name}: {token}", f"{why}; typed into the query (#tag, in:, path:, after:, before:)",
                                partial(pane.add_filter, token)))
    commands += [
        Command("Compare tiers for the current query", f"each tier's rows side by side ({key('compare')})",
                app.action_compare),
        Command(f"Rebuild the {name} index",
                f"re-read the corpus and bring the index up to date ({key('rebuild-index')})", app.action_rebuild_index),
        Command("Open the highlighted row", f"in $EDITOR, at its line; or shown here ({key('open')})",
                partial(app.open_highlighted)),
        Command("Copy the highlighted row's path", f"to the clipboard ({key('copy-path')})",
                partial(app.copy_highlighted)),
        *(Command(f"Grade row {n}: {word}",
                  f"the highlighted row, for the current query, kept for `olai-tui eval {name} --judged`; again clears"
                  f" ({key(f'grade-{n}')})", partial(pane.table.action_grade, n))
          for n, word in sorted(GRADE_WORDS.items(), reverse=True)),
        evaluate,
    ]
    return commands


def open_evaluation(app: Workbench, engine: str) -> None:
    from olai_tui.ui.evaluation import EvaluationScreen, graded_corpora

    app.push_screen(EvaluationScreen(engine, graded_corpora(app.panes)))


class WorkbenchCommands(Provider):
    async def discover(self) -> Hits:
        for command in workbench_commands(self.app):  # type: ignore[arg-type]
            yield DiscoveryHit(command.text, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        app: Workbench = self.app  # type: ignore[assignment]
        for command in workbench_commands(app):
            score = matcher.match(command.text)
            if score > 0:
                yield Hit(score, matcher.highlight(command.text), command.run, text=command.text, help=command.help)
        typed = query.strip()
        if typed:
            for pane in app.panes:
                label = f"Search {pane.adapter.name} for “{typed}”"
                # Content, not str: what was typed is shown as typed, never read as markup
                yield Hit(TYPED_SEARCH_SCORE, Content(label), partial(app.search_in, pane.adapter.name, typed),
                          text=label, help="type the query into that pane")
