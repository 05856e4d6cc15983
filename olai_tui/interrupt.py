"""ctrl+c that cannot be swallowed.

Python raises KeyboardInterrupt wherever the main thread happens to be when SIGINT's handler runs.
When that is a Python callback called from C (llama.cpp's log callback, through ctypes), ctypes
prints "Exception ignored on calling ctypes callback function" and drops it: the run went on to
its end and exited 0 (seen in CI, eval products food). So the handler also records the signal, and
the long loops' progress calls `check()`, which raises it again from ordinary Python code. The
report ctypes prints for the dropped one ("Exception ignored ...", with a traceback) is kept off the
user's terminal while the block runs: the ctrl+c is not lost, and the command ends with its usual
one line (a later CI run printed that traceback above "interrupted").
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

_pressed = threading.Event()


def _on_sigint(signum, frame) -> None:
    _pressed.set()
    raise KeyboardInterrupt


def check() -> None:
    """Raise KeyboardInterrupt in the main thread if ctrl+c was pressed and its exception got lost."""
    if _pressed.is_set() and threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt


@contextlib.contextmanager
def recorded():
    """Record ctrl+c for `check()` while the block runs; a SIGINT that was ignored stays ignored."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _pressed.clear()
    report = sys.unraisablehook

    def unless_recorded(unraisable) -> None:
        if not (isinstance(unraisable.exc_value, KeyboardInterrupt) and _pressed.is_set()):
            report(unraisable)

    signal.signal(signal.SIGINT, _on_sigint)
    sys.unraisablehook = unless_recorded
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = report
        _pressed.clear()
