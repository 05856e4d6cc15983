"""What pyproject.toml cannot say: the demo corpora go into the wheel.

The demo notebook, catalogue and code tree live in fixtures/ at the top of the checkout, where the
tests and the engines read them. A wheel has no such place, so the build copies them into the
``engines`` package as ``engines/fixtures/`` (engines.locations finds them there when installed): a
plain ``pip install .`` / ``pipx install .`` / ``uv tool install .`` opens on the demo corpora.
An editable install reads fixtures/ in the checkout and copies nothing. MANIFEST.in puts them in sdists.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class BuildWithFixtures(build_py):
    def run(self) -> None:
        super().run()
        if FIXTURES.is_dir() and not getattr(self, "editable_mode", False):
            shutil.copytree(FIXTURES, Path(self.build_lib) / "engines" / "fixtures", dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithFixtures})
