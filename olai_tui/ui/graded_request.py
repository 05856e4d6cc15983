"""One query of a person's own grades, each configuration's rows side by side, graded there as in a pane.

The request view (request_view.py) with a row cursor: up and down move it in the focused column, left
and right move between columns, and the grade keys (0-3, again to clear; remappable as in the pane)
grade the row under it for this query, kept in the same judgement list the panes write
(engines/eval/judgements/store.py). Every column shows the new grade at once; the figures in the
heads are the run's, until the next run scores the new grades.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Static

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
    ]

    def __init__(self, suite, row: dict, split: str) -> None:
        super().__init__(suite, row, split)
        self.names = list(row["configs"])
        self.cursor = [0] * len(self.names)

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
        request = self.suite.request(self.row["id"])
        now = request.judged.get(chosen.id)
        given = None if now is not None and int(now) == grade else grade  # the same key again clears it
        store = self.suite.store
        said = len(store.problems)
        try:
            store.grade(request.text, chosen.id, given, title=chosen.title)
        except Exception as exc:  # noqa: BLE001 - a data folder that cannot be written: said, the view goes on
            self.notify(f"Could not keep the grade: {exc}", severity="error", markup=False)
            return
        if len(store.problems) > said:  # damaged lines the write found and set aside: named
            self.notify("\n".join(store.problems[said:]), title="Grades", severity="warning", markup=False)
        if given is None:
            request.judged.pop(chosen.id, None)
        else:
            request.judged[chosen.id] = float(given)
        self.verdicts = {name: self.suite.verdicts(request, got["top"], got) for name, got in self.row["configs"].items()}
        self._draw_all()
