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
from engines.embed.static import MAX_TOKENS, SPECIAL, StaticEmbedder

NAME = "code table (static, trained on code)"
# No floor yet: measured as a ranking only (the code pane's floor for it is chosen with its fusion).
FLOOR = -1.0
JUNK_MARGIN = 0.08
BASE_ROWS = 30522  # MiniLM's WordPiece vocabulary: a code vocabulary's rows follow it


# camelCase and PascalCase cut into words before WordPiece: MiniLM's uncased pieces cut "getFileSize"
# as get ##files ##ize, "get File Size" as the three words a person would type.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def split_identifiers(text: str) -> str:
    return _CAMEL.sub(" ", text)


# Stands for a code-vocabulary word while a text is tokenized: one WordPiece of its own ("§", 1073), never
# joined to what touches it (punctuation to WordPiece); a text that holds one is cut the slow way.
PLACEHOLDER = "\u00a7"
_ALNUM = re.compile(r"[^\W_]")  # a letter or a digit
# A whole word as WordPiece's pre-tokenizer sees one (letters and digits between spaces and punctuation;
# "_" is punctuation to it): a word of the table's own code vocabulary is one row, not its word pieces.
WORD = re.compile(r"(?<![^\W_])[A-Za-z][A-Za-z0-9]*(?![^\W_])")
WORD_CUT = re.compile(f"({WORD.pattern})")  # re.split keeps the words it cuts at


class CodeTableEmbedder(StaticEmbedder):
    def __init__(self, table_path: str | os.PathLike, tokenizer_path: str | os.PathLike | None = None,
                 floor: float = FLOOR, split: bool | None = None, words: Sequence[str] | None = None,
                 punctuation: bool | None = None) -> None:
        super().__init__(table_path=table_path, tokenizer_path=tokenizer_path)
        self.floor = floor
        manifest = _manifest(Path(table_path)) if None in (split, words, punctuation) else {}
        self.split = manifest.get("split_identifiers", False) if split is None else split
        # False: the word pieces with no letter or digit ( "(", ".", "##=" ) are left out of a text
        self.punctuation = manifest.get("punctuation", True) if punctuation is None else punctuation
        self._marks: frozenset[int] | None = None
        self._mark: int | None = None  # PLACEHOLDER's piece
        vocabulary = manifest.get("code_vocabulary", {}) if words is None else {"first_id": BASE_ROWS, "words": words}
        # the code vocabulary's words (lower case) -> their rows, after WordPiece's own
        self.words = {w: vocabulary["first_id"] + i for i, w in enumerate(vocabulary.get("words", []))}

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The training's tokenization exactly (training/code_table reads its ids through this method):
        camelCase cut where the manifest says so, a word of the code vocabulary as its own row, the rest
        MiniLM's WordPiece."""
        texts = [split_identifiers(t) for t in texts] if self.split else list(texts)
        out = self._pieces(texts)
        if not self.punctuation:
            marks = self._punctuation_ids()
            out = [[i for i in ids if i not in marks] for ids in out]
        return out

    def _punctuation_ids(self) -> frozenset[int]:
        """WordPiece's pieces with no letter or digit (1,939 of MiniLM's 30,522)."""
        if self._marks is None:
            vocab = self._vocabulary()
            self._marks = frozenset(i for i in range(BASE_ROWS)
                                    if not _ALNUM.search(vocab.detokenize([i]).decode("utf-8", "replace")))
        return self._marks

    def _pieces(self, texts: list[str]) -> list[list[int]]:
        if not self.words:
            return super().token_ids(texts)
        out = []
        for text in texts:
            ids = self._masked(text) if PLACEHOLDER not in text else None
            out.append((ids if ids is not None else self._spans(text))[:MAX_TOKENS])
        return out

    def _masked(self, text: str) -> list[int] | None:
        """One tokenizer call a text: each code-vocabulary word replaced by PLACEHOLDER, which WordPiece
        keeps as one piece split from its neighbours, then that piece replaced by the word's row. The
        same ids as tokenizing the spans between the words one call each (_spans): equal on 82,690 code
        texts of 1,500 characters from the benchmark and training trees, in 30.1 s against 40.7 s
        (/tmp script, 2026-12-06; tests/engines/test_code_table_tokens.py holds them equal)."""
        parts = WORD_CUT.split(text)  # between-words, word, between-words, word, ...: a word at each odd place
        rows = [self.words.get(w.lower()) for w in parts[1::2]]
        parts[1::2] = [w if row is None else PLACEHOLDER for w, row in zip(parts[1::2], rows)]
        rows = [row for row in rows if row is not None]
        masked = "".join(parts)
        ids = [i for i in self.raw_ids(masked) if i not in SPECIAL]
        mark = self._placeholder_id()
        if sum(1 for i in ids if i == mark) != len(rows):  # never seen; the slow way is always right
            return None
        found = iter(rows)
        return [next(found) if i == mark else i for i in ids]

    def _spans(self, text: str) -> list[int]:
        """The text cut at each code-vocabulary word, the pieces between tokenized one call each."""
        spans, ids, at = [], [], 0
        for m in WORD.finditer(text):
            row = self.words.get(m.group().lower())
            if row is not None:
                spans.append(text[at:m.start()])
                ids.append(row)
                at = m.end()
        spans.append(text[at:])
        pieces = super().token_ids(spans)
        joined = pieces[0]
        for row, more in zip(ids, pieces[1:]):
            joined += [row] + more
        return joined

    def _placeholder_id(self) -> int:
        if self._mark is None:
            (self._mark,) = self.raw_ids(PLACEHOLDER)
        return self._mark

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
