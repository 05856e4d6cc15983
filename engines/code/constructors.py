"""A class in place of its constructor, for a question asked in words (issue 60).

A person who asks "how does it read json one piece at a time from a stream" wants ``JsonReader``, the
class; the words and the table find its constructor (``JsonReader.JsonReader``), whose lines say how
the object is set up, not what it does. So, among the first TOP rows of such an answer, a constructor
or a special method (``__init__``, ``__call__``, ``__construct``, ``initialize``, ``constructor``,
``new``, ``init``, or the method named as its class) gives its place to its class when the class has
word evidence of its own (the BM25 score of at least one of the question's words): the class goes to the
constructor's place and the constructor to the class's place, or to just after the TOP rows when the
class was further down.

Measured on dev only (a replay of the engine's rankings over the natural questions, their check set and
semble's 13 asked queries; the engine's own figures in docs/code-embedder.md), right@3 / nDCG@10:
natural 0.379 / 0.390 -> 0.394 / 0.409, the check set written before it 0.222 / 0.173 -> 0.222 / 0.190,
semble's asked queries unchanged; the same at TOP 3, 5, 10 and 20. Tried beside it and not kept: the
class put above its first member in the head whenever its constructor is there (natural 0.424 but the
check set 0.222 -> 0.167 and semble's asked queries down; at TOP 20 the check set 0.111).
"""

from __future__ import annotations

from typing import Callable, Sequence

from engines.code.merge import LEXICAL, Merged

TOP = 10  # the head where a constructor gives its place: 3, 5, 10 and 20 measured the same
CONSTRUCTORS = frozenset({"__init__", "__new__", "__construct", "initialize", "constructor", "new", "init"})


def constructor_of(qualname: str, kind: str) -> str | None:
    """The class a constructor or special method belongs to (its qualname), or None for any other symbol."""
    if kind != "method" or "." not in qualname:
        return None
    owner, name = qualname.rsplit(".", 1)
    special = name.startswith("__") and name.endswith("__") and len(name) > 4
    return owner if special or name in CONSTRUCTORS or name == owner.rsplit(".", 1)[-1] else None


def classes_for_constructors(merged: list[Merged], symbols: Sequence, file_of: Sequence[str],
                             by_name: dict[str, list[int]], evidence: Callable[[int], tuple[float, int] | None],
                             top: int = TOP) -> list[Merged]:
    """``merged`` with each constructor among its first ``top`` rows swapped with its class (see the
    module). ``by_name``: a symbol's own name -> positions; ``evidence(position)``: the class's lexical
    (score, rank), None where none of the question's words is in it."""
    out = list(merged)
    at = {m.position: i for i, m in enumerate(out)}
    for i in range(min(top, len(out))):
        row = out[i]
        symbol = symbols[row.position]
        owner = constructor_of(symbol.qualname, symbol.kind)
        if owner is None or LEXICAL not in row.ranks:  # evidence rows only: a resemblance row stays behind
            continue
        own = owner.rsplit(".", 1)[-1]
        cls = next((p for p in by_name.get(own, ()) if file_of[p] == file_of[row.position]
                    and symbols[p].qualname == owner and symbols[p].kind == "class"), None)
        if cls is None or at.get(cls, len(out)) < i or (cls in at and LEXICAL not in out[at[cls]].ranks):
            continue
        if cls in at:
            j = at[cls]
            out[i], out[j] = out[j], out[i]
        else:
            found = evidence(cls)
            if found is None:
                continue
            score, rank = found
            out[i] = Merged(cls, LEXICAL, score, {LEXICAL: rank}, {LEXICAL: score}, row.fused)
            out.insert(min(top, len(out)), row)
        at = {m.position: n for n, m in enumerate(out)}
    return out


def classes_first(merged: list[Merged], symbols: Sequence, lexical, query: str, top: int = TOP) -> list[Merged]:
    """``classes_for_constructors`` over the code engine's lexical tier (``lexical``: a LexicalIndex),
    a class's evidence read from BM25 only when a constructor's class is not among the rows."""
    scores = []

    def evidence(position: int) -> tuple[float, int] | None:
        if not scores:
            scores.append(lexical.index.scores(lexical.query_words(query)))
        own = float(scores[0][position])
        return (own, int((scores[0] > own).sum()) + 1) if own > 0 else None

    shape = lexical.shape
    return classes_for_constructors(merged, symbols, shape.file, shape.by_name, evidence, top)
