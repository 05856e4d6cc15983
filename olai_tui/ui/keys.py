"""Every key binding of the workbench has an id; `[keys]` in config.toml remaps it.

    # $XDG_CONFIG_HOME/olai-tui/config.toml
    [keys]
    compare = "f2"                 # one key ...
    copy-path = "y,ctrl+y"         # ... or several, comma-separated

Terminals, tmux and zellij swallow some keys (ctrl+enter above all), so the defaults give a
fallback beside each such key, and the key shown (the first) is one that reaches the app inside tmux
and screen: compare shows ctrl+j, which every terminal sends (tried in tmux: docs/keys-in-tmux.md). A bad config file never stops the app: it opens with the default
keys and says what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual.binding import Binding

# id -> (default keys, what it does). The one table the bindings below and the README draw from.
DEFAULT_KEYS: dict[str, tuple[str, str]] = {
    "compare": ("ctrl+j,ctrl+enter,alt+enter", "compare the tiers for the current query"),
    "exact-only": ("ctrl+t", "this pane: its first tier only (exact, lexical) / its default tiers"),
    "rebuild-index": ("ctrl+r", "re-read the corpus and bring the index up to date"),
    "next-pane": ("ctrl+pagedown", "the next pane"),
    "previous-pane": ("ctrl+pageup", "the previous pane"),
    "to-results": ("down", "from the search box to the results"),
    "to-search": ("slash,escape", "back to the search box"),
    "open": ("enter", "open the row in $EDITOR (or show it)"),
    "copy-path": ("y", "copy the row's path"),
    "close": ("escape,q", "close this screen"),
    "evaluate": ("e", "compare screen: each configuration evaluated on a dataset"),
    "run-evaluation": ("r", "evaluation view: run the chosen dataset"),
    # Issue 62: the engine's settings tried on your grades (olai_tui/ui/settings_view.py), any item found and graded.
    "settings": ("s", "evaluation view, your grades: try the engine's settings on every graded query"),
    "setting-down": ("left,minus", "settings: the highlighted setting one step down"),
    "setting-up": ("right,plus", "settings: the highlighted setting one step up"),
    "type-setting": ("equals_sign", "settings: type a value for the highlighted setting (enter tries it)"),
    "adopt-setting": ("a", "settings: keep the tried setting for this corpus (as `olai-tui tune --adopt`)"),
    "discard-setting": ("d", "settings: discard the tried setting (the values in force again)"),
    "find-item": ("f", "a graded query: find any item of the corpus by title or path, and grade it"),
    # A person's grade of the highlighted row for the query (the same key again clears it): kept as their
    # data and scored by `olai-tui eval ENGINE --judged` (engines/eval/judgements/).
    "grade-0": ("0", "grade the row 0: irrelevant (again: clear)"),
    "grade-1": ("1", "grade the row 1: related (again: clear)"),
    "grade-2": ("2", "grade the row 2: good or a stand-in (again: clear)"),
    "grade-3": ("3", "grade the row 3: exactly right (again: clear)"),
}


def binding(key_id: str, action: str, label: str = "", show: bool = True, priority: bool = False) -> Binding:
    keys, tooltip = DEFAULT_KEYS[key_id]
    return Binding(keys, action, label, show=show, priority=priority, id=key_id, tooltip=tooltip)


@dataclass
class KeyConfig:
    keymap: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def load_keys(path: Path | None = None) -> KeyConfig:
    """The `[keys]` remapping from config.toml; a missing file is no remapping, a bad one a warning."""
    from engines.settings import read_config

    config = read_config(path)
    path = config.path
    if config.problem:
        return KeyConfig(warnings=[f"{path}: {config.problem}; using the default keys"])
    keys = config.data.get("keys", {})
    if not isinstance(keys, dict):
        return KeyConfig(warnings=[f"{path}: [keys] must be a table of id = \"key\"; using the default keys"])
    out = KeyConfig()
    for key_id, value in keys.items():
        if key_id not in DEFAULT_KEYS:
            out.warnings.append(f"{path}: [keys] {key_id!r} is not a binding id (ids: {', '.join(DEFAULT_KEYS)})")
        elif not isinstance(value, str) or not value.strip() or any(not k.strip() for k in value.split(",")):
            out.warnings.append(f"{path}: [keys] {key_id} must be keys like \"ctrl+k\" or \"f2,ctrl+k\"")
        else:
            out.keymap[key_id] = ",".join(k.strip() for k in value.split(","))
    return out
