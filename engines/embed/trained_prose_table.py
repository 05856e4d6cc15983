"""The prose table: the notes pane's static vectors, trained here on prose (training/prose_table, issue 61).

MiniLM's WordPiece rows, started from the distilled table (engines/embed/distill.py), regressed onto
MiniLM's own vectors of 1,478 design documents (PEPs, Rust RFCs, Go proposals; none of them evaluation
data), then trained contrastively on pairs from the documents' own structure (title -> summary, heading
-> paragraph, first sentence -> the rest); two regression targets averaged, as the code table was; then
half and half with the distilled table it started from (WiSE-FT: training/prose_table/__main__.py). It
reads a text exactly as the distilled table does (the same tokenizer, punctuation and all), so it is a
drop-in for it where it measures better: its own floor, since a trained table's cosines sit on another
scale. Shipped beside MiniLM's GGUF with its manifest (the same name with ``.json``), its sha256
pinned here (tests/engines/test_trained_prose_table.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from engines.embed import pinned_table
from engines.embed.base import EmbedderInfo, EmbedderUnavailable
from engines.embed.static import StaticEmbedder

FILENAME = "olai-prose-table.f16.npy"
SHA256 = "8e52aceb22592c0ee8cd8b1557492c485e2da0b178447f4d48edab2e60d00fd4"
NAME = "prose table (static, trained on prose)"
# The cosine under which a note's resemblance to a query is noise in this table's space, chosen as the
# distilled table's was (just over the highest junk query on both corpora): `.venv/bin/python -m
# engines.eval.tuning.floor --static engines/embed/model/olai-prose-table.f16.npy` (2026-12-07): 34 junk
# queries reach 0.474 on the demo notebook and 0.455 on the olai roadmap (medians of per-query maxima
# 0.230 / 0.258; the distilled table's 0.526 / 0.545, hence its 0.55).
FLOOR = 0.48
JUNK_MARGIN = 0.08
ENABLE = "reinstall olai-tui (its wheel carries the trained prose table beside MiniLM's model)"


def locations() -> list[Path]:
    return pinned_table.table_locations(FILENAME)


def shipped_path() -> Path:
    return pinned_table.first_found(locations())


class ProseTableEmbedder(StaticEmbedder):
    def __init__(self, table_path: str | os.PathLike, floor: float = FLOOR) -> None:
        super().__init__(table_path=table_path)
        self.floor = floor

    def info(self) -> EmbedderInfo:
        if self._info is None:
            table = self._loaded()
            from engines.embed.llama import sha256_file

            digest = sha256_file(Path(self.table_path))
            self._info = EmbedderInfo(model_id=f"prose-table-{digest[:16]}", dims=int(table.shape[1]),
                                      floor=self.floor, margin=JUNK_MARGIN, name=NAME)
        return self._info


def trained_prose_table() -> ProseTableEmbedder:
    """The shipped prose table; EmbedderUnavailable (one line, what enables it) when it is missing or is
    not the pinned bytes."""
    return ProseTableEmbedder(pinned_table.verified(shipped_path(), SHA256, "trained prose table", ENABLE))


def notes_static() -> StaticEmbedder:
    """The notes pane's static embedder: the trained prose table where it ships as pinned, else the table
    distilled from MiniLM (which measures worse for notes: docs/notes-prose-table.md)."""
    if SHA256 and shipped_path().is_file():
        try:
            return trained_prose_table()
        except EmbedderUnavailable:
            pass  # damaged: the distilled table answers, as it did before the prose table shipped
    return StaticEmbedder()
