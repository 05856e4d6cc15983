"""engines/ is UI-free: importing every module under it must not import textual."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import engines

REPO = Path(__file__).resolve().parents[1]


def test_no_engine_module_imports_textual():
    names = [m.name for m in pkgutil.walk_packages(engines.__path__, prefix="engines.")]
    assert "engines.notes.engine" in names and "engines.embed.llama" in names
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engines import textual: {out.stdout.strip()}"
