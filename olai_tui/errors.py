"""The one error the command line turns into a single line on stderr and exit status 2."""


class UsageError(Exception):
    """A bad argument or corpus: one line, exit 2."""


def shown(path: str) -> str:
    """A path as one printable line (a newline in a file name must not split the message)."""
    return path.encode("unicode_escape", "backslashreplace").decode("ascii") if not path.isprintable() else path
