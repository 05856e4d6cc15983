"""The Milvus collection of code: one entity per symbol, many trees and their versions side by side.

A row holds what the pane shows of a symbol (id, title, where, lines, language, kind, summary), what
the code-aware ranking reads of it (qualified name, own name, its file's path, length, its path
penalty as the whole tree sets it: a C header beside its .c file sinks), the words the lexical tier
counts for it (engines.code.lexical_tier: fields weighted by repetition, identifiers split, stemmed,
sent as text so Milvus's BM25 function sees exactly our tokens), and its vector from the code model
with its neighbourhood density (zeros where the tree was published without vectors).

``tree`` and ``version`` are fields, so one collection holds an organisation's trees and a search
filters to the versions their pointers name (engines/milvus/versions.py); the primary key is a
digest of (tree, version, symbol id).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass

import numpy as np

from engines.code.lexical_tier import K1, B, symbol_document
from engines.code.words import STEM

COLLECTION = "olai_code"
REGISTRY = "olai_code_trees"  # one row per published (collection, tree, version): its meta as JSON
# How a version's ``words`` were stemmed, kept in its meta: a search whose query words are stemmed
# otherwise would meet none of them, so such a version is republished (publish.py) or refused (search.py).
# Versions published before 2026-12-06 have none: the light stemmer's.
WORDS = str(STEM)
WORDS_BYTES = 65_000  # a VARCHAR holds at most 65,535 bytes; the longest symbol part (100 lines) is far under
TEXT_BYTES = 2_000  # a title, a where, a qualified name: clipped, never refused
DEFAULT_INDEX = "FLAT"  # milvus-lite's local mode takes FLAT, IVF_FLAT and AUTOINDEX only (products' collection.py)

# What a search reads back of each row.
ROW_FIELDS = ["tree", "symbol_id", "title", "where", "path", "line", "end_line", "language", "kind", "qualname",
              "summary", "length", "penalty", "density"]


@dataclass(frozen=True)
class TreeVersion:
    tree: str
    version: int


def tree_name(label: str) -> str:
    """A tree's default name: its folder's name (``/src/acme/billing`` -> ``billing``)."""
    return os.path.basename(os.path.normpath(label)) or label or "tree"


def fingerprint(symbols) -> str:
    """Which symbols a version holds: ids, lines and the text of each, in order."""
    digest = hashlib.sha256()
    for s in symbols:
        digest.update(f"{s.id}\x00{s.line}\x00{s.end_line}\x00{s.content_hash or s.source}\x01".encode("utf-8", "replace"))
    return digest.hexdigest()[:32]


def words_text(symbol) -> str:
    """The lexical tier's document of a symbol as one string of tokens (each as often as it counts)."""
    return _clip(" ".join(symbol_document(symbol)), WORDS_BYTES)


def _clip(text: str, limit: int = TEXT_BYTES) -> str:
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore").rsplit(" ", 1)[0]


def own_name(symbol) -> str:
    """The name a definer is looked up by (ranking.py's ``_own_name``); empty for a module."""
    from engines.code.ranking import _own_name

    return "" if symbol.kind == "module" else _own_name(symbol.qualname)


def relative_path(symbol) -> str:
    where = symbol.where
    return (where.rsplit(":", 1)[0] if ":" in where else where).replace(os.sep, "/")


def schema(client, dims: int):
    from pymilvus import DataType, Function, FunctionType

    s = client.create_schema(auto_id=False, enable_dynamic_field=False,
                             description=json.dumps({"kind": "olai code", "dims": dims}))
    s.add_field("key", DataType.VARCHAR, is_primary=True, max_length=64)
    s.add_field("tree", DataType.VARCHAR, max_length=512)
    s.add_field("version", DataType.INT64)
    for name in ("symbol_id", "title", "where", "path", "qualname", "summary"):
        s.add_field(name, DataType.VARCHAR, max_length=TEXT_BYTES * 2)
    s.add_field("name_lower", DataType.VARCHAR, max_length=TEXT_BYTES * 2)
    s.add_field("language", DataType.VARCHAR, max_length=64)
    s.add_field("kind", DataType.VARCHAR, max_length=32)
    for name in ("line", "end_line", "length"):
        s.add_field(name, DataType.INT64)
    s.add_field("penalty", DataType.FLOAT)
    s.add_field("density", DataType.FLOAT)
    s.add_field("words", DataType.VARCHAR, max_length=WORDS_BYTES + 64, enable_analyzer=True,
                analyzer_params={"tokenizer": "whitespace"})
    s.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    s.add_field("vector", DataType.FLOAT_VECTOR, dim=dims)
    s.add_function(Function(name="words_bm25", function_type=FunctionType.BM25,
                            input_field_names=["words"], output_field_names=["sparse"]))
    return s


def index_params(client, index_type: str = DEFAULT_INDEX):
    params = client.prepare_index_params()
    params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                     params={"bm25_k1": K1, "bm25_b": B})  # the lexical tier's own parameters
    params.add_index("vector", index_type=index_type, metric_type="IP")  # L2-normalised: IP = cosine
    params.add_index("tree", index_type="INVERTED")
    params.add_index("name_lower", index_type="INVERTED")
    return params


def key_of(tree: str, version: int, symbol_id: str) -> str:
    return hashlib.sha1(f"{tree}\x00{version}\x00{symbol_id}".encode("utf-8", "replace")).hexdigest()


def rows(symbols, penalties, vectors: np.ndarray, density: np.ndarray, at: TreeVersion,
         start: int, stop: int) -> list[dict]:
    """Symbols ``start`` to ``stop`` of a tree as rows of version ``at``."""
    out = []
    for i in range(start, stop):
        s = symbols[i]
        out.append({"key": key_of(at.tree, at.version, s.id), "tree": at.tree, "version": at.version,
                    "symbol_id": _clip(s.id), "title": _clip(s.title), "where": _clip(s.where),
                    "path": _clip(relative_path(s)), "qualname": _clip(s.qualname), "summary": _clip(s.summary),
                    "name_lower": _clip(own_name(s).lower()), "language": getattr(s, "language", "python")[:64],
                    "kind": s.kind[:32], "line": int(s.line), "end_line": int(s.end_line),
                    "length": len(s.source or ""), "penalty": float(penalties[i]), "density": float(density[i]),
                    "words": words_text(s), "vector": vectors[i].tolist()})
    return out


def quoted(text: str) -> str:
    """A string as a Milvus expression literal."""
    return json.dumps(text, ensure_ascii=False)


def versions_filter(published: list[TreeVersion]) -> str:
    """Rows of exactly these trees at exactly these versions."""
    return " or ".join(f"(tree == {quoted(p.tree)} and version == {p.version})" for p in published)
