"""Python's cyclic garbage collector paused while a corpus is parsed and indexed.

Parsing builds millions of short-lived objects (ast nodes, lines, words) that reference counting
frees at once, and keeps tens of thousands of long-lived ones (symbols, documents). The collector,
triggered by the allocations, walks the long-lived ones again and again, and finds nothing. The
standard library (73,653 symbols), CPU ms per 10k symbols on 2 shared cores: parse + BM25 build
1,509-1,681 -> 1,077-1,149 in a fresh process (parse 973-1,125 -> 614-662); in a process already
holding a corpus, parse 1,904 -> 674 and build 975 -> 483. Nothing made in a parse forms a cycle,
so nothing waits for the collector; it runs again the moment the last paused section ends.

The notes engine pauses it too while a vault opens: 100,000 notes read back from their saved index
(Note objects, their tuples and dicts) took open_notes from 1.57 s to 2.30 s with the collector on
(2026-12-02, /tmp/vault-100k of tools/make_vault.py, warm, the machine quiet).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_depth = 0  # sections paused now (threads may load at once: the last one out resumes)
_resume = False  # whether the collector was on when the first section paused it


@contextmanager
def paused_gc() -> Iterator[None]:
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
