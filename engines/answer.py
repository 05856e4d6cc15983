"""The one envelope every engine returns: hits, tier reports, batches and the answer.

An engine answers ``search(query, limit, tiers=...)`` as a stream of :class:`Batch` objects. The
first batch is the cheap tier; later batches append rows and update tier reports. :func:`collect`
folds a stream into one :class:`Answer`, which is what ``--json`` prints.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

RESEMBLANCE = "≈"  # marks a hit found by meaning: resemblance, never evidence
WEAK_GUESS = "≈?"  # a weak guess by meaning, under the confident floor: shown only when no evidence answered

Status = Literal["answered", "empty", "skipped", "off", "unavailable", "indexing", "late", "failed"]
STATUSES: tuple[str, ...] = ("answered", "empty", "skipped", "off", "unavailable", "indexing", "late", "failed")


@dataclass
class Hit:
    id: str
    title: str
    where: str
    tier: str
    score: float
    marker: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "title": self.title,
            "where": self.where,
            "tier": self.tier,
            "score": round(float(self.score), 6),
            "marker": self.marker,
        }
        out.update(self.extras)
        return out


def ms_since(started: float) -> float:
    """Milliseconds since ``started`` (a ``time.perf_counter()``), as a tier report carries them."""
    return round((time.perf_counter() - started) * 1000, 3)


@dataclass
class TierReport:
    name: str
    status: Status
    ms: float | None = None
    count: int = 0
    reason: str | None = None  # why it is unavailable / failed / skipped
    enable: str | None = None  # what would enable it (unavailable, off)
    done: int | None = None  # indexing progress
    of: int | None = None
    # which vectors answered, by share of the items (notes while their model's index builds:
    # {"static": 1.0, "contextual": 0.12}); None where one kind answers for all
    vectors: dict[str, float] | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown tier status {self.status!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": self.status, "ms": self.ms, "count": self.count}
        for key in ("reason", "enable", "done", "of", "vectors"):
            value = getattr(self, key)
            if value is not None:
                out[key] = round(value, 3) if isinstance(value, float) else value
        if out["ms"] is not None:
            out["ms"] = round(out["ms"], 3)
        return out


def coverage(done: int, static_done: int, of: int) -> tuple[dict[str, float], str]:
    """How much of the corpus each kind of vectors answers for: a tier's ``vectors`` and its words
    (``static 100 %, contextual 12 %``)."""
    share = {"static": round(static_done / of, 3) if of else 0.0, "contextual": round(done / of, 3) if of else 0.0}
    return share, f"static {share['static']:.0%}, contextual {share['contextual']:.0%}".replace("%", " %")


def answered_by_vectors(report: TierReport) -> TierReport:
    """A model tier still building its model's index, whose stand-in vectors (``vectors``: the static
    ones) cover every item, answered for the whole corpus: ``answered``, with the model's progress
    (done/of) and each kind's share kept. Otherwise the report as it is."""
    shares = report.vectors or {}
    if report.status != "indexing" or not shares or max(shares.values()) < 1.0:
        return report
    return TierReport(report.name, "answered", report.ms, report.count, report.reason, report.enable, report.done,
                      report.of, report.vectors)


def still_building(report: TierReport) -> bool:
    """The tier answered or is answering while its model's vectors are not all in: a later answer
    will differ (the workbench asks again once they are)."""
    shares = report.vectors or {}
    return report.status == "indexing" or (report.status in ("answered", "empty") and "contextual" in shares
                                           and shares["contextual"] < 1.0)


@dataclass
class Batch:
    """One step of an answer: rows to append and the tier reports this step settles."""

    hits: list[Hit]
    tiers: list[TierReport]
    total: int | None = None  # the running total so far, when this batch changes it
    extras: dict[str, Any] = field(default_factory=dict)
    # Rows normally append and never move. A tier that reorders what came before (the products
    # judge) sends the whole new order instead, with replaces=True.
    replaces: bool = False


@dataclass
class Answer:
    engine: str
    query: str
    hits: list[Hit] = field(default_factory=list)
    tiers: list[TierReport] = field(default_factory=list)
    total: int = 0
    extras: dict[str, Any] = field(default_factory=dict)

    def apply(self, batch: Batch) -> None:
        """Fold one batch in: rows append (or replace, for a reordering tier); a tier's report
        replaces its earlier one in place."""
        if batch.replaces:
            self.hits = list(batch.hits)
        else:
            self.hits.extend(batch.hits)
        for report in batch.tiers:
            for i, old in enumerate(self.tiers):
                if old.name == report.name:
                    self.tiers[i] = report
                    break
            else:
                self.tiers.append(report)
        if batch.total is not None:
            self.total = batch.total
        self.extras.update(batch.extras)

    def tier(self, name: str) -> TierReport | None:
        return next((t for t in self.tiers if t.name == name), None)

    def to_json(self) -> dict[str, Any]:
        out = {
            "engine": self.engine,
            "query": self.query,
            "hits": [h.to_json() for h in self.hits],
            "tiers": [t.to_json() for t in self.tiers],
            "total": self.total,
        }
        out.update(self.extras)
        return out


def collect(engine: str, query: str, batches: Iterable[Batch]) -> Answer:
    answer = Answer(engine=engine, query=query)
    for batch in batches:
        answer.apply(batch)
    return answer
