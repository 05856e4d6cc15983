"""`olai-tui index products`: how each catalogue file (or database table) was read, said before the index
is built, so a wrong guess (a column, the names' language, the encoding) is seen and corrected in
catalogue.toml. The engine gives these lines as its ``readings()`` (engines/contract.py)."""

from __future__ import annotations

from engines.errors import shown

LANGUAGES = {"fi": "Finnish", "sv": "Swedish", "en": "English"}
SKIPPED_LISTED = 20  # per file; the rest are counted


def reading_lines(catalogue) -> list[str]:
    """How each file (or table) was read: encoding and dialect or sheet, each column's field, the
    names' language, rows read and the rows skipped with their line and reason."""
    out: list[str] = []
    for reading in catalogue.readings:
        out.append(f"{shown(reading.where)}: {reading.how}")
        if reading.mapping:
            language = LANGUAGES.get(reading.language, reading.language or "an unknown language")
            said = "from " + reading.overridden_by if reading.overridden_by else "guessed from the headers"
            out.append(f"  columns ({said}; main names in {language}):")
            for line in reading.mapping:
                out.append(f"    {line}")
        skipped = [p for p in catalogue.problems if p.where == reading.where or
                   p.where.startswith(reading.where + ":")]
        out.append(f"  {reading.rows_read:,} rows read, {len(skipped):,} skipped"
                   + (f"; rows hash {reading.rows_hash}" if reading.rows_hash else ""))
        for problem in skipped[:SKIPPED_LISTED]:
            line = problem.where[len(reading.where) + 1:] if problem.where != reading.where else ""
            out.append(f"    {'line ' + line + ': ' if line else ''}{problem.cause}")
        if len(skipped) > SKIPPED_LISTED:
            out.append(f"    ... and {len(skipped) - SKIPPED_LISTED:,} more")
    return out
