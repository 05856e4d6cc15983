"""One query of a person's own grades, each configuration's rows side by side, graded there as in a pane.

The request view (request_view.py) with a row cursor: up and down move it in the focused column, left
and right move between columns, and the grade keys (0-3, again to clear; remappable as in the pane)
grade the row under it for this query, kept in the same judgement list the panes write
(engines/eval/judgements/store.py). Every column shows the new grade at once, and the view that
opened it is told (``on_graded``): it scores the kept answers again on a worker and gives the heads
their new figures (``rescored``). ``f`` finds any item of the corpus by title or path, shown or not,
to grade it for this query (find_item.py).
"""

from __future__ import annotations

from typing import Callable

from textual.binding import Binding
from textual.widgets import Static

from olai_tui.ui.grading import give_grade
from olai_tui.ui.keys import binding
from olai_tui.ui.request_view import RequestScreen, verdict_rows

CURSOR = "reverse"


class GradedRequestScreen(RequestScreen):
    BINDINGS = [
        *RequestScreen.BINDINGS,
        # priority: the focused column's scrolling would take up and down before the screen sees them
        Binding("up", "row(-1)", "Row up", show=False, priority=True),
        Binding("down", "row(1)", "Row down", show=False, priority=True),
        Binding("left", "column(-1)", "Column left", show=False, priority=True),
        Binding("right", "column(1)", "Column right", show=False, priority=True),
        *(binding(f"grade-{n}", f"grade({n})", f"Grade {n}", show=n == 3) for n in (3, 2, 1, 0)),
        binding("find-item", "find", "Find & grade"),
    ]

    def __init__(self, suite, row: dict, split: str, on_graded: Callable[[], None] | None = None) -> None:
        super().__init__(suite, row, split)
        self.names = list(row["configs"])
        self.cursor = [0] * len(self.names)
        self.on_graded = on_graded  # the view that opened it scores the grades again

    def rescored(self, row: dict) -> None:
        """The same answers with the figures the new grades give (the opening view scored them again)."""
        if row["id"] == self.row["id"] and self.is_attached:
            self.row = row
            self.draw_heads()

    def action_find(self) -> None:
        from olai_tui.ui.find_item import FindItemScreen

        self.app.push_screen(FindItemScreen(self.suite, self.suite.request(self.row["id"]), self.graded))

    def graded(self) -> None:
        """A grade given here or in the find screen: every column marked again, the opening view told."""
        request = self.suite.request(self.row["id"])
        self.verdicts = {name: self.suite.verdicts(request, got["top"], got) for name, got in self.row["configs"].items()}
        self.judged = sum(1 for gain in request.judged.values() if gain > 0)
        self.query_one("#title", Static).update(self.title_text())
        self._draw_all()
        if self.on_graded is not None:
            self.on_graded()

    def on_mount(self) -> None:
        super().on_mount()
        self._draw_all()

    @property
    def column(self) -> int:
        focused = self.focused
        name = focused.id if focused is not None and focused.id else ""
        return int(name.rsplit("-", 1)[1]) if name.startswith("scroll-") else 0

    def _draw(self, i: int) -> None:
        verdicts = self.verdicts[self.names[i]]
        rows = verdict_rows(verdicts)
        if verdicts and i == self.column:
            lines = rows.plain.split("\n")
            start = sum(len(line) + 1 for line in lines[:self.cursor[i]])
            rows.stylize(CURSOR, start, start + len(lines[self.cursor[i]]))
        self.query_one(f"#rows-{i}", Static).update(rows)

    def _draw_all(self) -> None:
        for i in range(len(self.names)):
            self._draw(i)

    def action_row(self, step: int) -> None:
        i = self.column
        count = len(self.verdicts[self.names[i]]) if self.names else 0
        if count:
            self.cursor[i] = max(0, min(count - 1, self.cursor[i] + step))
            self._draw(i)

    def action_column(self, step: int) -> None:
        if self.names:
            self.query_one(f"#scroll-{(self.column + step) % len(self.names)}").focus()
            self._draw_all()

    def action_grade(self, grade: int) -> None:
        if not self.names:
            return
        i = self.column
        verdicts = self.verdicts[self.names[i]]
        if not verdicts:
            return
        chosen = verdicts[self.cursor[i]]
        if give_grade(self, self.suite, self.suite.request(self.row["id"]), chosen.id, chosen.title, grade):
            self.graded()

