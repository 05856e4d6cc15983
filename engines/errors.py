"""One type for input a person gave that cannot be used: a corpus, a data file, a name.

Its message is one line naming the file (and line) or argument and the cause; every face prints it
as it is (the CLI: ``olai-tui: MESSAGE``, exit 2; the app: a notice; MCP: a tool error). The
engines' own kinds (a notes corpus, a catalogue, a dataset) subclass it so a face catches one type.
"""

from __future__ import annotations


class BadInput(Exception):
    """Input that cannot be used; ``str()`` is one line naming where and why."""


def shown(path: str) -> str:
    """A path as one printable line (a newline in a file name must not split the message)."""
    return path.encode("unicode_escape", "backslashreplace").decode("ascii") if not path.isprintable() else path
