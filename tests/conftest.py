"""Shared test settings: no test reads or writes the user's own cache or config."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache_and_config(tmp_path_factory):
    # One cache for the session: the demo notebook is embedded once, not once per test. Tests
    # that need a cold cache give their engine a cache_dir of their own.
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    mp.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    mp.delenv("OLAI_RECALL", raising=False)
    mp.delenv("OLAI_EMBED_MODEL", raising=False)
    yield
    mp.undo()
