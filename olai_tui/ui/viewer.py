"""Opening a document hit at its page in the person's viewer (a PDF is not opened in $EDITOR).

The command is config.toml's ``[notes] viewer``, its words given ``{path}`` and ``{page}`` (1-based)::

    [notes]
    viewer = "zathura --page={page} {path}"        # or: "evince -i {page} {path}", "okular -p {page} {path}"

With none set, the desktop's opener (xdg-open; macOS: open) opens the file, at its first page (no desktop
opener takes a page). The viewer is started apart from the workbench (its own session, no terminal), so
the workbench stays as it is.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

from engines.settings import read_config

VIEWED = (".pdf", ".epub", ".docx", ".odt")  # what a viewer opens, not $EDITOR


def viewer_command(path: str, page: int | None, template: str | None = None) -> list[str] | None:
    """The command that shows ``path`` at ``page``; None where there is no viewer to run."""
    if template is None:
        configured = read_config().section("notes")
        template = configured.get("viewer") if isinstance(configured, dict) else None
    if isinstance(template, str) and template.strip():
        values = {"path": path, "page": str(page or 1)}
        words = [word.format_map(values) for word in shlex.split(template)]
        return words if "{path}" in template else [*words, path]
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    return [opener, path] if shutil.which(opener) else None


def start_viewer(command: list[str]) -> None:
    """Starts the viewer apart from the workbench; OSError where it cannot be started."""
    subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, env=os.environ.copy())
