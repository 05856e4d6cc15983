"""The HTTP judge's circuit breaker: after repeated failures, stop calling for a while, then probe once.

Closed: every search may call the endpoint. After ``FAILURES_TO_OPEN`` failures in a row (late,
refused, an HTTP error, a malformed answer) it opens: no request is sent for ``OPEN_S`` and the
fused order answers at once, saying why. Then one search is let through as a probe; its success
closes the breaker, its failure opens it again. A 429 with ``Retry-After`` opens it for as long as
the endpoint asked (capped), whatever the count.
"""

from __future__ import annotations

import threading
import time

# Three late answers in a row cost 3 x 800 ms of waiting; after that the fused order answers in
# milliseconds instead of 800 ms on every keystroke of a dead endpoint.
FAILURES_TO_OPEN = 3
OPEN_S = 30.0
RETRY_AFTER_CAP_S = 600.0  # a Retry-After of a day is read as ten minutes: the breaker probes again then


class Breaker:
    def __init__(self, failures_to_open: int = FAILURES_TO_OPEN, open_s: float = OPEN_S) -> None:
        self.failures_to_open = failures_to_open
        self.open_s = open_s
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until = 0.0
        self._why = ""
        self._probing = False

    def refusal(self) -> str | None:
        """Why no request may be sent now, or None (closed; or open and due a probe, which this call takes)."""
        with self._lock:
            now = time.monotonic()
            if self._open_until == 0.0:
                return None
            if now < self._open_until:
                return f"{self._why}; not called again for {self._open_until - now:.1f} s"
            if self._probing:
                return f"{self._why}; a probe is out"
            self._probing = True
            return None

    def succeeded(self) -> None:
        with self._lock:
            self._failures, self._open_until, self._probing = 0, 0.0, False

    def failed(self, reason: str) -> None:
        with self._lock:
            self._failures += 1
            if self._probing or self._failures >= self.failures_to_open:
                self._open(self.open_s, f"breaker open after {self._failures} failures in a row (last: {reason})")
            self._probing = False

    def wait(self, seconds: float, reason: str) -> None:
        """The endpoint asked for a pause (429 Retry-After): no request until it is over."""
        with self._lock:
            self._open(min(max(seconds, 0.0), RETRY_AFTER_CAP_S), reason)

    def _open(self, seconds: float, why: str) -> None:
        self._open_until = max(self._open_until, time.monotonic() + seconds)
        self._why = why
