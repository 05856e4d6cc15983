"""Freed memory given back to the system (glibc's allocator; elsewhere these do nothing).

glibc keeps the pages of memory Python frees for its next allocations, and after a large block is
freed it raises the size from which blocks get their own mapping, up to 32 MB: the vector cache's
reads (a few thousand float32 rows at a time), a count's arrays, a save's buffers then come from the
heap, and their pages stay with the process once freed. Measured on the 100,000-note vault with
meaning on (the open, then every tier until the meaning tier answered; /proc/self/status):

- as it was: 730 MB resident, 667 MB after ``malloc_trim(0)``;
- blocks of 1 MiB and more always mapped apart (``mallopt(M_MMAP_THRESHOLD, 1 MiB)``): 644 MB.

``malloc_trim(0)`` after a burst (a vault's index read back: 24 MB, in 14 ms) hands back what is left.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
MAPPED_FROM = 1 << 20  # bytes: a numpy array of 1 MiB and more gets its own pages, returned when freed

_lock = threading.Lock()
_libc = None  # glibc, once looked up; False where it is not the allocator


def _glibc():
    global _libc
    with _lock:
        if _libc is None:
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
                libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
                libc.mallopt(M_MMAP_THRESHOLD, MAPPED_FROM)
                _libc = libc
            except (OSError, AttributeError):
                _libc = False
        return _libc


def map_large_blocks_apart() -> None:
    """From now on, large blocks are mapped apart and go back to the system when freed."""
    _glibc()


def give_back_free_memory() -> None:
    libc = _glibc()
    if libc:
        libc.malloc_trim(0)
