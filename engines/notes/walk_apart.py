"""A folder's note files found, and their stats taken, by a second process while this one reads the
saved notes index back (engines/notes/store.py).

Why a process and not a thread: a warm open of the 100,000-note vault waits on the walk (a stat a
file, 0.9-1.0 s alone) and on the saved index read back into notes (1.2-1.4 s of Python). On a thread
the two hardly overlap: each stat hands the interpreter over and waits to take it back, so the walk
beside the read took 1.45-1.74 s against 0.95 alone. A child process walks on the other core and
sends what it found in one marshal blob (12 MB, ~50 ms to read back). It costs a Python start
(~70 ms), so only a folder whose saved index holds WALK_APART_FROM files or more is walked apart;
and if the child cannot start or sends nothing usable, the caller walks here: nothing is lost.
"""

from __future__ import annotations

import gc
import marshal
import os
import subprocess
import sys
from dataclasses import dataclass

from engines.notes.note_files import find_note_files
from engines.problems import Problem

# A Python start (~70 ms) pays for itself once the walk takes longer than that: some 10,000 files,
# at 0.95 s for 100,000 (/tmp/vault-100k, 2026-12-03). The child starts isolated (-I: nothing from
# the environment or the working folder, -S: no site) and imports only the walk.
WALK_APART_FROM = 10_000
_HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # holds engines/
_CHILD = "import sys; sys.path.insert(0, sys.argv[1]); from engines.notes.walk_apart import _child; _child(sys.argv[2])"


@dataclass
class Found:
    """find_note_files's answer, with what the saved index compares of each file's stat, by column."""

    paths: list[str]  # absolute, sorted by relative path
    problems: list[Problem]
    rels: list[str]
    sizes: list[int]
    mtimes_ns: list[int]
    mtimes: list[float]  # st_mtime: a note without a date of its own takes it
    modes: list[int]

    def rows(self):
        return zip(self.paths, self.rels, self.sizes, self.mtimes_ns, self.mtimes, self.modes)


def found_here(top: str) -> Found:
    seen: dict = {}
    paths, problems = find_note_files(top, seen)
    stats = [seen[path] for path in paths]
    return Found(paths, problems, [rel for rel, _ in stats], [st.st_size for _, st in stats],
                 [st.st_mtime_ns for _, st in stats], [st.st_mtime for _, st in stats], [st.st_mode for _, st in stats])


class WalkApart:
    """The walk of ``top`` started in a child process; ``found()`` its answer, or None."""

    def __init__(self, top: str) -> None:
        self.top = top
        try:
            self._child = subprocess.Popen([sys.executable, "-I", "-S", "-c", _CHILD, _HOME, top],
                                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except (OSError, ValueError):  # no interpreter to start (an embedded one), no process left
            self._child = None

    def found(self) -> Found | None:
        if self._child is None:
            return None
        try:
            blob = self._child.stdout.read()
            if self._child.wait() != 0:
                return None
            paths, rels, sizes, mtimes_ns, mtimes, modes, problems = marshal.loads(blob)
            if not len(paths) == len(rels) == len(sizes) == len(mtimes_ns) == len(mtimes) == len(modes):
                return None
            return Found(paths, [Problem(*p) for p in problems], rels, sizes, mtimes_ns, mtimes, modes)
        except (OSError, ValueError, EOFError, TypeError):
            return None
        finally:
            self.close()

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            if child.poll() is None:
                child.kill()
            child.wait()
            child.stdout.close()


def _child(top: str) -> None:
    gc.disable()  # the walk's objects live until the process ends: the collector finds nothing (1.4 -> 1.0 s)
    found = found_here(top)
    problems = [(p.path, p.cause, p.skipped) for p in found.problems]
    sys.stdout.buffer.write(marshal.dumps((found.paths, found.rels, found.sizes, found.mtimes_ns, found.mtimes,
                                           found.modes, problems)))
    sys.stdout.buffer.flush()
