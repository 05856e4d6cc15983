"""How the products engine is presented (engines/contract.py's presentation methods).

Exact-name rows at once, then the fused recall, then the judged order with label badges; a line
above the rows says how the words were read and what the answer must say ("we do not sell that",
"instead"); a product card as the preview. Recall's ``vectors`` source is the one that needs the
model, so it is shown as a tier of its own, off until switched on: the model is never loaded unless
a person asks for meaning. The compare screen's columns are the standard baselines (BM25, vectors
alone, the two fused by RRF) beside the smart search. Mixed into
:class:`~engines.products.engine.ProductsEngine`."""

from __future__ import annotations

import time
from typing import Iterator, Sequence

from engines.answer import RESEMBLANCE, Answer, Batch, Hit, TierReport
from engines.contract import Comparison, Presentation, Spans
from engines.products.knowledge import words
from engines.products.recall import SOURCES
from engines.tiers import recall_switched_off

VECTORS = "vectors"
EXACT, RECALL, JUDGE = "exact", "recall", "judge"
BADGE_STYLE = (("exact", "bold green"), ("variant", "bold cyan"), ("standin", "bold yellow"), ("no", "dim"))


NARROWING = ("source", "animal", "form", "property")  # understood.words roles a row must carry (accounting.py)


class ProductsPresenting:
    presentation = Presentation(where=("kind", "quantity"), badge="label", badge_styles=BADGE_STYLE, preview="card",
                                printout="judged")

    @classmethod
    def shown_tiers(cls) -> tuple[str, ...]:
        return (EXACT, RECALL, VECTORS, JUDGE)

    def readings(self) -> list[str]:
        from engines.products.readings import reading_lines

        return reading_lines(self.catalogue)

    @classmethod
    def opt_in_tiers(cls) -> tuple[str, ...]:
        return (VECTORS,)  # the model: only when asked for

    def search_shown(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        """The engine's tiers that are on, recall with or without its vectors source, and the vectors
        source's part of recall reported as a tier chip of its own."""
        vectors_on = VECTORS in tiers and not recall_switched_off()
        sources = SOURCES if vectors_on else tuple(s for s in SOURCES if s != VECTORS)
        first = True
        for batch in self.search(query, limit, tuple(t for t in tiers if t in self.tiers), sources=sources):
            if first and not vectors_on:
                batch.tiers.append(TierReport(VECTORS, "off", enable="ctrl+p › turn the vectors tier on"))
            elif vectors_on:
                report = self._vectors_report(batch)
                if report is not None:
                    batch.tiers.append(report)
            first = False
            yield batch

    def _vectors_report(self, batch: Batch) -> TierReport | None:
        recall = next((r for r in batch.tiers if r.name == RECALL), None)
        if recall is None:
            return None
        if recall.status == "off":
            return TierReport(VECTORS, "off", enable="turn the recall tier on: vectors is one of its sources")
        if recall.status == "skipped":
            return TierReport(VECTORS, "skipped", reason=recall.reason)
        source = batch.extras.get("sources", {}).get(VECTORS)
        if source is None:
            return None
        status, ms, count = source.get("status") or "empty", source.get("ms"), source.get("count", 0)
        state = self.vectors.state()
        if status == "indexing":
            return TierReport(VECTORS, "indexing", ms, count, done=state.done, of=state.of)
        if status not in ("answered", "empty", "unavailable", "failed", "skipped"):
            status = "failed"
        return TierReport(VECTORS, status, ms, count, reason=source.get("reason"),
                          enable=state.enable if status == "unavailable" else None)

    def switch_on(self, tiers: Sequence[str]) -> None:
        if VECTORS in tiers and not recall_switched_off():
            self.start_indexing()

    def live(self, tiers: Sequence[str]) -> list[TierReport]:
        """The vectors source between answers, once it was switched on (its index made)."""
        from engines.contract import model_tier_report

        if VECTORS not in tiers or self._vectors is None:
            return []
        report = model_tier_report(VECTORS, self._vectors.state(), False)
        return [] if report.status == "answered" else [report]

    def highlights(self, text: str) -> list[str]:
        return list(words(text))

    def summary(self, answer: Answer) -> Spans:
        """How the words were read, and what the answer must tell the buyer."""
        extras = answer.extras
        out: Spans = []
        flags = extras.get("flags") or []
        if "not_sold" in flags:
            out.append(("we do not sell that", "bold red"))
            out.append((" — instead:" if "only_standins" in flags else "", "bold yellow"))
            out.append(("\n", ""))
        understood = extras.get("understood") or {}
        read = [f"{key} {', '.join(value) if isinstance(value, list) else value}".replace("_", " ")
                for key, value in understood.items() if value and key not in ("notes", "terms", "words")]
        out.append(("understood: ", "bold"))
        out.append((_one_line(" · ".join(read)) or "nothing but words", ""))
        if understood.get("terms"):
            out.append((" · words " + _one_line(" ".join(understood["terms"])), "dim"))
        narrowing = [w["word"] for w in understood.get("words", []) if w["as"] in NARROWING]
        if narrowing:  # what a row must carry to be the thing (issue 58): "oat" of "oat milk"
            out.append((" · must carry " + _one_line(", ".join(narrowing)), ""))
        for note in understood.get("notes", []):
            out.append(("\n  " + _one_line(note), "italic"))
        if extras.get("reason") and (extras.get("path") == "fused" or "unsure" in flags):
            out.append((f"\n{_one_line(str(extras['reason']))}", "yellow"))
        return out

    def answer_notices(self, answer: Answer) -> list[str]:
        """Which recall backend answered, when it is not plain memory recall: Milvus, or memory after a fallback."""
        backend, fallback = answer.extras.get("recall_backend"), answer.extras.get("recall_fallback")
        if fallback:
            return [f"recall via {backend or 'memory'} ({fallback})"]
        if backend and backend != "memory":
            return [f"recall via {backend}"]
        return []

    def comparisons(self) -> list[Comparison]:
        return [Comparison("BM25", ("bm25",), ranking="bm25"), Comparison("vectors", (VECTORS,), ranking="knn"),
                Comparison("fused", ("bm25", VECTORS), combined=True, ranking="hybrid_rrf"),
                Comparison("smart", self.shown_tiers(), combined=True)]

    def compare(self, column: Comparison, query: str, limit: int) -> Iterator[Batch]:
        """BM25 alone, vectors alone, the two fused by RRF (a standard hybrid setup: no rules, no judge),
        and smart search as the pane runs it with every tier on: the engine's ``rank`` baselines, which the
        food evaluation scores too."""
        if column.ranking is None:
            yield from self.search_shown(query, limit, column.tiers)
            return
        started = time.perf_counter()
        if column.ranking != "bm25":
            state = self.vectors.build()
            if state.state in ("unavailable", "failed"):
                yield Batch([], [TierReport(VECTORS, state.state, reason=state.reason, enable=state.enable)])
                return
        hits = []
        for ranked in self.rank(column.ranking, query, limit):
            product = self.products[self.catalogue.by_id[ranked.id]]
            hits.append(Hit(product.id, product.title, product.source or product.id, column.tiers[-1],
                            round(ranked.score, 4), RESEMBLANCE if column.ranking == "knn" else "",
                            {"kind": product.kinds[0] if product.kinds else None}))
        ms = round((time.perf_counter() - started) * 1000, 3)
        reports = [TierReport(t, "answered" if hits else "empty", ms, len(hits)) for t in column.tiers]
        yield Batch(hits, reports, total=len(hits))

    def rebuild(self) -> str:
        return "the catalogue is read once, at start: restart olai-tui to read it again"


def card_fields(product) -> tuple[tuple[str, str], ...]:
    """What a product card shows beyond the hit's extras (``Passage.fields``)."""
    return (("brand", product.brand or ""), ("ingredients", product.ingredients or ""),
            ("description", product.description or ""))


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
