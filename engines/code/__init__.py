"""The code engine: symbols in 19 languages (tree-sitter; Python with ast), a BM25 tier and an opt-in embedding tier."""
