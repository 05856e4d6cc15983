"""The code table: a static embedder (engines/embed/static.py's inference, MiniLM's WordPiece tokens)
whose rows were trained here on code (training/code_table: regression onto MiniLM, then contrastive on
doc comment -> code pairs of 57 repositories; docs/code-embedder.md).

Same tokenizer, same gather-and-sum as the distilled table, another table and its own floor: the
cosines of a trained table sit on another scale than the distilled one's.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Sequence

from engines.embed.base import EmbedderInfo
from engines.embed.static import StaticEmbedder

NAME = "code table (static, trained on code)"
# No floor yet: measured as a ranking only (the code pane's floor for it is chosen with its fusion).
FLOOR = -1.0
JUNK_MARGIN = 0.08


# camelCase and PascalCase cut into words before WordPiece: MiniLM's uncased pieces cut "getFileSize"
# as get ##files ##ize, "get File Size" as the three words a person would type.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def split_identifiers(text: str) -> str:
    return _CAMEL.sub(" ", text)


class CodeTableEmbedder(StaticEmbedder):
    def __init__(self, table_path: str | os.PathLike, tokenizer_path: str | os.PathLike | None = None,
                 floor: float = FLOOR, split: bool | None = None) -> None:
        super().__init__(table_path=table_path, tokenizer_path=tokenizer_path)
        self.floor = floor
        self.split = _manifest(Path(table_path)).get("split_identifiers", False) if split is None else split

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The training's tokenization exactly (training/code_table reads its ids through this method)."""
        return super().token_ids([split_identifiers(t) for t in texts] if self.split else texts)

    def info(self) -> EmbedderInfo:
        if self._info is None:
            table = self._loaded()
            from engines.embed.llama import sha256_file

            digest = sha256_file(Path(self.table_path))
            self._info = EmbedderInfo(model_id=f"code-table-{digest[:16]}", dims=int(table.shape[1]),
                                      floor=self.floor, margin=JUNK_MARGIN, name=NAME)
        return self._info


def _manifest(table: Path) -> dict:
    """The training's manifest beside the table (PATH with .json): how the table's texts were cut."""
    try:
        return json.loads(table.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
