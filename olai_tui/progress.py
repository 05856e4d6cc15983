"""A progress line on stderr for long work (indexing, evaluation), quiet when stderr is not a terminal.

On a terminal it redraws one line; elsewhere it prints at most one line per tenth of the work, so a
log shows that something moves without filling up.
"""

from __future__ import annotations

import os
import sys
import time

from engines.terminal_text import write_control
from olai_tui import interrupt


class Progress:
    def __init__(self, label: str, stream=None, width: int = 28) -> None:
        self.label = self.base = label
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.color = self.tty and not os.environ.get("NO_COLOR")
        self._last_tenth = -1
        self._last_draw = 0.0
        self._started = time.monotonic()
        self._drawn = False

    def stage(self, name: str) -> None:
        """Work in stages (notes: the static vectors, then the model's), each on its own line, named: the
        last line a stage drew stays, so a person sees it reach its end before the next one starts."""
        if self.tty and self._drawn:
            self.stream.write("\n")
        self.label = f"{self.base}: {name}"
        self._last_tenth = -1
        self._drawn = False

    def __call__(self, done: int, of: int) -> None:
        interrupt.check()  # a ctrl+c that a C callback swallowed stops the work here
        if of <= 0:
            return
        if self.tty:
            now = time.monotonic()
            if done < of and now - self._last_draw < 0.1:
                return
            self._last_draw = now
            filled = int(self.width * done / of)
            bar = "█" * filled + "░" * (self.width - filled)
            write_control(self.stream, "\r")  # the label may hold a corpus's name: only the redraw is ours
            self.stream.write(f"{self.label} {bar} {done:,}/{of:,}")
            self._drawn = True
            self.stream.flush()
        else:
            tenth = done * 10 // of
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                self.stream.write(f"{self.label} {done:,}/{of:,}\n")
                self.stream.flush()

    def finish(self, text: str = "") -> None:
        seconds = time.monotonic() - self._started
        end = f"{self.base} done in {seconds:.1f} s{(': ' + text) if text else ''}"
        if self.tty:
            write_control(self.stream, "\r\x1b[2K")
            self.stream.write(end + "\n")
        else:
            self.stream.write(end + "\n")
        self.stream.flush()


class WaitLine:
    """What a one-shot command waits on before it can answer (a large tree read, a first index build
    a search waits for), on one redrawn line of a terminal's stderr: drawn only once the wait has
    lasted ``SHOW_AFTER_S`` and wiped when the answer is printed, so a quick search shows nothing
    extra; silent where stderr is not a terminal (a script reads the answer, not a bar).

    Called as ``WaitProgress`` (engines/contract.py): ``line(done, of, what)``."""

    SHOW_AFTER_S = 0.5  # a first screen within half a second needs no word about waiting

    def __init__(self, engine: str, stream=None) -> None:
        self.engine = engine
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._drawn = False
        self._closed = False

    def __call__(self, done: int, of: int, what: str) -> None:
        interrupt.check()  # a ctrl+c that a C callback swallowed stops the wait here
        if not self.tty or self._closed or of <= 0:
            return
        now = time.monotonic()
        if now - self._started < self.SHOW_AFTER_S or (done < of and now - self._last_draw < 0.1):
            return
        self._last_draw = now
        self._drawn = True
        write_control(self.stream, "\r\x1b[2K")
        self.stream.write(f"{self.engine}: {what} {done:,}/{of:,}")
        self.stream.flush()

    def clear(self) -> None:
        """Wipe the line (if one was drawn) before the answer is printed."""
        if self._drawn:
            write_control(self.stream, "\r\x1b[2K")
            self.stream.flush()
            self._drawn = False

    def close(self) -> None:
        """Wipe the line and never draw again (the terminal is someone else's now)."""
        self.clear()
        self._closed = True
