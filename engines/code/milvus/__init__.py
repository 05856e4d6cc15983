"""Code search on Milvus: trees published as symbol rows, searched behind the same router as products.

| module | one reason to change |
|---|---|
| `collection.py` | the collection's fields, a tree's rows, the fingerprint of a tree's symbols |
| `publish.py` | a tree's versions: publish, rollback, status (the pointer is engines/milvus/versions.py's) |
| `search.py` | one search's lists from Milvus: BM25's head re-ranked for code, the nearest vectors |
| `router.py` | local / milvus / milvus-only, the deadline and the breaker, `[code.search]` in the config |
| `routed.py` | the engine's side: its tiers' rankings from Milvus or its local index, said in the answer |
| `publishing.py` | `olai-tui index code --backend milvus --uri URI [--status | --rollback | --force]` |

pymilvus is imported only when a Milvus backend is asked for; the local backend needs none of it.
"""
