"""A pane's grades: 0-3 on the highlighted row for the query on screen (the same key again clears it),
kept as the person's data (engines/eval/judgements/store.py) for the pane's corpus, whatever its engine.

The row shows its grade, and in a query that has grades every row without one says "unrated"; the
footer says how many of the query's rows are graded. The pane reads its corpus's grades once, when
it first needs them, and keeps them in step with what it writes; `olai-tui eval ENGINE --judged`
scores every configuration on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from olai_tui.ui.results import ResultsTable

if TYPE_CHECKING:
    from engines.eval.judgements.store import Judgements


class PaneGrades:
    """Mixed into SearchPane (pane.py), which has ``adapter``, ``answer``, ``table`` and ``render_footer``."""

    _judgements: Judgements | None = None
    _graded: dict[str, dict[str, int]] | None = None
    _read_at: tuple | None = None  # the journal's (size, mtime) when it was last read
    _damaged_said = 0  # the journal's damaged lines named so far
    DAMAGED_SHOWN = 5  # one notification names this many, then counts the rest

    def judgements(self) -> Judgements:
        """The corpus's judgement list, read again when its journal changed (the evaluation view graded a
        row, another process did): a stat a search, the file read only after a change."""
        if self._judgements is None:
            from engines.eval.judgements.store import Judgements

            adapter = self.adapter  # type: ignore[attr-defined]
            self._judgements = Judgements(adapter.name, adapter.graded_corpus)
        try:
            stat = self._judgements.path.stat()
            now: tuple | None = (stat.st_size, stat.st_mtime_ns)
        except OSError:
            now = None
        if self._graded is None or now != self._read_at:
            from engines.eval.judgements.store import query_fold

            graded = self._judgements.by_query()
            self._graded, self._read_at = {query_fold(q): g for q, g in graded.items()}, now
            self.say_damaged()
        return self._judgements

    def say_damaged(self) -> None:
        """Each damaged line of the journal, named once (FILE:LINE and why): the rest are shown and graded."""
        store = self._judgements
        said = self._damaged_said
        if store is not None and len(store.problems) > said:
            self._damaged_said = len(store.problems)
            new = store.problems[said:]
            more = [f"and {len(new) - self.DAMAGED_SHOWN} more"] if len(new) > self.DAMAGED_SHOWN else []
            self.notify("\n".join(new[:self.DAMAGED_SHOWN] + more), title="Grades", severity="warning",  # type: ignore[attr-defined]
                        markup=False)

    def grades_of(self, query: str) -> dict[str, int] | None:
        """The grades of ``query`` (None: it has none, or the corpus's grades cannot be read)."""
        from engines.eval.judgements.store import query_fold

        try:
            self.judgements()
        except Exception:  # noqa: BLE001 - grades never stop a search
            return None
        return (self._graded or {}).get(query_fold(query)) or None

    def show_grades(self) -> None:
        """The table's grade column for the answer on screen."""
        answer = self.answer  # type: ignore[attr-defined]
        self.table.show_grades(self.grades_of(answer.query) if answer is not None else None)  # type: ignore[attr-defined]

    def on_results_table_grade_requested(self, event: ResultsTable.GradeRequested) -> None:
        """A grade key on a row (a handler by name: Textual's ``@on`` is read from widget classes only)."""
        from engines.eval.judgements.store import query_fold, query_key

        answer = self.answer  # type: ignore[attr-defined]
        if answer is None:
            return
        hit, query = event.hit, query_key(answer.query)
        try:
            store = self.judgements()
            now = (self._graded or {}).get(query_fold(query), {})
            grade = None if now.get(hit.id) == event.grade else event.grade  # the same key again clears it
            store.grade(query, hit.id, grade, title=hit.title, where=hit.where)
            self._read_at = None  # read again below, with this grade (and whatever another process wrote)
            self.say_damaged()  # a cut line the grade found (and set aside) is named, not passed over
        except Exception as exc:  # noqa: BLE001 - a data folder that cannot be written: said, the pane goes on
            self.notify(f"Could not keep the grade: {exc}", severity="error", markup=False)  # type: ignore[attr-defined]
            return
        self.show_grades()
        self.render_footer()  # type: ignore[attr-defined]

    def grading_notice(self) -> list[str]:
        """The footer's count of the graded rows of the query on screen (nothing for an ungraded query)."""
        answer = self.answer  # type: ignore[attr-defined]
        grades = self.grades_of(answer.query) if answer is not None else None
        if not grades:
            return []
        shown = [h.id for h in answer.hits]
        on_screen = sum(1 for i in shown if i in grades)
        return [f"graded {on_screen} of {len(shown)} rows of this query (0-3 grade the highlighted row, again clears)"]
