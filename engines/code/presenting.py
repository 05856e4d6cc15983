"""How the code engine is presented (engines/contract.py's presentation methods): rows with the
language and the doc comment's first line, source coloured by its language as the preview, the
query's words as the lexical tier splits and stems them, the opt-in embedding tier switched on.
Mixed into :class:`~engines.code.engine.CodeEngine`."""

from __future__ import annotations

from typing import Sequence

from engines.code.languages import BY_NAME
from engines.contract import Presentation
from engines.code.merge import EMBEDDING
from engines.code.words import STEM
from engines.lexical import tokenize
from engines.tiers import recall_switched_off


class CodePresenting:
    presentation = Presentation(detail=("language", "summary"), preview="source",
                                lexers=tuple((name, lang.lexer) for name, lang in BY_NAME.items()))

    def highlights(self, text: str) -> list[str]:
        # Stemmed as the lexical tier stems: an identifier ``RateLimiter`` holds the query's "limit".
        return tokenize(text, STEM)

    def switch_on(self, tiers: Sequence[str]) -> None:
        """The embedding tier switched on: its index builds in the background (lexical use never loads the model)."""
        if EMBEDDING in tiers and not recall_switched_off():
            self.start_indexing()

    def compare(self, column, query: str, limit: int):
        """A column with the embedding tier waits for its index: compare shows whole tiers, not partial ones."""
        if EMBEDDING in column.tiers and not recall_switched_off():
            self.build_index()
        return self.search_shown(query, limit, column.tiers)

    def rebuild(self) -> str:
        self.reload()
        if self._vectors is not None:  # the embedding tier was on: its index catches up
            self.start_indexing()
        skipped = f", {len(self.problems)} files skipped" if self.problems else ""
        return f"re-read {len(self.symbols):,} symbols from {self.files:,} files{skipped}"
