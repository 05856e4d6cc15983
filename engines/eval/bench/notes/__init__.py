"""`olai-tui bench notes`: command.py is its face (the corpora, the table, the JSON); measure.py times one
corpus (cold build, warm open, queries, memory, quality); vault.py, vectors.py and meaning_first.py measure
a large vault (`--corpus DIR`): its opens in fresh processes, the semantic leg at its size, meaning first."""
