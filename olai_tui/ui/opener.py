"""Opening a row in $EDITOR (at its line, where there is one) or showing it; copying its path."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Protocol

from rich.text import Text
from textual.app import App, SuspendNotSupported
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from engines.answer import Answer, Hit
from olai_tui.ui.adapters import Target
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.keys import binding
from olai_tui.ui.text import one_line
from olai_tui.ui.viewer import VIEWED, start_viewer, viewer_command

# How editors take a line: "+N path" (vi family, nano, emacs, micro, kakoune), "path:N" (helix),
# "-g path:N" (VS Code family). Anything else gets the path alone.
PLUS_LINE = {"vi", "vim", "nvim", "view", "nano", "pico", "emacs", "emacsclient", "micro", "kak", "joe", "ne", "mg"}
COLON_LINE = {"hx", "helix"}
GOTO_LINE = {"code", "codium", "code-insiders", "cursor", "subl", "zed"}


def editor_command(editor: str, target: Target) -> list[str]:
    words = shlex.split(editor)
    program = os.path.basename(words[0]) if words else ""
    if target.line is None:
        return [*words, target.path]
    if program in PLUS_LINE:
        return [*words, f"+{target.line}", target.path]
    if program in COLON_LINE:
        return [*words, f"{target.path}:{target.line}"]
    if program in GOTO_LINE:
        return [*words, "-g", f"{target.path}:{target.line}"]
    return [*words, target.path]


class RowPane(Protocol):
    """What opening or copying a row needs of the pane showing it (a SearchPane is one)."""

    adapter: EngineAdapter
    answer: Answer | None  # the answer whose rows are on screen

    @property
    def app(self) -> App: ...


def open_row(pane: RowPane, hit: Hit | None) -> None:
    app = pane.app
    if hit is None:
        app.notify("No row to open: type a query first.", severity="warning")
        return
    query = pane.answer.query if pane.answer is not None else ""
    target = pane.adapter.target(hit, query)
    if target is not None and target.path.lower().endswith(VIEWED):
        open_in_viewer(app, target)
        return
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if target is None or not editor:
        app.push_screen(RowScreen(hit.title or hit.id, pane.adapter.full_text(hit)))
        return
    command = editor_command(editor, target)
    try:
        with app.suspend():
            result = subprocess.run(command, check=False)
    except SuspendNotSupported:  # no terminal to hand over (a web or headless session): show it here
        app.push_screen(RowScreen(hit.title or hit.id, pane.adapter.full_text(hit)))
        return
    except (OSError, ValueError) as exc:
        app.notify(f"Could not run $EDITOR ({one_line(editor)}): {exc}", severity="error", markup=False)
        return
    if result.returncode != 0:
        app.notify(f"{one_line(command[0])} exited with status {result.returncode}", severity="warning", markup=False)


def open_in_viewer(app: App, target: Target) -> None:
    """A PDF (or another document) in the person's viewer at the hit's page (olai_tui/ui/viewer.py)."""
    command = viewer_command(target.path, target.page)
    if command is None:
        app.notify("No viewer to open it: set [notes] viewer in config.toml (\"zathura --page={page} {path}\")",
                   severity="warning", markup=False)
        return
    try:
        start_viewer(command)
    except (OSError, ValueError) as exc:
        app.notify(f"Could not run {one_line(command[0])}: {exc}", severity="error", markup=False)
        return
    at = f" at p. {target.page}" if target.page else ""
    app.notify(f"Opened {one_line(os.path.basename(target.path))}{at}", markup=False)


def copy_row(pane: RowPane, hit: Hit | None) -> None:
    app = pane.app
    target = pane.adapter.target(hit, "") if hit is not None else None
    if target is None:
        app.notify("No row to copy: type a query first.", severity="warning")
        return
    app.copy_to_clipboard(target.path)
    app.notify(f"Copied {one_line(target.path)}", markup=False)


class RowScreen(ModalScreen):
    """A row's whole text, when there is no $EDITOR to open it in."""

    BINDINGS = [binding("close", "dismiss", "Close")]
    DEFAULT_CSS = """
    RowScreen { align: center middle; }
    RowScreen > VerticalScroll { width: 90%; height: 90%; border: round $accent; padding: 0 1; background: $surface; }
    """

    def __init__(self, title: str, text: Text) -> None:
        super().__init__()
        self.heading = one_line(title)
        self.text = text

    def compose(self):
        with VerticalScroll() as scroll:
            scroll.border_title = Text(self.heading)
            scroll.border_subtitle = "escape closes · set $EDITOR to open notes there"
            yield Static(self.text)

    async def action_dismiss(self, result=None) -> None:
        self.dismiss(result)
