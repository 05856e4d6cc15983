"""Walking a source tree for the code files the engine reads (every language of languages.py).

Left out: what .gitignore files ignore (ignore.py), hidden folders (.git, .venv ...), virtualenvs,
the folders semble's benchmark also leaves out (node_modules, build, dist, venv, __pycache__,
site-packages), vendored folders (vendor, third_party: one notice each), files whose extension is
no language we read, minified and generated files and files over the size limit (one notice each).
Directory symlinks are not followed (a link back up the tree cannot loop; serde has such links);
a file symlink is read once, by its first path (sorted).
"""

from __future__ import annotations

import os
import re

from engines.code.ignore import Rule, ignored, read_rules
from engines.code.languages import language_of

from engines.code.source import CodeSource, _cause
from engines.folders import listed
from engines.problems import Problem

SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist", "venv"})
OUTPUT_FOLDERS = frozenset({"build", "dist"})  # build output, unless a Python package has the name (pypa's `build`)
VENDORED_FOLDERS = frozenset({"vendor", "vendored", "third_party", "third-party", "thirdparty", "bower_components"})
# Minified: a first line this long is no hand-written code (the longest first line in the 63
# benchmark repositories' files that are not minified is far shorter; jQuery.min.js's is 30 KB).
MINIFIED_LINE = 1000
_GENERATED = re.compile(r"(?:code generated .* do not edit|@generated|auto-?generated|do not edit)", re.I)


def find_code_files(source: CodeSource) -> tuple[list[str], list[Problem]]:
    """Every code file under the source, sorted by relative path, and what was left out with a notice."""
    root = source.root
    if root.is_file():
        return [str(root)], []
    found: dict[tuple[int, int], str] = {}
    problems: list[Problem] = []

    prefix = str(source.base).rstrip(os.sep) + os.sep

    def rel(path: str) -> str:  # a prefix cut, not os.path.relpath: relpath was a third of a 9,476-file walk
        return (path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, source.base)).replace(
            os.sep, "/")

    pending: list[tuple[str, str, list[Rule]]] = [(str(root), "", [])]
    while pending:
        folder, local, rules = pending.pop()
        rules = rules + read_rules(folder, local)
        if os.path.exists(os.path.join(folder, "pyvenv.cfg")):
            continue  # a virtualenv
        for entry in listed(folder, rel(folder), problems, _cause):
            name = entry.name
            entry_local = f"{local}/{name}" if local else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name.startswith(".") or ignored(rules, entry_local, True):
                        continue
                    if name in SKIPPED_FOLDERS and not (
                            name in OUTPUT_FOLDERS and os.path.exists(os.path.join(entry.path, "__init__.py"))):
                        continue
                    if name in VENDORED_FOLDERS:
                        problems.append(Problem(rel(entry.path) + "/", "vendored code: skipped"))
                        continue
                    pending.append((entry.path, entry_local, rules))
                elif name.startswith(".") or language_of(name) is None or entry.is_dir():
                    continue  # not a language we read, or a symlink to a folder: not followed
                elif ignored(rules, entry_local, False):
                    continue
                elif ".min." in name:
                    problems.append(Problem(rel(entry.path), "minified: skipped"))
                elif entry.is_symlink() and not os.path.exists(entry.path):
                    problems.append(Problem(rel(entry.path), "broken symlink (no target)"))
                else:
                    st = entry.stat()
                    found.setdefault((st.st_dev, st.st_ino), entry.path)
            except OSError as exc:
                problems.append(Problem(rel(entry.path), _cause(exc)))
    return sorted(found.values(), key=rel), problems


def machine_made(text: str) -> str | None:
    """Why a file's text is generated or minified (its header says so; its first line is that long), or None."""
    head = text[:MINIFIED_LINE + 1]
    first = head.split("\n", 1)[0]
    if len(first) > MINIFIED_LINE:
        return f"minified (a first line over {MINIFIED_LINE} characters): skipped"
    for line in text[:2000].splitlines()[:5]:
        if _GENERATED.search(line):
            return "generated (its header says so): skipped"
    return None
