"""A progress line on stderr for long work (indexing, evaluation), quiet when stderr is not a terminal.

On a terminal it redraws one line; elsewhere it prints at most one line per tenth of the work, so a
log shows that something moves without filling up.
"""

from __future__ import annotations

import os
import sys
import time

from olai_tui import interrupt


class Progress:
    def __init__(self, label: str, stream=None, width: int = 28) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.color = self.tty and not os.environ.get("NO_COLOR")
        self._last_tenth = -1
        self._last_draw = 0.0
        self._started = time.monotonic()

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
            self.stream.write(f"\r{self.label} {bar} {done:,}/{of:,}")
            self.stream.flush()
        else:
            tenth = done * 10 // of
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                self.stream.write(f"{self.label} {done:,}/{of:,}\n")
                self.stream.flush()

    def finish(self, text: str = "") -> None:
        seconds = time.monotonic() - self._started
        end = f"{self.label} done in {seconds:.1f} s{(': ' + text) if text else ''}"
        if self.tty:
            self.stream.write("\r\x1b[2K" + end + "\n")
        else:
            self.stream.write(end + "\n")
        self.stream.flush()
