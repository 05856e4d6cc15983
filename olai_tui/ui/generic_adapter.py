"""Any registered engine in a pane, through the engine contract alone: rows, tier chips, a preview
from ``read(id)``, opening the hit's file at its line, a compare column per tier.

An engine with no adapter of its own gets this one, so a new engine appears in the workbench with no
app code. Notes, code and products have richer adapters (a note's preview, highlighted source, a
product card) for what their rows carry beyond the contract.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator, Sequence

from rich.text import Text

from engines.answer import Batch, Hit, TierReport
from engines.contract import Engine
from engines.tiers import recall_switched_off
from olai_tui.ui.adapters import Column, Lazy, Target
from olai_tui.ui.text import clipped, highlighted, one_line, reflowed

_WORD = re.compile(r"\w+")


class GenericAdapter:
    def __init__(self, engine: Engine | Callable[[], Engine], name: str, tiers: Sequence[str],
                 default_tiers: Sequence[str] | None = None, label: str = "") -> None:
        self._engine = Lazy(engine)
        self.name = name
        self.tiers = tuple(tiers)
        self.default_off = tuple(t for t in self.tiers if default_tiers is not None and t not in default_tiers)
        self.label = label

    @classmethod
    def over(cls, engine: Engine, label: str = "") -> "GenericAdapter":
        return cls(engine, engine.name, engine.tiers, engine.default_tiers, label)

    @property
    def engine(self) -> Engine:
        return self._engine.get()

    def load(self) -> None:
        self._engine.get()

    def search(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        return self.engine.search(query, limit=limit, tiers=tuple(tiers))

    def describe(self) -> str:
        if not self._engine.made:
            return f"the {self.name} in {one_line(self.label)}"
        return one_line(self.engine.describe())

    def start(self) -> None:
        self.engine.start()

    def live_reports(self) -> dict[str, TierReport]:
        if not self._engine.made:
            return {}
        engine = self.engine
        out = {}
        for report in engine.status().tiers:
            if report.name in engine.model_tiers and report.status in ("indexing", "unavailable", "failed", "off") \
                    and not (report.status == "off" and not recall_switched_off()):
                out[report.name] = report
        return out

    def notices(self) -> list[str]:
        return self.engine.notices() if self._engine.made else []

    def rebuild(self) -> str:
        self.engine.reload()
        return f"re-read {self.engine.describe()}"

    def words(self, query: str) -> list[str]:
        return [w for w in _WORD.findall(query.lower()) if len(w) > 1]

    def preview(self, hit: Hit, query: str) -> Text:
        try:
            passage = self.engine.read(hit.id)
        except KeyError:
            return Text("This row is no longer in the corpus (edited or removed since the search).", style="italic")
        body, left_out = clipped(passage.text)
        out = Text(end="")
        out.append_text(highlighted(one_line(passage.title) or passage.id, self.words(query), style="bold"))
        out.append("\n")
        out.append(one_line(passage.where), style="dim")
        out.append("\n\n")
        out.append_text(highlighted(reflowed(body.strip("\n")), self.words(query)))
        if left_out or passage.truncated:
            out.append(f"\n… {left_out:,} more characters", style="dim italic")
        return out

    def full_text(self, hit: Hit) -> Text:
        try:
            return Text(self.engine.read(hit.id).text)
        except KeyError:
            return Text("This row is no longer in the corpus.", style="italic")

    def target(self, hit: Hit, query: str) -> Target | None:
        try:
            passage = self.engine.read(hit.id)
        except KeyError:
            return None
        return Target(passage.path, passage.start_line) if passage.path else None

    def compare_columns(self) -> list[Column]:
        columns = [Column(t, (t,)) for t in self.tiers]
        if len(self.tiers) > 1:
            columns.append(Column("merged", self.tiers, combined=True))
        return columns

    def close(self) -> None:
        if self._engine.made:
            self.engine.close()
