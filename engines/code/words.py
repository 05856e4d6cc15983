"""How the code engine reads a word: Snowball's English stems, where notes and products keep the
light stemmer (engines/lexical.py ``stem_word``) their figures were measured with.

The light stemmer strips plurals, -ing, -ed and -ly, so "confirmation" never meets ``confirm`` and
"validation" never meets ``validate``. Snowball does (words of four letters or fewer stay whole,
as before). semble dev, 42 repositories, 829 queries (`olai-tui eval code --dataset semble --configs
lexical,default --fresh`): lexical 0.862 -> 0.869, default 0.862 -> 0.870; CoSQA dev (`olai-tui eval
code --dataset cosqa --configs lexical,default --split dev --fresh`): lexical 0.348 -> 0.356, default
0.426 -> 0.432. The BM25 documents, the query, the path words the ranking matches and the preview's
highlighted words are all read by this one stemmer.
"""

from __future__ import annotations

from engines.lexical import SNOWBALL, snowball_word

STEM = SNOWBALL  # tokenize()'s ``stem`` for code
stem_word = snowball_word
