"""ctrl+c during a long loop stops it even when the KeyboardInterrupt lands in a C callback and is lost."""

from __future__ import annotations

import ctypes
import io
import os
import signal
import sys

import pytest

from olai_tui import interrupt
from olai_tui.progress import Progress


def _sigint_inside_a_ctypes_callback() -> None:
    # What llama.cpp's log callback did in CI: the signal's handler runs inside a Python function
    # called from C, and ctypes prints "Exception ignored ..." and drops the KeyboardInterrupt.
    callback = ctypes.CFUNCTYPE(None)(lambda: os.kill(os.getpid(), signal.SIGINT))
    callback()


def test_a_swallowed_ctrl_c_stops_at_the_next_progress_call_and_prints_no_traceback(monkeypatch):
    # SIGINT at Python's default, as a terminal's program has it: a suite run as a background job
    # inherits it ignored, and then ctrl+c is not ours to record
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    reported = []  # what would reach stderr as "Exception ignored on calling ctypes callback function"
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    try:
        progress = Progress("work", stream=io.StringIO())
        done = []
        with pytest.raises(KeyboardInterrupt):
            with interrupt.recorded():
                for step in range(1, 4):
                    if step == 2:
                        _sigint_inside_a_ctypes_callback()  # the exception is lost here: the loop goes on
                    done.append(step)
                    progress(step, 3)
        assert done == [1, 2], "the step that was running finishes; none after it starts"
        assert reported == [], "the dropped ctrl+c's report is kept off the terminal"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the usual handler is back"
        assert sys.unraisablehook == reported.append, "and the usual report for anything else"
    finally:
        signal.signal(signal.SIGINT, previous)


def test_other_exceptions_in_callbacks_are_still_reported(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)

    def fail() -> None:
        raise ValueError("a real bug in a callback")

    with interrupt.recorded():
        ctypes.CFUNCTYPE(None)(fail)()
    assert [type(u.exc_value) for u in reported] == [ValueError]


def test_without_ctrl_c_progress_never_raises_and_an_ignored_sigint_stays_ignored():
    progress = Progress("work", stream=io.StringIO())
    with interrupt.recorded():
        for step in range(1, 4):
            progress(step, 3)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupt.recorded():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
