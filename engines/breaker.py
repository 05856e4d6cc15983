"""One circuit breaker for every remote call (the HTTP judge, Milvus recall): after repeated failures,
stop calling for a while, then let one call through as a probe.

Closed: every search may call. After ``failures`` failures in a row (late, refused, an HTTP error, a
malformed answer) it opens: no call for ``open_s`` seconds and the local answer comes at once, saying
why. Then one search is let through as a probe; its success closes the breaker, its failure opens it
again. An endpoint that asks for a pause (a 429's Retry-After) opens it for that long, capped.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

# Three late judge answers in a row cost 3 x 800 ms of waiting; after that the fused order answers in
# milliseconds instead of 800 ms on every keystroke of a dead endpoint. Milvus: 3 x its 400 ms deadline.
FAILURES_TO_OPEN = 3
OPEN_S = 30.0
RETRY_AFTER_CAP_S = 600.0  # a Retry-After of a day is read as ten minutes: the breaker probes again then


class Breaker:
    def __init__(self, failures: int = FAILURES_TO_OPEN, open_s: float = OPEN_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.failures = failures  # failures in a row that open it
        self.open_s = open_s
        self.clock = clock
        self.in_a_row = 0
        self.probing = False  # open, its time is up, and one call is out trying
        self._open_until: float | None = None
        self._why = ""
        self._lock = threading.Lock()

    def refusal(self) -> str | None:
        """Why no call may be made now, or None (closed; or open and due a probe, which this call takes)."""
        with self._lock:
            if self._open_until is None:
                return None
            now = self.clock()
            if now < self._open_until:
                return f"{self._why}; not called again for {self._open_until - now:.1f} s"
            if self.probing:
                return f"{self._why}; a probe is out"
            self.probing = True
            return None

    def closed(self) -> bool:
        """May this search call? While open: no; when its time is up, yes for one search (the probe)."""
        return self.refusal() is None

    def seconds_left(self) -> float:
        with self._lock:
            return 0.0 if self._open_until is None else max(0.0, self._open_until - self.clock())

    def succeeded(self) -> None:
        with self._lock:
            self.in_a_row, self._open_until, self.probing = 0, None, False

    def failed(self, reason: str = "") -> None:
        with self._lock:
            self.in_a_row += 1
            if self.probing or self.in_a_row >= self.failures:  # a failed probe re-opens it at once
                self._open(self.open_s, f"breaker open after {self.in_a_row} failures in a row"
                                        + (f" (last: {reason})" if reason else ""))
            self.probing = False

    def record(self, ok: bool, reason: str = "") -> None:
        self.succeeded() if ok else self.failed(reason)

    def wait(self, seconds: float, reason: str) -> None:
        """The endpoint asked for a pause (429 Retry-After): no call until it is over."""
        with self._lock:
            self._open(min(max(seconds, 0.0), RETRY_AFTER_CAP_S), reason)

    def _open(self, seconds: float, why: str) -> None:
        until = self.clock() + seconds
        self._open_until = until if self._open_until is None else max(self._open_until, until)
        self._why = why
