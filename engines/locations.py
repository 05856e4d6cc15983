"""Where things live: the user's cache and config, the embedded demo corpora, the shared evaluation data.

One module so that a path rule (XDG variables, the installed ``share/`` folder) is written once.
Caches are never written inside a searched folder: everything an engine writes goes under
:func:`cache_root`.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

APP = "olai-tui"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # the checkout (or site-packages when installed)


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/olai-tui`` (default ``~/.cache/olai-tui``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / APP


def config_path() -> Path:
    """``$XDG_CONFIG_HOME/olai-tui/config.toml`` (default ``~/.config/...``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / APP / "config.toml"


def data_root() -> Path:
    """``$XDG_DATA_HOME/olai-tui`` (default ``~/.local/share/olai-tui``): what is installed for the user."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / APP


def fixtures_dir() -> Path:
    """The embedded demo corpora: fixtures/ beside the packages (a checkout), else inside this package
    (a wheel: setup.py copies them to engines/fixtures/), else under share/ (an older install)."""
    beside = PACKAGE_ROOT / "fixtures"
    if beside.is_dir():
        return beside
    packaged = Path(__file__).resolve().parent / "fixtures"
    if packaged.is_dir():
        return packaged
    return Path(sys.prefix) / "share" / APP / "fixtures"


def demo_corpus(engine: str) -> Path:
    return fixtures_dir() / engine


def shared_data() -> Path:
    """The evaluation data (../shared/data beside the checkout; ``OLAI_SHARED_DATA`` moves it)."""
    return Path(os.environ.get("OLAI_SHARED_DATA") or PACKAGE_ROOT.parent / "shared" / "data")


def shared_heldout() -> Path:
    return shared_data().parent / "heldout"


def shown_url(url: str) -> str:
    """A corpus given as a URL (a catalogue kept in a database), any password hidden: it is printed
    and kept as the corpus's label."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


def corpus_key(corpus: str | os.PathLike) -> str:
    """The corpus as the caches, a person's grades and a corpus's own settings key it: a folder or
    file's absolute path; a URL (a catalogue in a database) as given, any password hidden."""
    text = str(corpus)
    if "://" in text:
        return shown_url(text)
    return str(Path(text).expanduser().resolve())
