"""Every dataset that ships, declared: the door `olai-tui eval`, the evaluation view and their help texts
read. Importing a dataset's package declares it (engines/eval/<dataset>/__init__.py); a new dataset is
one package, its import here and its place in ``LISTED``.
"""

from __future__ import annotations

# each import declares its dataset(s)
import engines.eval.vaswani  # noqa: F401, I001
import engines.eval.cranfield  # noqa: F401
import engines.eval.roadmap  # noqa: F401
import engines.eval.cosqa  # noqa: F401
import engines.eval.semble  # noqa: F401
import engines.eval.natural  # noqa: F401
import engines.eval.food  # noqa: F401
import engines.eval.icecat  # noqa: F401
import engines.eval.fineli  # noqa: F401 - fineli and food_fisv
import engines.eval.fineli_sv  # noqa: F401
import engines.eval.words  # noqa: F401 - words and words_fineli
from engines.eval import datasets as declarations
from engines.eval.datasets import (DataFileError, Dataset, DatasetError, configs_of, declare, declared,
                                   default_configs, forget, pick, takes_queries, without_unavailable)
from engines.eval.suite import Suite, Verdict, open_suite

__all__ = ["DataFileError", "Dataset", "DatasetError", "Suite", "Verdict", "configs_of", "datasets", "declare",
           "declared", "default_configs", "forget", "open_suite", "pick", "takes_queries", "without_unavailable"]

# The order the evaluation view and the help list the shipped datasets in, whichever was imported first
# (a test that reads one loader imports its package early); any declared elsewhere follow, as declared.
LISTED = ("vaswani", "cranfield", "roadmap", "cosqa", "semble", "natural", "food", "icecat", "fineli", "food_fisv", "fineli_sv",
          "words", "words_fineli", "food_words")


def datasets(engine: str | None = None) -> list[Dataset]:
    """The declared datasets (of ``engine``): the shipped ones in ``LISTED`` order, then the others."""
    found = declarations.datasets(engine)
    return sorted(found, key=lambda d: LISTED.index(d.name) if d.name in LISTED else len(LISTED))
