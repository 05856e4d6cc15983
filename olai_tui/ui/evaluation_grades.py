"""What the evaluation view does with a run over your grades beyond showing it: a grade changed scores
the run again (every column's figures and the request list, from the kept answers: no query is asked
again; engines/eval/judgements/rescore.py) on a worker, saying so while it runs; and ``s`` opens the
engine's settings tried on those grades (settings_view.py)."""

from __future__ import annotations

from textual import work
from textual.worker import get_current_worker

from engines.eval.judgements.rescore import rescored
from engines.eval.judgements.suite import DATASET as JUDGED
from engines.eval.runner import Request
from olai_tui.ui.your_grades import first_row_wrong


class EvaluationGrades:
    """Mixed into EvaluationScreen (evaluation.py): ``evaluated``, ``busy``, ``graded``, ``say`` and the fills."""

    def grades_changed(self) -> None:
        """A grade given in a query opened from here (or the settings view): the run scored again."""
        evaluated = self.evaluated  # type: ignore[attr-defined]
        if evaluated is None or evaluated.suite.dataset != JUDGED:
            return
        self.say("re-scoring the graded queries for the new grade…", "italic")  # type: ignore[attr-defined]
        requests = [Request(r.id, r.text, dict(r.judged), r.split) for r in evaluated.suite.requests]
        self.rescore_run(evaluated, requests)

    @work(thread=True, exclusive=True, group="rescore", exit_on_error=False)
    def rescore_run(self, evaluated, requests: list[Request]) -> None:
        suite = evaluated.suite
        tables = [rescored(t, requests, suite.summed) for t in evaluated.tables]
        wrong = first_row_wrong(suite, tables)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._rescored, evaluated, tables, wrong)  # type: ignore[attr-defined]

    def _rescored(self, evaluated, tables, wrong) -> None:
        from olai_tui.ui.graded_request import GradedRequestScreen

        if not self.is_attached or self.evaluated is not evaluated:  # type: ignore[attr-defined]
            return
        evaluated.tables, evaluated.first_wrong = tables, wrong
        self._say_summary()  # type: ignore[attr-defined]
        self._fill_table(evaluated.suite, tables)  # type: ignore[attr-defined]
        self._fill_requests(tables, wrong)  # type: ignore[attr-defined]
        rows = {row["id"]: row for table in tables for row in table.requests}
        for screen in self.app.screen_stack:  # type: ignore[attr-defined]
            if isinstance(screen, GradedRequestScreen) and screen.on_graded == self.grades_changed:
                if screen.row["id"] in rows:
                    screen.rescored(rows[screen.row["id"]])

    def action_settings(self) -> None:
        """The pane's engine's settings, tried on the grades of the run on screen."""
        from engines.knobs import knobs_of
        from olai_tui.ui.settings_view import SettingsScreen

        evaluated = self.evaluated  # type: ignore[attr-defined]
        if evaluated is None or evaluated.suite.dataset != JUDGED:
            self.say("Settings are tried on your grades: choose “your grades” and Run first.", "italic")  # type: ignore[attr-defined]
            return
        if self.busy:  # type: ignore[attr-defined]
            self.say("A run is going on; it ends first.", "italic")  # type: ignore[attr-defined]
            return
        suite = evaluated.suite
        if knobs_of(suite.opened) is None:
            self.say(f"{suite.engine} declares no settings to try.", "italic")  # type: ignore[attr-defined]
            return
        graded = self.graded.get(f"{suite.engine}/{JUDGED}")  # type: ignore[attr-defined]
        self.app.push_screen(SettingsScreen(suite, graded.label if graded else suite.corpus,  # type: ignore[attr-defined]
                                            on_graded=self.grades_changed, on_adopted=self._adopted))

    def _adopted(self, kept: str) -> None:
        self.say(f"{kept} adopted: r runs again with it (the figures here are from before)", "italic")  # type: ignore[attr-defined]
