"""Where code comes from and what a load reports: a source (a folder and the name its paths start
from) and how a problem (engines/problems.py) is said. Apart from corpus.py so that walk.py and
corpus.py import it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engines.problems import Problem


@dataclass
class CodeSource:
    """One place symbols come from: a folder (or file) and the name its relative paths start from."""

    root: Path  # the folder walked (or one .py file)
    base: Path  # relative paths and module names are taken from here
    label: str  # how it is named to the user


def _cause(error: OSError) -> str:
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, FileNotFoundError):
        return "no such file or directory"
    if error.errno == 40:  # ELOOP
        return "symlink loop"
    return (error.strerror or str(error)).lower()


def add_problem(problems: list[Problem], missing: set[str], problem: Problem | None) -> None:
    """Add a file's problem to ``problems``; a missing grammar (path ``*...``) is named once, not once
    for every file of its language (``missing``: the causes already named)."""
    if problem is None:
        return
    if problem.path.startswith("*"):
        if problem.cause not in missing:
            missing.add(problem.cause)
            problems.append(Problem(problem.path, problem.cause))
    else:
        problems.append(problem)
