"""The workbench's half of issue 62: in the evaluation view over your grades, the pane's engine's settings
tried on every graded query (per-query deltas and the total move; adopt writes corpora.json through
`tune --adopt`'s writer; discard leaves what is in force), a grade change scoring the run again, and an
item no answer showed found by title or path and graded.

The engine is a pantry list written here (an item a line) whose ranking reads a knob, registered for the
test: for most fruits the long line comes first at today's setting and the short one under it is the
exactly right one; for the quince the long line is right (a shorter-first setting hurts it), and the fig
has one line (nothing moves it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Sequence

import pytest
from textual.widgets import Input, OptionList, Select

from engines import knobs as knobs_module, registry
from engines.answer import Batch, Hit, TierReport
from engines.contract import Engine, EngineStatus, Passage, Ranked, ranked_by_search
from engines.eval.judgements.store import Judgements
from engines.knobs import CORPUS, Knob, Knobs, corpora_path, resolve, source_of
from olai_tui.ui.evaluation import EvaluationScreen
from olai_tui.ui.find_item import FindItemScreen
from olai_tui.ui.graded_request import GradedRequestScreen
from olai_tui.ui.keys import KeyConfig
from olai_tui.ui.palette import open_evaluation
from olai_tui.ui.settings_view import SettingsScreen
from olai_tui.workbench import build_workbench
from tests.snapshot_app import SnapshotWorkbench, settle, wait_until

pytestmark = pytest.mark.anyio
SIZE = (80, 24)

PANTRY_KNOBS = Knobs("pantry", Knob("shortness", "float", 0.0, low=0.0, high=1.0, measured="none (a test engine)",
                                    does="how much a shorter line ranks higher"))
FRUITS = ["apple", "pear", "plum", "quince"]
LINES = [line for fruit in FRUITS for line in (f"{fruit} jam with lemon peel, sugar and a long slow boil", f"{fruit} crumble")]
LINES += ["fig roll", "windfalls from the orchard"]  # the last holds no query's word: no answer shows it
WINDFALLS, WINDFALLS_AT = f"l{len(LINES) - 1}", f"pantry.txt:{len(LINES)}"
FIG = f"l{len(LINES) - 2}"


def grades() -> list[tuple]:
    """Each fruit's crumble exactly right and its jam related, but the quince's the other way round."""
    out = []
    for n, fruit in enumerate(FRUITS):
        long, short = (3, 1) if fruit == "quince" else (1, 3)
        out += [(fruit, f"l{2 * n}", long, "", ""), (fruit, f"l{2 * n + 1}", short, "", "")]
    return out + [("fig", FIG, 3, "fig roll", "")]


class PantryEngine(Engine):
    """A line holding a query word is a hit, ranked by words held less ``shortness`` times its length."""

    name = "pantry"
    tiers = default_tiers = evidence_tiers = ("words",)
    knobs = PANTRY_KNOBS

    def __init__(self, path: Path) -> None:
        self.path, self.problems = path, []
        self.lines = path.read_text(encoding="utf-8").splitlines()

    def items(self) -> int:
        return len(self.lines)

    @property
    def corpus_label(self) -> str:
        return str(self.path)

    def listing(self):
        return ((f"l{i}", line, f"{self.path.name}:{i + 1}") for i, line in enumerate(self.lines))

    def search(self, query: str, limit: int = 10, tiers: Sequence[str] | str | None = None) -> Iterator[Batch]:
        wanted = set(query.lower().split())
        w = PANTRY_KNOBS.value("shortness")
        scored = [(len(wanted & set(line.split())) - w * len(line.split()) / 10, -i, i)
                  for i, line in enumerate(self.lines) if wanted & set(line.split())]
        hits = [Hit(f"l{i}", self.lines[i], f"{self.path.name}:{i + 1}", "words", s)
                for s, _, i in sorted(scored, reverse=True)[:limit]]
        yield Batch(hits, [TierReport("words", "answered", 0.1, len(hits))], total=len(hits))

    def rank(self, tier: str, query: str, depth: int = 100) -> list[Ranked]:
        return ranked_by_search(self, tier, query, depth)

    def read(self, item_id: str) -> Passage:
        i = int(item_id[1:])
        if not 0 <= i < len(self.lines):
            raise KeyError(item_id)
        return Passage(item_id, self.lines[i], f"{self.path.name}:{i + 1}", self.lines[i])

    def status(self) -> EngineStatus:
        return EngineStatus(self.name, str(self.path), len(self.lines), [TierReport("words", "answered")])


@pytest.fixture
def pantry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    corpus = tmp_path / "pantry.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    Judgements("pantry", corpus).write(grades())
    registry.register(registry.EngineSpec("pantry", "lines of a pantry list", lambda path, **_: PantryEngine(path),
                                          lambda: corpus, sample_query="apple", engine_class=lambda: PantryEngine))
    yield corpus
    registry.unregister("pantry")
    knobs_module._IN_FORCE.pop("pantry", None)
    knobs_module._FROM.pop("pantry", None)


def app_over(corpus: Path) -> SnapshotWorkbench:
    return build_workbench(engines={"pantry": PantryEngine(corpus)}, labels={"pantry": "pantry.txt"},
                           keys=KeyConfig(), app_class=SnapshotWorkbench, watch=False)


async def run_your_grades(pilot) -> EvaluationScreen:
    app = pilot.app
    open_evaluation(app, "pantry")
    await wait_until(pilot, lambda: isinstance(app.screen, EvaluationScreen))
    screen = app.screen
    await pilot.pause()
    screen.query_one("#dataset", Select).value = "pantry/judged"
    await pilot.pause()
    await pilot.press("r")
    await wait_until(pilot, lambda: not screen.busy and screen.evaluated is not None, timeout=30)
    await settle(pilot)
    return screen


async def try_a_setting(pilot) -> SettingsScreen:
    await run_your_grades(pilot)
    await pilot.press("s")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen))
    settings = pilot.app.screen
    await pilot.press("right")  # shortness 0 -> 0.125: the short line now first
    await wait_until(pilot, lambda: settings.trial is not None, timeout=30)
    await settle(pilot)
    return settings


def test_a_knob_changed_shows_each_graded_query_s_delta_and_the_total(snap_compare, pantry):
    assert snap_compare(app_over(pantry), terminal_size=SIZE, run_before=try_a_setting)


async def test_a_knob_changed_moves_every_query_and_the_total_and_adopt_writes_it_for_the_corpus(pantry):
    app = app_over(pantry)
    async with app.run_test(size=SIZE) as pilot:
        settings = await try_a_setting(pilot)
        trial = settings.trial
        before, after = trial.totals()
        assert settings.tried == {"shortness": 0.125} and before < after
        assert [(d.query, round(d.change, 3)) for d in trial.deltas()] == [
            ("apple", 0.203), ("pear", 0.203), ("plum", 0.203), ("quince", -0.203), ("fig", 0.0)]
        assert trial.moved() == (3, 1)
        said = [str(o.prompt) for o in settings.query_one("#deltas", OptionList).options]
        assert said[0] == "+0.203 0.797→1.000 apple" and said[3].startswith("-0.203 1.000→0.797")
        assert f"{before:.3f} → {after:.3f} (+{after - before:.3f})" in str(settings.query_one("#total").render())
        assert not corpora_path().exists()  # nothing written by trying
        await pilot.press("a")
        await pilot.pause()
        kept = json.loads(corpora_path().read_text())["pantry"]
        assert [entry["settings"] for entry in kept.values()] == [{"shortness": 0.125}]
        assert PANTRY_KNOBS.value("shortness") == 0.125 and source_of("pantry", "shortness") == CORPUS
        # keyed as `tune --adopt` keys it: the next open of this corpus (any face) has it in force
        assert resolve(PANTRY_KNOBS, pantry).values["shortness"] == 0.125
        assert "adopted: r runs again" in str(app.screen_stack[-2].query_one("#status").render())
        assert settings.tried == {} and "adopted for this corpus" in str(settings.query_one("#said").render())
        assert "0.125 corpus" in str(settings.query_one("#knobs", OptionList).get_option_at_index(0).prompt)


async def test_discard_leaves_the_values_in_force_and_writes_nothing(pantry):
    app = app_over(pantry)
    async with app.run_test(size=SIZE) as pilot:
        settings = await try_a_setting(pilot)
        await pilot.press("right")  # 0.25 tried now
        await wait_until(pilot, lambda: settings.trial is not None and settings.trial.setting == {"shortness": 0.25})
        await pilot.press("d")
        await settle(pilot)
        assert settings.tried == {} and settings.trial is None
        assert PANTRY_KNOBS.value("shortness") == 0.0 and not corpora_path().exists()
        assert "0 default" in str(settings.query_one("#knobs", OptionList).get_option_at_index(0).prompt)
        assert "discarded" in str(settings.query_one("#said").render())
        # the engine answers with the value in force again: today's order, the long line first
        engine = app.panes[0].adapter.engine
        assert [h.id for h in engine.collect("apple", engine.search("apple")).hits] == ["l0", "l1"]
        # a value typed: one the knob does not take is said, one it takes is tried
        await pilot.press("equals_sign", "ctrl+u", *"2", "enter")
        await pilot.pause()
        assert "outside 0.0..1.0" in str(settings.query_one("#said").render()) and settings.tried == {}
        await pilot.press("ctrl+u", *"0.3", "enter")
        await wait_until(pilot, lambda: settings.trial is not None and settings.trial.setting == {"shortness": 0.3})
        assert settings.focused is settings.query_one("#knobs")


async def open_first_request(pilot, screen: EvaluationScreen) -> GradedRequestScreen:
    requests = screen.query_one("#requests", OptionList)
    requests.focus()
    requests.highlighted = 0
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, GradedRequestScreen))
    await settle(pilot)
    return pilot.app.screen


async def test_a_grade_changed_scores_the_column_again(pantry):
    app = app_over(pantry)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_your_grades(pilot)
        before = screen.evaluated.tables[0].metrics["answer"]["ndcg@10"]
        request = await open_first_request(pilot, screen)
        query, was = request.row["query"], request.row["configs"]["answer"]["ndcg@10"]
        assert query == "apple" and was < 1.0
        assert request.verdicts["answer"][0].gain == 1  # the jam, related, above the crumble
        await pilot.press("3")  # the jam graded exactly right too: this query's answer is now ideal
        await wait_until(pilot, lambda: screen.evaluated.tables[0].metrics["answer"]["ndcg@10"] != before)
        await settle(pilot)
        row = next(r for r in screen.evaluated.tables[0].requests if r["query"] == query)
        assert row["configs"]["answer"]["ndcg@10"] == 1.0
        after = screen.evaluated.tables[0].metrics["answer"]["ndcg@10"]
        queries = len(screen.evaluated.tables[0].requests)
        assert after == pytest.approx(before + (1.0 - was) / queries, abs=1e-4)  # that query now ideal, the rest as they were
        assert "ndcg@10 1.000" in str(request.query_one("#head-0").render())  # the column's head moved too


async def test_an_item_no_answer_shows_is_found_by_title_or_path_and_graded(pantry):
    app = app_over(pantry)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_your_grades(pilot)
        before = screen.evaluated.tables[0].metrics["answer"]["ndcg@10"]
        request = await open_first_request(pilot, screen)
        query = request.row["query"]
        assert all(WINDFALLS not in got["top"] for got in request.row["configs"].values())
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, FindItemScreen))
        find = app.screen
        await pilot.press(*WINDFALLS_AT)  # by its path
        await wait_until(pilot, lambda: [f.id for f in find.found] == [WINDFALLS])
        await pilot.press("ctrl+u")
        await pilot.press(*"WINDFALL")  # by words of its title, whatever their case
        await wait_until(pilot, lambda: find.query_one("#typed", Input).value == "WINDFALL"
                         and [f.id for f in find.found] == [WINDFALLS])
        await pilot.press("down", "2")
        await wait_until(pilot, lambda: screen.evaluated.tables[0].metrics["answer"]["ndcg@10"] != before)
        graded = Judgements("pantry", pantry).by_query()
        assert graded[query][WINDFALLS] == 2  # kept as any grade is: `olai-tui eval pantry --judged` scores it
        assert str(find.query_one("#found", OptionList).get_option_at_index(0).prompt).startswith("2 ")
        # a relevant item no answer holds lowers the query's nDCG: the ideal now has it
        assert screen.evaluated.tables[0].metrics["answer"]["ndcg@10"] < before
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is request)
        assert "3 judged relevant" in str(request.query_one("#title").render())  # the crumble, the jam, the windfalls


async def test_your_grades_are_offered_for_a_pane_not_opened_yet_and_run_opens_it(pantry, tmp_path, monkeypatch):
    from engines.notes.engine import NotesEngine
    from tests.snapshot_app import DEMO

    monkeypatch.setenv("OLAI_RECALL", "off")
    notes = NotesEngine(DEMO, embedder=None, cache_dir=str(tmp_path / "notes-cache"))
    app = build_workbench(engines={"notes": notes, "pantry": lambda: PantryEngine(pantry)}, keys=KeyConfig(),
                          labels={"notes": "fixtures/notes", "pantry": "pantry.txt"}, app_class=SnapshotWorkbench,
                          watch=False, pane="notes")
    async with app.run_test(size=SIZE) as pilot:
        adapter = next(p.adapter for p in app.panes if p.adapter.name == "pantry")
        assert not adapter.made  # never shown
        open_evaluation(app, "notes")
        await wait_until(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        await pilot.pause()
        screen = app.screen
        assert ("pantry · your grades (pantry.txt)", "pantry/judged") in screen.choices()
        screen.query_one("#dataset", Select).value = "pantry/judged"
        await pilot.pause()
        await pilot.press("r")
        await wait_until(pilot, lambda: not screen.busy and screen.evaluated is not None, timeout=30)
        assert adapter.made and set(screen.evaluated.tables[0].metrics) == {"words", "answer"}
    notes.close()
