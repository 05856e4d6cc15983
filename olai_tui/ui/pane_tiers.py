"""A search pane's tiers: which are switched on here, and what each is doing, said in the footer.

SearchPane (pane.py) is a PaneTiers. A tier is switched off or on in the pane (the palette, the
exact-only key), and one switched off says how to switch it back on there; between answers the footer
follows each tier's index (polled off the event loop) and the engine's notices.
"""

from __future__ import annotations

import asyncio

from textual.binding import Binding

from engines.answer import Answer, Batch, TierReport, still_building
from olai_tui.ui.footer import TierFooter, footer_text, format_ms
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.keys import DEFAULT_KEYS

LIVE_POLL_S = 0.5  # index progress in the footer: moves visibly without costing a core


class PaneTiers:
    """The tiers' part of SearchPane: it reads the state below, which the pane sets (SearchPane.__init__),
    and asks the pane to search again (run_query) once a tier is switched or an index is ready."""

    adapter: EngineAdapter
    answer: Answer | None
    live: dict[str, TierReport]
    notices: list[str]
    switched_off: set[str]
    searching: bool
    _polling: bool
    _bindings: object  # the pane's own bindings (textual's BindingsMap): only_binding adds the exact-only key

    # -- switching tiers off and on ------------------------------------------------------------
    def active_tiers(self) -> tuple[str, ...]:
        return tuple(t for t in self.adapter.tiers if t not in self.switched_off)

    async def _tiers_on(self) -> None:
        """Tell the adapter which tiers are on, so a tier switched on starts its index (off the event loop)."""
        try:
            await asyncio.to_thread(self.adapter.tiers_on, self.active_tiers())
        except Exception:  # noqa: BLE001 - the next search reports the tier's failure in its chip
            pass

    def _explained(self, batch: Batch) -> Batch:
        """A tier the person switched off here says how to switch it back on here, not on the CLI."""
        for report in batch.tiers:
            if report.status == "off" and report.name in self.switched_off:
                report.enable = self._how_to_switch_on(report.name)
        return batch

    def _how_to_switch_on(self, tier: str) -> str:
        if tier in self._default_off() and self._default_off() != set(self.adapter.tiers[1:]):
            return f"ctrl+p › turn the {tier} tier on"  # exact-only's key brings back the defaults: off
        key = getattr(self.app, "key_for", lambda key_id: DEFAULT_KEYS[key_id][0].split(",")[0])
        return f"ctrl+p › turn the {tier} tier on (or {key('exact-only')})"

    def _default_off(self) -> set[str]:
        return set(self.adapter.default_off)

    def toggle_tier(self, tier: str) -> None:
        self.switched_off ^= {tier}
        self._after_switch()

    def toggle_exact_only(self) -> None:
        """Exact only, or back: to the pane's defaults (every tier, when exact only is the default)."""
        slow = set(self.adapter.tiers[1:])
        default = self._default_off()
        back = default if default != slow else set()
        self.switched_off = back if slow <= self.switched_off else slow
        self._after_switch()

    def exact_only_label(self) -> str:
        """What the exact-only key does in this pane now: ``Exact only``, ``Lexical only`` (code), or back."""
        if self.adapter.tiers[1:] and set(self.adapter.tiers[1:]) <= self.switched_off:
            slow = set(self.adapter.tiers[1:])
            return "Every tier" if not self._default_off() or self._default_off() == slow else "Default tiers"
        return f"{self.adapter.tiers[0].capitalize()} only" if self.adapter.tiers else "Exact only"

    def _after_switch(self) -> None:
        self.only_binding()
        self.run_worker(self._tiers_on(), group="tiers", exit_on_error=False)
        self.run_query(self.query_text, debounce=False)

    def only_binding(self) -> None:
        """The exact-only key, bound on the pane with the label of what it does here now (the footer shows
        it while the pane has the focus); remapped by its id as every binding is."""
        keys, tooltip = DEFAULT_KEYS["exact-only"]
        for key in keys.split(","):
            self._bindings.key_to_bindings[key] = [
                Binding(key, "exact_only", self.exact_only_label(), priority=True, id="exact-only", tooltip=tooltip)]
        if self.is_attached:
            self.app.refresh_bindings()

    def action_exact_only(self) -> None:
        self.toggle_exact_only()

    # -- the tier footer -----------------------------------------------------------------------
    def render_footer(self) -> None:
        show_ms = getattr(self.app, "format_ms", format_ms)
        live = {name: report for name, report in self.live.items() if name not in self.switched_off}
        for name in self.switched_off:  # off here, even before the first answer says so
            live[name] = TierReport(name, "off", enable=self._how_to_switch_on(name))
        said = self.adapter.active_filters(self.answer) if self.answer is not None else ""
        tiers, answer, searching, notices = self.adapter.tiers, self.answer, self.searching, self.footer_notices()
        idle = "ready" if self.adapter.made else "opening"
        self.query_one(TierFooter).show_fitted(lambda width: footer_text(tiers, answer, live, searching, show_ms,
                                                                         notices, said, idle, width))

    def footer_notices(self) -> list[str]:
        """What the footer says under the chips: the answer's own (recall fell back) and the engine's."""
        said: list[str] = []
        if self.answer is not None:
            try:
                said += self.adapter.answer_notices(self.answer)
            except Exception:  # noqa: BLE001 - a notice never breaks the footer
                pass
        return said + [n for n in self.notices if n not in said]

    async def poll_live(self) -> None:
        """Index progress (and unavailability) between answers; re-asks the query once the index is ready.

        It never stops: an edit the watcher picks up sets the index building again. Once the index
        is ready, asking is a lookup (no counting), so a poll every LIVE_POLL_S costs nothing.
        """
        if self._polling:
            return
        self._polling = True
        try:
            try:
                live = await asyncio.to_thread(self.adapter.live_reports, self.active_tiers())
            except Exception as exc:  # noqa: BLE001
                live = {t: TierReport(t, "failed", reason=f"{type(exc).__name__}: {exc}") for t in self.adapter.tiers[1:]}
            notices = await asyncio.to_thread(_adapter_notices, self.adapter)
            was_indexing = any(r.status == "indexing" for r in self.live.values())
            if live != self.live or notices != self.notices:
                self.live = live
                self.notices = notices
                self.render_footer()
            still_indexing = any(r.status == "indexing" for r in live.values())
            if was_indexing and not still_indexing and self.answer is not None:
                if any(still_building(t) for t in self.answer.tiers):
                    self.run_query(self.query_text, debounce=False)  # the partial answer is now complete
        finally:
            self._polling = False


def _adapter_notices(adapter: EngineAdapter) -> list[str]:
    """The engine's notices, each once, in the order they came."""
    try:
        found = adapter.notices()
    except Exception as exc:  # noqa: BLE001 - said, never raised into the poll
        found = [f"could not read the engine's notices: {type(exc).__name__}: {exc}"]
    out: list[str] = []
    for notice in found:
        if notice and notice not in out:
            out.append(str(notice))
    return out
