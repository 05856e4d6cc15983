"""The workbench leaves when its terminal goes (olai_tui/terminal.py).

A real workbench (the demo corpora) in a real pseudo-terminal, started in a session of its own that the
pty does not control, as under ``make run`` in a tmux pane: when the pty's far end closes, no SIGHUP
reaches it and its reads return end-of-file. Before olai_tui/terminal.py it went on at most of a core
until killed; now it exits within a few seconds, with 129 (128 + SIGHUP).
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from olai_tui.terminal import GONE_RETURN_CODE, hung_up

ROOT = Path(__file__).resolve().parents[2]
START = "import sys; from olai_tui.cli import main; sys.exit(main([]))"


def read_until(master: int, wanted: bytes, seconds: float) -> bytes:
    seen, ends = b"", time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < ends:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    return seen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pty's hangup")
def test_the_workbench_exits_when_its_terminal_closes(tmp_path):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 35, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "OLAI_RECALL": "off", "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("NO_COLOR", None)
    app = subprocess.Popen([sys.executable, "-c", START], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env,
                           start_new_session=True)  # its own session, the pty not its controlling terminal
    os.close(slave)
    try:
        drawn = read_until(master, b"ctrl+p", 60)
        assert b"ctrl+p" in drawn, drawn[-400:]
        os.close(master)
        master = -1
        assert app.wait(timeout=15) == GONE_RETURN_CODE
    finally:
        if master >= 0:
            os.close(master)
        if app.poll() is None:
            app.kill()
            app.wait()


def test_a_closed_pty_reads_as_hung_up_and_an_open_one_or_a_file_does_not(tmp_path):
    master, slave = os.openpty()
    assert not hung_up(slave)
    os.close(master)
    assert hung_up(slave)
    os.close(slave)
    with open(tmp_path / "f", "w") as plain:  # not a terminal at all (a pipe, a test's stdin): never "gone"
        assert not hung_up(plain.fileno())
