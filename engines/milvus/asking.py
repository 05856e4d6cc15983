"""Asking a remote backend within a deadline, behind a breaker: the part every router shares.

Products' recall router and code's search router both ask Milvus the same way: not at all while the
breaker is open (the reason said instead), on a worker thread with what is left of the deadline, a
late or failed call counted against the breaker and answered by the local fallback with one line of
why. What is asked, and what the fallback is, stays with each router.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, TypeVar

from engines.breaker import Breaker

T = TypeVar("T")
# Milvus on loopback answers Icecat in a few ms (engines/eval/bench/products/milvus.py); 400 ms is a stalled server
DEADLINE_S = 0.4


class DeadlineAsk:
    """``ask(call)``: ``call(seconds left)`` on a worker, its value or (None, why) within the deadline."""

    def __init__(self, deadline_s: float = DEADLINE_S, breaker: Breaker | None = None, workers: int = 4,
                 name: str = "olai-remote") -> None:
        self.deadline_s = deadline_s
        self.breaker = breaker or Breaker()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)

    def refusal(self) -> str | None:
        """Why no call goes out now (the breaker is open), or None."""
        if self.breaker.closed():
            return None
        if self.breaker.probing:
            return f"breaker open after {self.breaker.failures} failures in a row (a probe is out)"
        return (f"breaker open after {self.breaker.failures} failures in a row "
                f"(next try in {self.breaker.seconds_left():.0f} s)")

    def ask(self, call: Callable[[float], T], started: float | None = None,
            on_failure: Callable[[], None] | None = None) -> tuple[T | None, str | None]:
        """(``call``'s value, None), or (None, why) when it failed or missed the deadline counted from
        ``started`` (monotonic; now when None). Checks the breaker first unless the caller did."""
        started = time.monotonic() if started is None else started
        left = max(0.01, self.deadline_s - (time.monotonic() - started))
        job = self._pool.submit(call, left)
        try:
            value = job.result(timeout=left)
        except Exception as exc:  # noqa: BLE001 - late, refused, killed, unready: the fallback answers
            self.breaker.record(False)
            if on_failure is not None:
                on_failure()
            if late(exc):
                return None, f"no answer within {self.deadline_s * 1000:.0f} ms"
            return None, reason(exc)
        self.breaker.record(True)
        return value, None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class Asks:
    """A router that asks through ``self.asking``: its breaker, readable and replaceable (a test's, with
    its own clock)."""

    asking: DeadlineAsk

    @property
    def breaker(self) -> Breaker:
        return self.asking.breaker

    @breaker.setter
    def breaker(self, breaker: Breaker) -> None:
        self.asking.breaker = breaker


def late(exc: Exception) -> bool:
    """Whether the deadline passed: our wait ran out, or gRPC's own deadline (given the same time left) fired
    first and its error reached the wait before the wait woke (seen under load on CI)."""
    if isinstance(exc, (FutureTimeout, TimeoutError)):
        return True
    code = getattr(exc, "code", None)
    try:
        return callable(code) and getattr(code(), "name", "") == "DEADLINE_EXCEEDED"
    except Exception:  # noqa: BLE001 - not a grpc status after all
        return False


def reason(exc: Exception) -> str:
    code = getattr(exc, "code", None)
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    if callable(code):  # a raw grpc error: its status says more than its repr
        try:
            text = f"{code().name.lower()}: {exc.details() or ''}".strip(": ")
        except Exception:  # noqa: BLE001
            pass
    return (text or type(exc).__name__)[:200]
