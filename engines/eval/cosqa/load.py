"""CoSQA (../shared/data/code/cosqa): 6,267 Python functions and web queries, read as symbols.

Each published function becomes one symbol whose source is the function exactly as published (so
its vector is the one any other CoSQA run embeds, and the vector cache is shared). Its name,
signature and docstring come from ``ast``; the few functions ``ast`` cannot parse (Python 2) keep
their source and take their name from the ``def`` line.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from engines.code.symbols import Symbol, signature_of, unparse, with_hash, embed_text
from engines.eval.datasets import DataFileError

DEF_LINE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)\s*(\([^)]*\))?", re.M)
SCOPE = "cosqa"  # the vector cache's scope for these functions (one file, shared by every CoSQA run)


@dataclass
class CosqaSplit:
    symbols: list[Symbol]  # symbol i is the function with retrieval index i
    queries: list[tuple[str, str]]  # (query text, id of the one correct symbol)


class CosqaError(DataFileError):
    """A CoSQA file that cannot be read as published: the message names the file and line."""


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CosqaError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise CosqaError(f"{path}: not UTF-8 ({exc.reason})") from None


def load_functions(folder: str | Path) -> list[Symbol]:
    path = Path(folder) / "code_idx_map.txt"
    codes = _json(path)
    if not isinstance(codes, dict) or not all(isinstance(i, int) for i in codes.values()):
        raise CosqaError(f"{path}:1: expected one object of code -> retrieval index")
    by_index = sorted(codes.items(), key=lambda item: item[1])
    return [function_symbol(code, index) for code, index in by_index]


def load_queries(path: str | Path) -> list[tuple[str, str]]:
    rows = _json(Path(path))
    out = []
    for n, row in enumerate(rows if isinstance(rows, list) else [None]):
        if not isinstance(row, dict) or "doc" not in row or "retrieval_idx" not in row:
            raise CosqaError(f"{path}: entry {n + 1}: expected an object with doc and retrieval_idx")
        out.append((row["doc"], str(row["retrieval_idx"])))
    return out


def function_symbol(code: str, index: int) -> Symbol:
    base = Symbol(id=str(index), kind="function", module="cosqa", qualname="", signature="", docstring="",
                  source=code, where=f"cosqa:{index}", path="", line=1, end_line=code.count("\n") + 1)
    try:
        tree = ast.parse(code)
        node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    except (SyntaxError, ValueError, RecursionError, MemoryError, StopIteration):
        match = DEF_LINE.search(code)
        symbol = replace(base, qualname=match.group(1) if match else "", signature=(match.group(2) or "") if match else "")
    else:
        is_class = isinstance(node, ast.ClassDef)
        symbol = replace(base, kind="class" if is_class else "function", qualname=node.name,
                         signature="" if is_class else signature_of(node),
                         docstring=ast.get_docstring(node) or "",
                         decorators=tuple(unparse(d) for d in node.decorator_list),
                         bases=tuple(unparse(b) for b in node.bases) if is_class else ())
    return with_hash(symbol, embed_text(symbol))
