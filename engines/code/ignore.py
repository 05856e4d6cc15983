""".gitignore rules, as git reads them, for walking a source tree without what the project ignores.

Supported: comments, blank lines, ``!`` negation, a trailing ``/`` (folders only), a leading or
inner ``/`` (anchored to the .gitignore's folder), ``*``, ``?``, ``[...]``, ``**`` and ``\\``
escapes. Each folder's .gitignore applies below that folder; a later rule wins over an earlier one,
a deeper file's rules over a shallower one's. Files git would never re-include (a path under an
ignored folder) stay out, as in git.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    base: str  # the folder of the .gitignore, relative to the walk's root, "" for the root
    pattern: re.Pattern[str]
    negated: bool
    folders_only: bool


def read_rules(folder: str, base: str) -> list[Rule]:
    """The rules of ``folder/.gitignore`` (none if absent or unreadable: ignoring less is safe)."""
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    rules = []
    for line in lines:
        rule = parse_rule(line, base)
        if rule is not None:
            rules.append(rule)
    return rules


def parse_rule(line: str, base: str) -> Rule | None:
    if not line.strip() or line.startswith("#"):
        return None
    line = line.rstrip("\n")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    body = _translate(line)
    regex = ("^" if anchored else "^(?:.*/)?") + body + "$"
    return Rule(base, re.compile(regex, re.DOTALL), negated, folders_only)


def _translate(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = glob.find("]", i + 2)
            if end < 0:
                out.append(re.escape(ch))
                i += 1
            else:
                inner = glob[i + 1:end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end + 1
        elif ch == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def ignored(rules: list[Rule], rel: str, is_folder: bool) -> bool:
    """Whether ``rel`` (posix, relative to the walk's root) is ignored by ``rules`` (in file order)."""
    verdict = False
    for rule in rules:
        if rule.folders_only and not is_folder:
            continue
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            local = rel[len(rule.base) + 1:]
        else:
            local = rel
        if rule.pattern.match(local):
            verdict = not rule.negated
    return verdict
