"""A large tree's files read on every core: tree-sitter's parse is most of an index build, and files
parse independently.

Worker processes come from a ``forkserver``: a clean process started once, with the parsers
imported, that forks each worker. Not ``fork`` from the caller: the workbench, the MCP server and
the watchers hold threads, and a child forked beside them can inherit a lock held by another
thread and hang. Files go out in contiguous batches of about equal bytes and come back in order,
so the symbols are the ones, in the order, that reading the files one by one gives (a test pins it).
A small tree is read in this process (the pool's start costs more than it saves), and so is any
tree where no pool can be started (no forkserver on this platform, no semaphores in a sandbox):
the load never fails for want of workers. Workers ignore ctrl+c; the caller's interrupt stops the
load, and the batches not started are dropped.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Callable, Iterator

# Below this many bytes of source a tree is read in this process. The first pool of a process waits
# ~0.27 s for the forkserver to start; a fresh process loading a tree (documents counted), median
# of 2, read here / on two workers: cobra 0.51 MB 0.40 / 0.51 s, gin 0.68 MB 0.75 / 0.64 s, serde
# 1.25 MB 0.96 / 0.86 s, zod 2.1 MB 1.76 / 1.31 s: two workers win from ~0.6 MB.
PARALLEL_BYTES = 700_000
# With workers already running (a load within IDLE_S before) a pool round trip takes ~26 ms, and two
# workers win from far smaller trees (median of 3: chi 0.29 MB 0.30 / 0.19 s, flask 0.35 MB
# 0.26 / 0.16 s, trpc 0.37 MB 0.22 / 0.20 s, rails 0.49 MB 0.55 / 0.31 s).
PARALLEL_BYTES_WARM = 300_000
IDLE_S = 30.0
BATCHES_PER_WORKER = 16  # batches a little smaller than a worker's share: a slow batch does not leave a core idle
MAX_WORKERS = 8
PROGRESS_EVERY = 64  # files read in this process between two progress calls
_PRELOAD = ["engines.code.corpus", "engines.code.treesitter"]


def workers() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def read_all(paths: list[str], base: str, read: Callable[[str, str], tuple], sizes: list[int],
             progress: Callable[[int, int], None] | None = None) -> list:
    """``[read(path, base) for path in paths]``, on every core when the files' ``sizes`` (the bytes
    each will parse) add up to a large tree. ``read``: a module-level function (it is pickled).
    ``progress(files read, of)`` as they are read."""
    n = workers()
    floor = PARALLEL_BYTES_WARM if _pool.warm() else PARALLEL_BYTES
    if n < 2 or sum(sizes) < floor or "forkserver" not in multiprocessing.get_all_start_methods() \
            or multiprocessing.current_process().daemon:  # a daemonic process may not start workers
        return _read_here(paths, base, read, progress)
    with _pool.lease(n) as pool:
        if pool is not None:
            futures: list = []
            try:
                futures = [pool.submit(_read_batch, read, batch, base)
                           for batch in _batches(paths, sizes, n * BATCHES_PER_WORKER)]
                out: list = []
                for future in futures:
                    out += future.result()
                    if progress is not None:
                        progress(len(out), len(paths))
                return out
            except Exception:  # noqa: BLE001 - a worker could not start or died (BrokenProcessPool): read here
                _pool.broken()
            finally:
                for future in futures:
                    future.cancel()  # after ctrl+c: the batches not started are dropped
    return _read_here(paths, base, read, progress)


def _read_here(paths: list[str], base: str, read: Callable[[str, str], tuple],
               progress: Callable[[int, int], None] | None) -> list:
    out = []
    for path in paths:
        out.append(read(path, base))
        if progress is not None and (len(out) % PROGRESS_EVERY == 0 or len(out) == len(paths)):
            progress(len(out), len(paths))
    return out


class _Pool:
    """The workers, kept IDLE_S after the last load so the next one (a rebuild, the next repository
    of an evaluation) starts with warm processes: compiled queries, word caches. Thread-safe: two
    loads at once share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._users = 0
        self._timer: threading.Timer | None = None

    def warm(self) -> bool:
        return self._executor is not None

    @contextmanager
    def lease(self, n: int) -> Iterator[ProcessPoolExecutor | None]:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._executor is None:
                try:
                    context = multiprocessing.get_context("forkserver")
                    context.set_forkserver_preload(_PRELOAD)
                    self._executor = ProcessPoolExecutor(n, mp_context=context, initializer=_worker_start)
                except Exception:  # noqa: BLE001 - no pool here (no semaphores in a sandbox ...)
                    self._executor = None
            executor = self._executor
            self._users += 1
        try:
            yield executor
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0 and self._executor is not None:
                    self._timer = threading.Timer(IDLE_S, self.close)
                    self._timer.daemon = True
                    self._timer.start()

    def broken(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        with self._lock:
            if self._users:
                return
            executor, self._executor, self._timer = self._executor, None, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


_pool = _Pool()


def _read_batch(read: Callable[[str, str], tuple], paths: list[str], base: str) -> list:
    from engines.gcpause import paused_gc

    with paused_gc():  # as in the caller's load (gcpause.py)
        return [read(p, base) for p in paths]


def _worker_start() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller's ctrl+c stops the load, not a worker
    os.dup2(2, 1)  # nothing a worker prints may reach the caller's stdout (the MCP server's JSON-RPC)


def _batches(paths: list[str], sizes: list[int], count: int) -> list[list[str]]:
    """Contiguous runs of ``paths`` of about ``sum(sizes) / count`` bytes each."""
    share = max(1, sum(sizes) // max(1, count))
    batches, batch, held = [], [], 0
    for path, size in zip(paths, sizes):
        batch.append(path)
        held += size
        if held >= share:
            batches.append(batch)
            batch, held = [], 0
    if batch:
        batches.append(batch)
    return batches

