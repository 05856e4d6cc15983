"""Any registered engine in a pane, through the engine contract alone (engines/contract.py): the one
adapter every pane uses.

It knows only what the contract declares: :class:`~engines.answer.Hit`, :class:`~engines.answer.Answer`,
:class:`~engines.contract.Passage`, :class:`~engines.contract.EngineStatus` and the engine's
:class:`~engines.contract.Presentation` (which hit extras are a row's detail, where and badge; the
preview's kind), its shown and opt-in tiers, its compare columns, summary line, footer notices and
palette suggestions. A new engine appears in the workbench with no app code; notes, code and products
differ only in what they declare.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterator, Sequence

from rich.text import Text

from engines.answer import Answer, Batch, Hit, TierReport
from engines.contract import Comparison, Engine, Passage
from olai_tui.ui.viewer import VIEWED
from olai_tui.ui.adapters import Lazy, RowView, Target, first_line_with
from olai_tui.ui.previews import card, markdown_preview, source_lines, source_preview, text_preview
from olai_tui.ui.text import highlighted, one_line, shown

FULL_CARD = 100_000  # the whole of a card's text when there is no $EDITOR to open


class EngineAdapter:
    def __init__(self, engine: Engine | Callable[[], Engine], name: str | None = None, label: str = "",
                 kind: type[Engine] | None = None, corpus=None) -> None:
        """``engine``: the engine, or a factory called when the pane is first shown (then ``kind``, its
        class, says the tiers and presentation before it is made). ``corpus``: what it was opened over, as
        given (a person's grades are kept per corpus; None: the engine's corpus label names it)."""
        self._engine = Lazy(engine)
        self.corpus = corpus
        made = None if kind is not None else self._engine.get()
        cls = kind or type(made)
        self.name = name or cls.name
        self.kind = cls  # what it declares before it is made (the evaluation view's configurations)
        self.label = label
        self.tiers = tuple(cls.shown_tiers())  # products shows recall's vectors source as a tier
        self.default_off = tuple(cls.opt_in_tiers())  # code's embedding, products' vectors: the model
        self.presentation = cls.presentation
        self.labels = self.presentation.badge is not None  # a badge column beside the tier
        self._badges = dict(self.presentation.badge_styles)
        self._lexers = dict(self.presentation.lexers)
        self.opening: Callable[[], tuple[int, int, str] | None] = lambda: None  # (done, of, what) of an open under way

    @property
    def engine(self) -> Engine:
        return self._engine.get()

    @property
    def made(self) -> bool:
        return self._engine.made

    @property
    def graded_corpus(self):
        """The corpus a person's grades of this pane are kept for: as given, else as the engine names it."""
        return self.corpus if self.corpus is not None else self.engine.corpus_label

    def load(self) -> None:
        self._engine.get()

    def open_for(self, wait_s: float, until: threading.Event | None = None) -> None:
        """Open the engine on a thread and wait for it at most ``wait_s``, or until ``until`` is set (the
        open said it is under way): a corpus that fails within it raises here (a bad corpus of yours is
        said before the app starts); a longer open goes on while the app draws, its pane answers once
        it is done, and ``opening()`` says how far it has come."""
        failed: list[BaseException] = []
        settled = until or threading.Event()

        def run() -> None:
            try:
                self._engine.get()
            except BaseException as exc:  # noqa: BLE001 - said by the caller, or by the pane (which tries again)
                failed.append(exc)
            finally:
                settled.set()

        thread = threading.Thread(target=run, name=f"open-{self.name}", daemon=True)
        thread.start()
        settled.wait(wait_s)
        if failed:
            raise failed[0]

    def problem_lines(self, shown: int = 5) -> list[str]:
        """The files an open engine skipped, one line each (the first ``shown``), as the app says them."""
        from olai_tui.commands import said

        problems = list(self.engine.problems or []) if self.made else []
        lines = [said(problem) for problem in problems[:shown]]
        if len(problems) > shown:
            lines.append(f"skipped {len(problems) - shown} more files (`olai-tui index {self.name}` lists them all)")
        return lines

    # -- searching -----------------------------------------------------------------------------
    def search(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        return self.engine.search_shown(query, limit, tuple(tiers))

    def describe(self) -> str:
        if not self.made:
            return f"the {self.name} in {one_line(self.label)}"
        engine = self.engine
        if not self.label:
            return one_line(engine.describe())
        return f"{engine.counted()} in {one_line(self.label)}"

    def start(self) -> None:
        """At the pane's mount: an engine already open starts what its default tiers need."""
        if self.made:
            self.engine.switch_on(tuple(t for t in self.tiers if t not in self.default_off))

    def tiers_on(self, tiers: Sequence[str]) -> None:
        self.engine.switch_on(tuple(tiers))

    def live_reports(self, tiers: Sequence[str]) -> dict[str, TierReport]:
        """What the tiers on are doing between answers (indexing, unavailable); nothing once ready. While
        the engine opens, its first tier says how far the open has come (every tier waits on it)."""
        if not self.made:
            now = self.opening()
            if now is None or not self.tiers:
                return {}
            done, of, what = now
            return {self.tiers[0]: TierReport(self.tiers[0], "indexing", done=done, of=of, reason=what)}
        return {report.name: report for report in self.engine.live(tuple(tiers))}

    def notices(self) -> list[str]:
        return self.engine.notices() if self.made else []

    def rebuild(self) -> str:
        return self.engine.rebuild()

    def words(self, query: str) -> list[str]:
        return self.engine.highlights(query)

    # -- what the pane shows -------------------------------------------------------------------
    def row(self, hit: Hit) -> RowView:
        shown_ = self.presentation
        detail = " · ".join(str(hit.extras[k]) for k in shown_.detail if hit.extras.get(k))
        where = hit.where
        if shown_.where:  # products: kind · quantity (plant_drink: the map's id, said as words)
            where = " · ".join(str(hit.extras[k]).replace("_", " ") for k in shown_.where if hit.extras.get(k))
        label = str(hit.extras.get(shown_.badge) or "") if shown_.badge else ""
        return RowView(hit.title or hit.id, where, hit.tier, detail=detail, tier_style="italic" if hit.marker else "",
                       label=label, label_style=self._badges.get(label, "") if label else "")

    def summary(self, answer: Answer) -> Text | None:
        spans = self.engine.summary(answer)
        if not spans:
            return None
        out = Text(end="")
        for text, style in spans:
            out.append(shown(text), style=style)
        return out

    def active_filters(self, answer: Answer) -> str:
        return self.engine.filters_said(answer)

    def answer_notices(self, answer: Answer) -> list[str]:
        return self.engine.answer_notices(answer)

    def suggestions(self) -> list[tuple[str, str]]:
        return self.engine.suggestions() if self.made else []

    def _read(self, hit: Hit) -> Passage | None:
        try:
            return self.engine.read(hit.id)
        except KeyError:
            return None

    def _gone(self) -> Text:
        noun = self.engine.item_noun.removesuffix("s") or "row"
        return Text(f"This {noun} is no longer in the corpus (edited or removed since the search).", style="italic")

    def preview(self, hit: Hit, query: str):
        passage = self._read(hit)
        if passage is None:
            return self._gone()
        kind, words = self.presentation.preview, self.words(query)
        if kind == "markdown":
            return markdown_preview(passage, words)
        if kind == "source":
            return source_preview(hit, passage, words, self._lexers, self.engine.highlights)
        if kind == "card":
            return card(hit, passage, self._badges)
        return text_preview(passage, words)

    def full_text(self, hit: Hit) -> Text:
        passage = self._read(hit)
        if passage is None:
            return self._gone()
        kind = self.presentation.preview
        if kind == "source":
            return source_lines(passage, [], self._lexers, limit=10_000)
        if kind == "card":
            return card(hit, passage, self._badges, text_chars=FULL_CARD)
        return highlighted(passage.text, [])

    def target(self, hit: Hit, query: str) -> Target | None:
        passage = self._read(hit)
        if passage is None or not passage.path:
            return None
        if passage.path.lower().endswith(VIEWED):  # a document a viewer opens: at the hit's page, if any
            return Target(passage.path, None, hit.extras.get("page"))
        if self.presentation.open_at == "words" and not passage.where.rpartition(":")[2].isdigit():
            return Target(passage.path, first_line_with(passage.path, self.words(query)))
        return Target(passage.path, passage.start_line)

    # -- compare -------------------------------------------------------------------------------
    def compare_columns(self) -> list[Comparison]:
        return self.engine.comparisons()

    def compare_search(self, column: Comparison, query: str, limit: int) -> Iterator[Batch]:
        return self.engine.compare(column, query, limit)

    def close(self) -> None:
        if self.made:
            self.engine.close()

