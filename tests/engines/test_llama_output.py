"""Loading a model in one thread never takes the process's output from another. llama-cpp-python
silences a load by pointing file descriptors 1 and 2 at /dev/null and back; a one-shot search printed
its answer while its background index loaded MiniLM, and printed nothing (exit 0). Run as a real
subprocess: the loads and the writes race in it as they did there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

RACE = r"""
import os, sys, threading
from engines.embed.llama import LlamaEmbedder
from engines.embed.static import StaticEmbedder

stop = threading.Event()

def load_again_and_again():
    while not stop.is_set():
        LlamaEmbedder()._load("document")  # each load a fresh model: the window a search's index opens
        StaticEmbedder()._load_vocabulary()

loader = threading.Thread(target=load_again_and_again)
loader.start()
try:
    for i in range(LINES):
        os.write(1, b"out %d\n" % i)  # straight to the descriptor, as the final flush of a buffer does
        os.write(2, b"err %d\n" % i)
        if i % 50 == 0:
            stop.wait(0.01)
finally:
    stop.set()
    loader.join()
"""


def test_a_load_in_one_thread_loses_nothing_another_thread_writes():
    lines = 3000
    done = subprocess.run([sys.executable, "-c", f"LINES = {lines}\n" + RACE], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [f"out {i}" for i in range(lines)]
    assert done.stderr.splitlines() == [f"err {i}" for i in range(lines)], "llama.cpp's log reached stderr"
