"""`index products`: how each catalogue file (or database table) was read, printed before the index is built,
so a wrong guess (a column, the names' language, the encoding) is seen and corrected in catalogue.toml."""

from __future__ import annotations

import sys

from olai_tui.errors import shown

LANGUAGES = {"fi": "Finnish", "sv": "Swedish", "en": "English"}
SKIPPED_LISTED = 20  # per file; the rest are counted


def print_readings(catalogue, stream=None) -> None:
    """How each file (or table) was read: encoding and dialect or sheet, each column's field, the
    names' language, rows read and the rows skipped with their line and reason."""
    out = stream or sys.stdout
    for reading in catalogue.readings:
        print(f"{shown(reading.where)}: {reading.how}", file=out)
        if reading.mapping:
            language = LANGUAGES.get(reading.language, reading.language or "an unknown language")
            said = "from " + reading.overridden_by if reading.overridden_by else "guessed from the headers"
            print(f"  columns ({said}; main names in {language}):", file=out)
            for line in reading.mapping:
                print(f"    {line}", file=out)
        skipped = [p for p in catalogue.problems if p.where == reading.where or
                   p.where.startswith(reading.where + ":")]
        print(f"  {reading.rows_read:,} rows read, {len(skipped):,} skipped"
              + (f"; rows hash {reading.rows_hash}" if reading.rows_hash else ""), file=out)
        for problem in skipped[:SKIPPED_LISTED]:
            line = problem.where[len(reading.where) + 1:] if problem.where != reading.where else ""
            print(f"    {'line ' + line + ': ' if line else ''}{problem.cause}", file=out)
        if len(skipped) > SKIPPED_LISTED:
            print(f"    ... and {len(skipped) - SKIPPED_LISTED:,} more", file=out)
