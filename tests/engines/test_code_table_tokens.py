"""The code table's tokenizer (engines/embed/code_table.py): one tokenizer call a text, its code words
masked, gives the ids that cutting the text at each code word and tokenizing the pieces between gives
(the way the shipped table was trained)."""

from __future__ import annotations

import pytest

from engines.embed.code_table import PLACEHOLDER
from engines.embed.static import MAX_TOKENS
from engines.embed.trained_code_table import trained_code_table

TEXTS = [
    "",
    "   \n\t ",
    "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\tctx := r.Context()\n\treturn nil, err\n}",
    "def get_value(self, key_name, default=None):\n    \"\"\"Return the config value.\"\"\"\n    return self._cache[key_name]",
    "const err = await fetchJSON(url); // ERR param bool CONFIG std::vector<int> nil",
    "naïve café ünïcödé 数据 日本語 — ‘quotes’ «guillemets» tab\tsep",
    "x1y2 _private __dunder__ camelCaseName snake_case_name SCREAMING_CASE 0x1F 3.14e10",
    f"the sign {PLACEHOLDER} stands here, and config and err beside it",
    "err " * 3000,  # longer than the tokens a text keeps
]


@pytest.fixture(scope="module")
def table():
    return trained_code_table()


def test_masking_the_code_words_gives_the_ids_the_table_was_trained_on(table):
    assert table.words, "the shipped table has a code vocabulary"
    for text in TEXTS:
        assert table._pieces([text]) == [table._spans(text)[:MAX_TOKENS]], text[:60]


def test_the_code_words_are_their_own_rows_and_the_placeholder_never_leaks(table):
    text = "config err param"
    ids = table._pieces([text])[0]
    assert ids == [table.words["config"], table.words["err"], table.words["param"]]
    # a text's own "§" is the piece it always was, not a word's row
    assert table._pieces([f"config {PLACEHOLDER} err"])[0] == [table.words["config"], table._placeholder_id(),
                                                               table.words["err"]]
    assert len(table._pieces([TEXTS[-1]])[0]) == MAX_TOKENS
