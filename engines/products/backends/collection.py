"""The Milvus collection of one catalogue: its fields, its rows, its fingerprint, its filter expressions.

Each product row holds the product id (the primary key), the words the in-memory BM25 indexes
(already folded and split by ``engines.lexical`` so Milvus's BM25 function sees the same tokens), the
product vector from the same local embedder, and the fields the hard rules filter on: claims,
declared allergens, traces, kinds, family, codes, plus one boolean per claim (``meets_<claim>``) and
per allergen (``safe_<allergen>``) computed by ``RuleMasks`` itself, so the filter pushed into Milvus
is the rule, not a re-statement of it. The hard rules still run in code on what comes back.
"""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np

from engines.products.catalogue import Catalogue
from engines.products.knowledge import KnowledgeMap, words
from engines.products.recall import product_text
from engines.products.request import Request
from engines.products.rules import RuleMasks
from engines.products.vocabulary import ALLERGENS, CLAIMS, STOPWORDS

TEXT_BYTES = 16_000  # Icecat's longest words text is ~6 kB; a VARCHAR holds at most 65,535 bytes
ARRAY_CAP = 64  # elements per array field; products past it keep the first 64 (codes: max 23 on Icecat)
# milvus-lite (local mode) accepts FLAT, IVF_FLAT and AUTOINDEX only ("invalid index type: HNSW, local
# mode only support FLAT IVF_FLAT AUTOINDEX"); a cluster takes HNSW and the rest (README).
DEFAULT_INDEX = "FLAT"
BM25_K1, BM25_B = 1.5, 0.75  # engines.lexical.BM25Index's own parameters (bm25s, lucene)


def words_text(product) -> str:
    """The tokens the in-memory BM25 indexes for a product, joined by spaces."""
    tokens = [w for n in product.all_names() for w in words(n)] + list(words(product.brand)) + \
        list(words(product.description))
    return _clip(" ".join(tokens))


def query_words(request: Request) -> str:
    """The BM25 query the in-memory source asks (RecallIndex.words), as one string."""
    return " ".join(w for w in words(request.text) if w not in STOPWORDS)


def _clip(text: str) -> str:
    data = text.encode("utf-8")
    return text if len(data) <= TEXT_BYTES else data[:TEXT_BYTES].decode("utf-8", "ignore").rsplit(" ", 1)[0]


def fingerprint(catalogue: Catalogue, knowledge: KnowledgeMap) -> str:
    """Which catalogue a collection holds: product ids, their embedded texts and their words, in order."""
    digest = hashlib.sha256()
    # the rule columns too: a claim added (issue 58: unsalted, low-sodium) is a field an old collection lacks
    digest.update(" ".join((*CLAIMS, *ALLERGENS)).encode() + b"\x02")
    for p in catalogue.products:
        digest.update(f"{p.id}\x00{product_text(p, knowledge)}\x00{words_text(p)}\x01".encode("utf-8", "replace"))
    return digest.hexdigest()[:32]


def rule_columns(masks: RuleMasks) -> dict[str, np.ndarray]:
    """``meets_<claim>`` and ``safe_<allergen>`` per product, from the rules' own masks."""
    columns = {f"meets_{c}": masks.allowed(Request(text="", claims=(c,))) for c in CLAIMS}
    columns.update({f"safe_{a}": masks.allowed(Request(text="", avoid=frozenset({a}))) for a in ALLERGENS})
    return columns


def rule_filter(request: Request) -> str:
    """The hard rules of a request as a Milvus boolean expression ("" when there are none)."""
    parts = [f"meets_{c} == true" for c in request.claims if c in CLAIMS]
    parts += [f"safe_{a} == true" for a in sorted(request.avoid) if a in ALLERGENS]
    return " and ".join(parts)


def schema(client, dims: int, meta: dict):
    from pymilvus import DataType, Function, FunctionType

    s = client.create_schema(auto_id=False, enable_dynamic_field=False, description=json.dumps(meta))
    s.add_field("id", DataType.VARCHAR, is_primary=True, max_length=256)
    s.add_field("words", DataType.VARCHAR, max_length=TEXT_BYTES + 16, enable_analyzer=True,
                analyzer_params={"tokenizer": "whitespace"})
    s.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    s.add_field("vector", DataType.FLOAT_VECTOR, dim=dims)
    for name in ("claims", "allergens", "traces", "kinds", "codes"):
        s.add_field(name, DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=ARRAY_CAP, max_length=128)
    s.add_field("family", DataType.VARCHAR, max_length=64)
    for name in [f"meets_{c}" for c in CLAIMS] + [f"safe_{a}" for a in ALLERGENS]:
        s.add_field(name, DataType.BOOL)
    s.add_function(Function(name="words_bm25", function_type=FunctionType.BM25,
                            input_field_names=["words"], output_field_names=["sparse"]))
    return s


def index_params(client, index_type: str):
    params = client.prepare_index_params()
    params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                     params={"bm25_k1": BM25_K1, "bm25_b": BM25_B})
    params.add_index("vector", index_type=index_type, metric_type="IP")  # vectors are L2-normalised: IP = cosine
    return params


def rows(catalogue: Catalogue, knowledge: KnowledgeMap, columns: dict[str, np.ndarray], vectors: np.ndarray,
         start: int, stop: int) -> list[dict]:
    """Products ``start`` to ``stop`` as Milvus rows; ``columns`` from ``rule_columns``."""
    out = []
    for i in range(start, stop):
        p = catalogue.products[i]
        row = {"id": p.id, "words": words_text(p), "vector": vectors[i].tolist(),
               "claims": sorted(p.claims)[:ARRAY_CAP], "allergens": sorted(p.allergens)[:ARRAY_CAP],
               "traces": sorted(p.traces)[:ARRAY_CAP], "kinds": list(p.kinds)[:ARRAY_CAP],
               "codes": list(p.codes)[:ARRAY_CAP],
               "family": (knowledge.family(p.kinds[0]) if p.kinds else None) or ""}
        row.update({name: bool(col[i]) for name, col in columns.items()})
        out.append(row)
    return out


def safe_name(text: str) -> str:
    """A collection name from a catalogue's name: letters, digits and underscores, starting with a letter."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_").lower() or "catalogue"
    return name if name[0].isalpha() else "c_" + name
