"""What several reliability tests share: a real vault from tools/make_vault.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VAULT_NOTES = 120  # ~380 passages: a build of several seconds, so a second process starts while it runs


@pytest.fixture(scope="module")
def vault(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vault") / "v"
    subprocess.run([sys.executable, "tools/make_vault.py", str(folder), "--notes", str(VAULT_NOTES)], cwd=REPO,
                   check=True, capture_output=True, timeout=120)
    return folder
