"""Any item of the corpus found by title or path and graded for a query, whether a search showed it or not.

Opened from a graded query (graded_request.py, ``f``): type words of the item's title or path (the
engine lists its items through the contract; engines/eval/judgements/finding.py finds them, on a
worker), ↓ to the list, and the grade keys grade the highlighted item for the query (again clears),
kept in the same judgement list the panes write. Each found item shows its grade for the query.
"""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from engines.eval.judgements.finding import Found, find
from olai_tui.ui.grading import give_grade
from olai_tui.ui.keys import binding
from olai_tui.ui.text import one_line


def found_line(item: Found, grade: float | None) -> Text:
    line = Text(f"{int(grade)} " if grade is not None else "· ", style="bold green" if grade else "dim", end="")
    line.append(one_line(item.title or item.id))
    line.append(f"  {one_line(item.where)}", style="dim")
    return line


class FindItemScreen(ModalScreen):
    BINDINGS = [
        binding("close", "app.pop_screen", "Back"),
        Binding("down", "to_list", "To the list", show=False),
        *(binding(f"grade-{n}", f"grade({n})", f"Grade {n}", show=n == 3) for n in (3, 2, 1, 0)),
    ]
    DEFAULT_CSS = """
    FindItemScreen { align: center middle; }
    FindItemScreen #find { width: 100%; height: 100%; border: round $accent; padding: 0 1; background: $surface; }
    FindItemScreen #title, FindItemScreen #said { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    FindItemScreen #said { color: $text-muted; }
    FindItemScreen #found { height: 1fr; }
    FindItemScreen #found > .option-list--option { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, suite, request, on_graded: Callable[[], None]) -> None:
        super().__init__()
        self.suite = suite
        self.request = request
        self.on_graded = on_graded
        self.found: list[Found] = []

    def compose(self):
        with Vertical(id="find"):
            yield Static(Text.assemble(("Grade any item for ", ""), (f"“{one_line(self.request.text)}”", "bold")),
                         id="title")
            yield Input(placeholder="words of its title or path", id="typed")
            yield Static(self._help(), id="said")
            yield OptionList(id="found")
        yield Footer()

    def _help(self) -> Text:
        return Text("↓ to the list · 0-3 grade the highlighted item (again clears)", style="dim")

    def on_mount(self) -> None:
        self.query_one("#typed", Input).focus()

    def check_action(self, action: str, parameters) -> bool | None:
        # typed digits are words of a title while the box has the keys: the grade keys act on the list
        if action == "grade" and isinstance(self.focused, Input):
            return False
        return True

    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        self.query_one("#said", Static).update(Text("finding…", style="italic"))
        self.look_up(event.value)

    @on(Input.Submitted, "#typed")
    def _submitted(self) -> None:
        self.action_to_list()

    @work(thread=True, exclusive=True, group="find-item", exit_on_error=False)
    def look_up(self, typed: str) -> None:
        found = find(self.suite.opened, typed) if self.suite.opened is not None else []
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, typed, found)

    def _show(self, typed: str, found: list[Found]) -> None:
        if not self.is_attached or typed != self.query_one("#typed", Input).value:
            return  # a later word typed: its own look-up shows
        self.found = found
        self._fill()
        said = f"{len(found)} found · " if typed.strip() else ""
        self.query_one("#said", Static).update(Text(said, style="dim") + self._help() if found or not typed.strip()
                                               else Text(f"nothing of the corpus holds “{one_line(typed)}” in its title or path",
                                                         style="italic"))

    def _fill(self) -> None:
        listed = self.query_one("#found", OptionList)
        highlighted = listed.highlighted
        listed.clear_options()
        listed.add_options([Option(found_line(item, self.request.judged.get(item.id))) for item in self.found])
        if self.found:
            listed.highlighted = min(highlighted or 0, len(self.found) - 1)

    def action_to_list(self) -> None:
        if self.found:
            self.query_one("#found", OptionList).focus()

    def action_grade(self, grade: int) -> None:
        at = self.query_one("#found", OptionList).highlighted
        if at is None or not 0 <= at < len(self.found):
            return
        item = self.found[at]
        if give_grade(self, self.suite, self.request, item.id, item.title, grade, item.where):
            self._fill()
            self.on_graded()
