"""What every background vector index reports, and how it settles after a build (notes, code, products)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class IndexState:
    state: str  # idle | building | ready | unavailable | failed
    done: int  # items (notes, symbols, products) whose vectors are all in
    of: int
    reason: str | None = None
    enable: str | None = None


class SettlesWithCooldown:
    """For an index with ``_lock``, ``_state``, ``_cooldown`` (retry.Cooldown) and ``retry`` (RetryPolicy):
    a failed or unavailable build starts the cooldown, a ready one clears it."""

    def _settle(self, state: IndexState) -> IndexState:
        with self._lock:
            self._state = state
            if state.state in ("unavailable", "failed"):
                self._cooldown.failed()
            elif state.state == "ready":
                self._cooldown.cleared()
        return state

    def _cooling_down(self) -> bool:
        """Unavailable or failed, and the last attempt is younger than the cooldown."""
        return self._state.state in ("unavailable", "failed") and not self._cooldown.may_retry(self.retry.cooldown_s)
