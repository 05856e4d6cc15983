"""What the two folder walks share (code/walk.py, notes/corpus.py): listing a folder in the order a
stack walks it, a folder that cannot be listed named once as a Problem.

The walks themselves differ on purpose: code honours .gitignore files and never follows a folder
symlink (a link back up the tree cannot loop; serde has such links); notes follow folder symlinks
after the real folders, with a cycle check, so a note reachable both ways keeps its real path.
"""

from __future__ import annotations

import os
from operator import attrgetter
from typing import Callable

from engines.problems import Problem

BY_NAME = attrgetter("name")  # a C getter, not a Python lambda per entry (100,000 at a vault's open)


def listed(folder: str, shown: str, problems: list[Problem], cause: Callable[[OSError], str]) -> list[os.DirEntry]:
    """The folder's entries, last name first (popped from a stack, they come in name order); none,
    with ``shown/`` named in ``problems`` (``cause`` phrases the error), when it cannot be listed."""
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=BY_NAME, reverse=True)
    except OSError as error:
        problems.append(Problem(shown + "/", f"folder {cause(error)}"))
        return []
