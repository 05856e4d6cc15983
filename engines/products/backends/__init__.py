"""Recall backends: who holds the catalogue's BM25 words and vectors, behind one seam.

The question is the one ``RecallIndex.recall`` answers: a request, the hard rules' allowed set and
the sources wanted -> per-source candidate lists, fused. The fusion, the judge and the order above
never know which backend answered; the answer says so (``recall_backend``, ``recall_fallback``).

| module | one reason to change |
|---|---|
| `router.py` | memory / milvus / milvus-only / memory-only, the 400 ms deadline, the breaker, the config |
| `milvus.py` | one round trip to Milvus for the `words` (BM25) and `vectors` lists, filters pushed down |
| `collection.py` | the Milvus collection: fields, the rows of a catalogue, its fingerprint |
| `publish.py` | a catalogue's versioned collections: publish, rollback, status |

What every Milvus backend shares (the deadline and breaker, the published pointer, milvus-lite's binary
on loopback) is engines/milvus/, which code's search uses too; memory against Milvus in one run is
engines/eval/bench/products/milvus.py.

pymilvus is an optional extra (``pip install -e '.[milvus]'``): nothing here imports it until a
Milvus backend is asked for, and the memory backend needs none of it.
"""

from engines.products.backends.router import (BACKENDS, Breaker, RecallRouter, RecallSettings, memory_router,
                                              router_from_config)

__all__ = ["BACKENDS", "Breaker", "RecallRouter", "RecallSettings", "memory_router", "router_from_config"]
