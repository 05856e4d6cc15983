"""The workbench leaves when its terminal does.

When a terminal closes (a tmux pane killed, an ssh connection dropped, a window closed) the kernel
hangs up its tty: reads return end-of-file at once, every ioctl fails with EIO, and SIGHUP goes to the
session leader. The workbench is seldom that leader (``make run``, a shell), and once the tty is hung
up no SIGHUP reaches the rest of the session, so the workbench never hears of it while Textual's input
thread reads end-of-file in a loop. Seen: ``make run`` in a tmux pane closed by ``tmux kill-session``
went on at ~95 % of a core for 34 minutes (reproduced 2026-12-06: 74 %, SIGHUP neither caught nor
pending). So the app asks its terminal every second whether it is still there and leaves when it is
not, and takes a SIGHUP, when one does arrive, the same way: an orderly exit that closes its engines.
"""

from __future__ import annotations

import errno
import os
import sys

try:
    import termios
except ImportError:  # Windows: no ttys to hang up; the checks below are off
    termios = None

CHECK_EVERY_S = 1.0  # one tcgetattr a second: nothing beside a frame
GONE_RETURN_CODE = 129  # 128 + SIGHUP, as a shell reports a command its hangup ended


def terminal_fd() -> int | None:
    """The terminal the app reads its keys from, or None where it has none (headless, a pipe, Windows)."""
    if termios is None:
        return None
    try:
        fd = sys.__stdin__.fileno()
    except (AttributeError, ValueError, OSError):
        return None
    return fd if os.isatty(fd) else None


def hung_up(fd: int) -> bool:
    """The terminal behind ``fd`` has gone: a hung-up tty answers every ioctl with EIO."""
    try:
        termios.tcgetattr(fd)
    except termios.error as exc:
        return bool(exc.args) and exc.args[0] == errno.EIO
    return False
