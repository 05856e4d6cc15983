"""The code engine: Python symbols parsed with ast, a BM25 tier and an opt-in embedding tier."""
