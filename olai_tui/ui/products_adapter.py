"""The products engine in a pane: exact-name rows at once, then the fused recall, then the judged order
with label badges; a line above the rows says how the words were read and what the answer must say
("we do not sell that", "instead"); a product card as the preview.

The engine's tiers are exact, recall and judge. Its ``vectors`` recall source is the one that needs
the model, so the pane shows it as a tier of its own, off until switched on: the model is never
loaded unless a person asks for meaning. Recall and judge *replace* the rows shown so far
(``Batch.replaces``); the pane honours that.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Iterator, Sequence

from rich.text import Text

from engines.answer import RESEMBLANCE, Answer, Batch, Hit, TierReport
from engines.products.engine import EXACT, JUDGE, RECALL, ProductsEngine
from engines.products.engine import TIERS as ENGINE_TIERS
from engines.products.engine import recall_switched_off as products_recall_off
from engines.products.knowledge import words
from engines.products.recall import SOURCES
from olai_tui.ui.adapters import Column, Lazy, RowView, Target, between_answers
from olai_tui.ui.text import one_line, reflowed, shown

VECTORS = "vectors"
BADGE_STYLE = {"exact": "bold green", "variant": "bold cyan", "standin": "bold yellow", "no": "dim"}
CARD_TEXT = 1_500  # characters of ingredients or description on the card


class ProductsAdapter:
    name = "products"
    tiers = (EXACT, RECALL, VECTORS, JUDGE)
    default_off = (VECTORS,)  # the model: only when asked for
    labels = True  # the judge's label in a column of its own, beside the tier that found the row

    def __init__(self, engine: ProductsEngine | Callable[[], ProductsEngine], label: str,
                 router_from_config: bool = True) -> None:
        """``router_from_config``: recall's backend as config.toml's ``[products.recall]`` says, as the CLI
        does (a configured Milvus answers, memory the fallback); an engine given its own router keeps it."""
        self._router_notices: list[str] = []
        self._use_config = router_from_config
        if callable(engine) and not hasattr(engine, "search"):
            make = engine
            self._engine = Lazy(lambda: self._configured(make()))
        else:
            self._engine = Lazy(self._configured(engine))
        self.label = label
        self._meaning_on = False

    def _configured(self, engine: ProductsEngine) -> ProductsEngine:
        if not self._use_config:
            return engine
        from engines.products.backends.router import router_for, settings_from_config

        router = getattr(engine, "router", None)
        if router is None or router.backend != "memory" or router.milvus is not None:
            return engine  # a router chosen by whoever made the engine
        settings, problem = settings_from_config()
        if problem:
            self._router_notices.append(problem)
        if settings.backend == "memory-only":
            router.backend = "memory-only"
        if not settings.uri or settings.backend == "memory-only":
            return engine
        try:
            configured = router_for(engine, settings)
        except ImportError:
            self._router_notices.append("pymilvus is not installed (pip install -e '.[milvus]'); memory recall answers")
            return engine
        except Exception as exc:  # noqa: BLE001 - a bad uri: memory answers, and the footer says why
            self._router_notices.append(f"recall backend {settings.backend}: {one_line(str(exc))}; memory recall answers")
            return engine
        engine.router = configured
        router.close()
        return engine

    @property
    def engine(self) -> ProductsEngine:
        return self._engine.get()

    def load(self) -> None:
        self._engine.get()

    # -- searching -----------------------------------------------------------------------------
    def search(self, query: str, limit: int, tiers: Sequence[str]) -> Iterator[Batch]:
        vectors_on = VECTORS in tiers and not products_recall_off()
        if vectors_on:
            self._meaning_on = True
        sources = SOURCES if vectors_on else tuple(s for s in SOURCES if s != VECTORS)
        engine = self.engine
        engine_tiers = tuple(t for t in tiers if t in ENGINE_TIERS)
        first = True
        for batch in engine.search(query, limit, engine_tiers, sources=sources):
            if first and not vectors_on:
                batch.tiers.append(TierReport(VECTORS, "off", enable="ctrl+p › turn the vectors tier on"))
            elif vectors_on:
                report = self._vectors_report(batch)
                if report is not None:
                    batch.tiers.append(report)
            first = False
            yield batch

    def _vectors_report(self, batch: Batch) -> TierReport | None:
        """The vectors source's part of a recall batch, as a tier chip of its own."""
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
        state = self.engine.vectors.state()
        if status == "indexing":
            return TierReport(VECTORS, "indexing", ms, count, done=state.done, of=state.of)
        if status not in ("answered", "empty", "unavailable", "failed", "skipped"):
            status = "failed"
        return TierReport(VECTORS, status, ms, count, reason=source.get("reason"),
                          enable=state.enable if status == "unavailable" else None)

    def describe(self) -> str:
        if not self._engine.made:
            return f"the products in {one_line(self.label)}"
        return f"{len(self.engine.products):,} products in {one_line(self.label)}"

    def start(self) -> None:
        """Nothing until the vectors tier is switched on."""

    def tiers_on(self, tiers: Sequence[str]) -> None:
        if VECTORS in tiers and not products_recall_off():
            self._meaning_on = True
            self.engine.start_indexing()

    def live_reports(self) -> dict[str, TierReport]:
        if not self._meaning_on or not self._engine.made:
            return {}
        return between_answers(VECTORS, self.engine.vectors.state())

    def notices(self) -> list[str]:
        """A config problem with the recall backend, and the vector cache's notices (discarded, not persisted)."""
        out = list(self._router_notices)
        if self._engine.made:
            cache = getattr(getattr(self.engine, "_vectors", None), "_cache", None)
            out += list(getattr(cache, "notices", None) or [])
        return out

    def answer_notices(self, answer: Answer) -> list[str]:
        """Which recall backend answered, when it is not plain memory recall: Milvus, or memory after a fallback."""
        backend, fallback = answer.extras.get("recall_backend"), answer.extras.get("recall_fallback")
        if fallback:
            return [f"recall via {backend or 'memory'} ({fallback})"]
        if backend and backend != "memory":
            return [f"recall via {backend}"]
        return []

    def rebuild(self) -> str:
        return "the catalogue is read once, at start: restart olai-tui to read it again"

    def words(self, query: str) -> list[str]:
        return list(words(query))

    # -- what the pane shows -------------------------------------------------------------------
    def row(self, hit: Hit) -> RowView:
        label = hit.extras.get("label")
        kind = (hit.extras.get("kind") or "").replace("_", " ")  # plant_drink: the map's id, said as words
        facts = " · ".join(str(x) for x in (kind, hit.extras.get("quantity")) if x)
        return RowView(hit.title or hit.id, facts, hit.tier, tier_style="italic" if hit.marker else "",
                       label=label or "", label_style=BADGE_STYLE.get(label, "") if label else "")

    def summary(self, answer: Answer) -> Text | None:
        """How the words were read, and what the answer must tell the buyer."""
        extras = answer.extras
        out = Text(end="")
        flags = extras.get("flags") or []
        if "not_sold" in flags:
            out.append("we do not sell that", style="bold red")
            out.append(" — instead:" if "only_standins" in flags else "", style="bold yellow")
            out.append("\n")
        understood = extras.get("understood") or {}
        read = [f"{key} {', '.join(value) if isinstance(value, list) else value}".replace("_", " ")
                for key, value in understood.items() if value and key not in ("notes", "terms")]
        out.append("understood: ", style="bold")
        out.append(one_line(" · ".join(read)) or "nothing but words")
        if understood.get("terms"):
            out.append(" · words " + one_line(" ".join(understood["terms"])), style="dim")
        for note in understood.get("notes", []):
            out.append("\n  " + one_line(note), style="italic")
        if extras.get("reason") and (extras.get("path") == "fused" or "unsure" in flags):
            out.append(f"\n{one_line(str(extras['reason']))}", style="yellow")
        return out

    def product(self, hit: Hit):
        position = self.engine.catalogue.by_id.get(hit.id)
        return None if position is None else self.engine.products[position]

    def preview(self, hit: Hit, query: str) -> Text:
        return self.card(hit)

    def card(self, hit: Hit, text_chars: int = CARD_TEXT) -> Text:
        product = self.product(hit)
        if product is None:
            return Text("This product is no longer in the catalogue.", style="italic")
        x = hit.extras
        out = Text(one_line(product.title), style="bold", end="")
        label = x.get("label")
        if label:
            out.append("  ")
            out.append(f" {label} ", style="reverse " + BADGE_STYLE.get(label, ""))
            if x.get("why"):
                out.append(" " + one_line(x["why"]), style="dim")
        facts = [f for f in ((x.get("kind") or "").replace("_", " "), x.get("quantity"), product.brand) if f]
        out.append("\n" + one_line(" · ".join(str(f) for f in facts)), style="dim")
        claims = x.get("claims") or {}
        out.append("\n\nclaims      ", style="bold")
        out.append(one_line(", ".join(claims)) or "none stated")
        out.append("\nallergens   ", style="bold")
        if x.get("allergen_data"):
            out.append(one_line(", ".join(x.get("allergens") or [])) or "none declared")
            out.append("\ntraces      ", style="bold")
            out.append(one_line(", ".join(x.get("traces") or [])) or "none stated")
        else:
            out.append("no allergen data: not safe for an avoid request", style="yellow")
        if x.get("checks"):
            out.append("\nchecks      ", style="bold")
            out.append(one_line("; ".join(x["checks"])), style="green")
        sources = x.get("sources") or {}
        if sources:
            out.append("\nfound by    ", style="bold")
            out.append(", ".join(f"{name} #{rank}" for name, rank in sorted(sources.items(), key=lambda kv: kv[1])))
        if x.get("codes"):
            out.append("\ncode        ", style="bold")
            out.append(one_line(", ".join(x["codes"])))
        out.append("\nfrom        ", style="bold")
        out.append(one_line(os.path.basename(hit.where)), style="dim")  # food.tsv:756; y copies the whole path
        body = product.ingredients or product.description
        if body:
            out.append("\n\n")
            out.append(reflowed(shown(body[:text_chars])))
            if len(body) > text_chars:
                out.append(" …", style="dim")
        return out

    def full_text(self, hit: Hit) -> Text:
        return self.card(hit, text_chars=100_000)

    def target(self, hit: Hit, query: str) -> Target | None:
        path, _, line = hit.where.rpartition(":")
        if path and line.isdigit():
            return Target(path, int(line))
        return None

    # -- compare -------------------------------------------------------------------------------
    def compare_columns(self) -> list[Column]:
        return [Column("BM25", ("bm25",)), Column("vectors", (VECTORS,)), Column("fused", ("bm25", VECTORS), combined=True),
                Column("smart", self.tiers, combined=True)]

    def compare_search(self, column: Column, query: str, limit: int) -> Iterator[Batch]:
        """BM25 alone, vectors alone, the two fused by RRF (a standard hybrid setup: no rules, no judge),
        and smart search as the pane runs it with every tier on: the engine's ``rank`` baselines, which the
        food evaluation scores too."""
        if column.label == "smart":
            yield from self.search(query, limit, self.tiers)
            return
        engine = self.engine
        started = time.perf_counter()
        name = {"BM25": "bm25", "vectors": "knn", "fused": "hybrid_rrf"}[column.label]
        if name != "bm25":
            self._meaning_on = True
            state = engine.vectors.build()
            if state.state in ("unavailable", "failed"):
                yield Batch([], [TierReport(VECTORS, state.state, reason=state.reason, enable=state.enable)])
                return
        hits = []
        for ranked in engine.rank(name, query, limit):  # the engine's own baselines: the evaluation's too
            product = engine.products[engine.catalogue.by_id[ranked.id]]
            hits.append(Hit(product.id, product.title, product.source or product.id, column.tiers[-1],
                            round(ranked.score, 4), RESEMBLANCE if name == "knn" else "",
                            {"kind": product.kinds[0] if product.kinds else None}))
        ms = round((time.perf_counter() - started) * 1000, 3)
        reports = [TierReport(t, "answered" if hits else "empty", ms, len(hits)) for t in column.tiers]
        yield Batch(hits, reports, total=len(hits))

    def close(self) -> None:
        if self._engine.made:
            self.engine.close()


