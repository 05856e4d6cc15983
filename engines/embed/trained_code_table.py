"""The code table that ships: where it lives, the bytes it must be, and the embedder that reads it.

The table was trained here (training/code_table, issue 45: MiniLM's token rows, regressed onto MiniLM's
own vectors of the training corpus, then trained contrastively on doc comment -> code pairs of 57
repositories that are none of the benchmark's; two such tables, their regression targets placed two
ways, averaged). It cannot be rebuilt at install time: its teacher
vectors alone take most of an hour on 2 cores. So it is shipped beside MiniLM's GGUF, its sha256
pinned here (tests/engines/test_trained_code_table.py), with its manifest beside it (the same name
with ``.json``: corpus commits and licences, pair counts, steps, validation figures).
"""

from __future__ import annotations

from pathlib import Path

from engines.embed import pinned_table

FILENAME = "olai-code-table.f16.npy"
SHA256 = "c2988d0c1b593bd8f9c1b6b819b36329224742126e3a04f1db313350626146b3"
# The cosine under which a symbol's resemblance to a query is noise in this table's space.
# `.venv/bin/python -m engines.eval.tuning.code_table_floor --repos 12` (semble dev, 2026-12-06, the soup): 34
# junk queries' best cosine per repository p50 0.236, p90 0.344, max 0.599; the wanted symbol's cosine
# p10 0.489, p50 0.660. At 0.35, 9 % of the junk maxima pass and 2 % of the wanted symbols are cut (the
# table before it, e10, at its floor 0.50: 14 % and 3 %).
FLOOR = 0.35
ENABLE = "reinstall olai-tui (its wheel carries the trained code table beside MiniLM's model)"


def locations() -> list[Path]:
    return pinned_table.table_locations(FILENAME)


def shipped_path() -> Path:
    return pinned_table.first_found(locations())


def trained_code_table():
    """The code pane's static embedder over the shipped table; EmbedderUnavailable (one line, what
    enables it) when the file is missing or is not the pinned bytes."""
    from engines.embed.code_table import CodeTableEmbedder

    return CodeTableEmbedder(pinned_table.verified(shipped_path(), SHA256, "trained code table", ENABLE), floor=FLOOR)
