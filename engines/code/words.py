"""How the code engine reads a word: Snowball's English stems, where notes and products keep the
light stemmer (engines/lexical.py ``stem_word``) their figures were measured with.

The light stemmer strips plurals, -ing, -ed and -ly, so "confirmation" never meets ``confirm`` and
"validation" never meets ``validate``. Snowball does (words of four letters or fewer stay whole,
as before). semble dev, 42 repositories, 829 queries, with ranking.py's reading of a name nothing
defines as words (`olai-tui eval code --dataset semble --configs lexical,default --fresh`): lexical
0.8619 -> 0.8703, default 0.8616 -> 0.8714 (paired +0.0098 [+0.0032, +0.0170]); CoSQA dev (`olai-tui
eval code --dataset cosqa --configs lexical,default --split dev --fresh`): lexical 0.348 -> 0.356,
default 0.426 -> 0.432 (docs/code-embedder.md, "The code engine's own stemmer"). The BM25 documents,
the query, the path words the ranking matches and the preview's highlighted words are all read by
this one stemmer.
"""

from __future__ import annotations

from engines.lexical import SNOWBALL, snowball_word

STEM = SNOWBALL  # tokenize()'s ``stem`` for code
stem_word = snowball_word
