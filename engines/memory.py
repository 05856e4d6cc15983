"""Freed memory given back to the system (glibc's allocator; elsewhere this does nothing).

glibc keeps the pages of memory Python frees for its next allocations; after a burst that allocated
and freed a lot (a vault's index read back, its vectors converted a few thousand at a time, the model
loaded), the process holds them for the rest of its life. ``malloc_trim(0)`` after such a burst hands
back what is free: 24 MB of the 100,000-note vault's open, in 14 ms.

One heap for every thread (``share_one_heap``: ``M_ARENA_MAX`` = 1), where nobody types while the
engines work: the command line asks for it (``registry.for_commands``) before it opens an engine. By
default glibc gives each thread that allocates an arena of its own (up to eight a core); the index
reader, the meaning index's builder and the searching threads each keep their own freed memory apart,
where the others cannot reuse it. With one heap the 100,000-note vault with meaning on measured 578-579
MB against 612-615 (engines/eval/bench/notes/checkouts/meaning_memory.py, alternated, 2026-12-03 11:20
UTC); two arenas measured as eight. The workbench keeps glibc's default: with one heap, its meaning
index built at 1,029-1,234 tokens/s while a person typed, against 1,452-1,490 without (``python -m
olai_tui.bench_app --corpus /tmp/vault-100k --window 60``, alternated, 10:52-11:20 UTC), the
interface thread and the builder waiting on one lock.

Tried and not kept (docs/bench-workbench.md, 2026-12-03): a fixed ``M_MMAP_THRESHOLD`` (blocks of
1 MiB and more mapped apart, so the cache's reads never stay in the heap) took the whole engine with
meaning on from ~675 to ~590 MB, but with it the workbench lost a query's rows for 30 s in each of
two runs while the vault indexed; at 8 MiB, 602 MB and a worse rows p90 than without.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

_lock = threading.Lock()
_trim = None  # libc's malloc_trim, once looked up; False where there is none
M_ARENA_MAX = -8  # glibc's malloc.h


def _libc():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def share_one_heap() -> bool:
    """Every thread started after this allocates from the main arena (module doc); True where the
    allocator took it. Call before any engine starts its threads."""
    libc = _libc()
    try:
        return bool(libc is not None and libc.mallopt(M_ARENA_MAX, 1))
    except AttributeError:  # not glibc: its own allocator's rules
        return False


def give_back_free_memory() -> None:
    global _trim
    with _lock:
        if _trim is None:
            try:
                _trim = _libc().malloc_trim
                _trim.argtypes, _trim.restype = [ctypes.c_size_t], ctypes.c_int
            except AttributeError:  # no libc found, or not glibc
                _trim = False
    if _trim:
        _trim(0)
