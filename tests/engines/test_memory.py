"""engines/memory.py: threads started after share_one_heap share one heap (glibc); importing the engines alone
changes nothing (the workbench keeps glibc's arena a thread)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Threads allocate and keep a block each, then glibc's malloc_info lists the arenas (one <heap> each).
PROBE = """
import ctypes, ctypes.util, sys, tempfile, threading
import engines.memory
if sys.argv[1] == "shared":
    engines.memory.share_one_heap()
kept = []
def allocate():
    kept.append([bytearray(100_000) for _ in range(20)])
threads = [threading.Thread(target=allocate) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile("r") as out:
    fh = libc.fopen(out.name.encode(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(fh))
    libc.fclose(ctypes.c_void_p(fh))
    print(out.read().count("<heap nr="))
"""


def arenas(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_threads_allocate_from_one_heap_once_asked_and_from_their_own_otherwise():
    assert arenas("default") > 1, "glibc gives threads arenas of their own by default, the engines imported"
    assert arenas("shared") == 1

