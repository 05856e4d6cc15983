"""config.toml, read once: the keys, the products judge and the recall backend all come from here.

``$XDG_CONFIG_HOME/olai-tui/config.toml`` (engines/locations.py) is parsed with ``tomllib`` the first
time a section is asked for, and again only when the file changes (its size or modification time), so
the CLI, the app and each engine read one parse. A file that cannot be read or parsed gives every
reader the same one-line cause; each says what it does instead (the default keys, the rules judge,
memory recall).
"""

from __future__ import annotations

import os
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.locations import config_path


@dataclass(frozen=True)
class Config:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why the file could not be used: "not valid TOML (...)", "unreadable (...)"

    def section(self, *names: str) -> Any:
        """``section("products", "judge")``: that table, or None when absent."""
        value: Any = self.data
        for name in names:
            if not isinstance(value, dict):
                return None
            value = value.get(name)
        return value


_CACHE: dict[Path, tuple[tuple[int, int], Config]] = {}
_LOCK = threading.Lock()


def read_config(path: Path | None = None) -> Config:
    path = path or config_path()
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return Config(path)
    except OSError as exc:
        return Config(path, problem=f"unreadable ({exc.__class__.__name__})")
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        cached = _CACHE.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    try:
        with open(path, "rb") as handle:
            config = Config(path, tomllib.load(handle))
    except (OSError, UnicodeDecodeError) as exc:
        config = Config(path, problem=f"unreadable ({exc.__class__.__name__})")
    except tomllib.TOMLDecodeError as exc:
        config = Config(path, problem=f"not valid TOML ({exc})")
    with _LOCK:
        _CACHE[path] = (stamp, config)
    return config
