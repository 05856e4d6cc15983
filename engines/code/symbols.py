"""Symbols of Python source, read with ``ast``: modules, classes, functions and methods.

The code being indexed is parsed, never imported or run. Each symbol carries what a reader needs to
recognise it (qualified name, signature, decorators, bases, docstring, path:line) and its own source:
a class's own lines leave out its methods (they are symbols of their own), a module's leave out its
classes and functions, so no line is indexed twice.
"""

from __future__ import annotations

import ast
import hashlib
import textwrap
from dataclasses import dataclass, field

from engines.lexical import split_identifier

KINDS = ("module", "class", "function", "method")  # a module chunk: lines outside every other symbol
# A symbol whose own lines (nested symbols left out) pass LONG is cut into parts of PART lines: the
# first keeps the symbol's id, doc and signature, the others (``id@line``) are found at their own
# lines (pydantic's 1,178-line ConfigDict, a 2,000-line Zig function). Not tuned: the ranking may
# move them. treesitter.py cuts the same way.
LONG, PART = 200, 100


@dataclass(frozen=True)
class Symbol:
    id: str  # "relpath::qualname", unique within a corpus
    kind: str  # module | class | function | method
    module: str  # dotted module name from the relative path ("service.limits")
    qualname: str  # within the module ("RateLimiter.allow"); a module's is its dotted name
    signature: str  # "(self, key: str, cost: int = 1) -> bool"; "" for modules and classes without bases
    docstring: str
    source: str  # the symbol's own lines (decorators, header, docstring, body less nested symbols)
    where: str  # "relpath:line"
    path: str  # absolute path of the file
    line: int  # 1-based line of the def/class (of the first line for a module)
    end_line: int
    decorators: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()
    content_hash: str = field(default="", compare=False)  # sha256 of embed_text(): the vector's key
    language: str = "python"  # languages.py's name ("go", "rust", ...): the row shows it, the preview highlights by it

    @property
    def title(self) -> str:
        """The row: ``qualname(signature)``."""
        return self.qualname + self.signature if self.kind in ("function", "method") else (
            self.qualname + (f"({', '.join(self.bases)})" if self.bases else ""))

    @property
    def summary(self) -> str:
        """The docstring's first non-empty line."""
        return next((line.strip() for line in self.docstring.splitlines() if line.strip()), "")

    @property
    def rel(self) -> str:
        """The file's path within the corpus (``where`` less its line)."""
        return self.where.rsplit(":", 1)[0]

    @property
    def name_words(self) -> list[str]:
        return split_identifier(self.qualname if self.kind == "module" else self.qualname.replace(".", " "))


def embed_text(symbol: Symbol) -> str:
    """The text the embedding tier embeds: the symbol's own source (header, docstring, body).

    Source as written was what scored best for MiniLM on CoSQA (the function as published there);
    a module's own lines are prefixed with its dotted name, which its source does not contain.
    """
    if symbol.kind == "module":
        return f"module {symbol.module}\n{symbol.source}".strip()
    return symbol.source


STATIC_TEXT_PATH = True  # read at each call: the tuning tool's ``--path 0`` measures the texts without it


def static_text(symbol: Symbol) -> str:
    """The text the trained code table embeds: the file's path within the corpus, then ``embed_text``.

    A bag of word rows has no context but its words; the path's words ("src/click/termui.py") say where the
    symbol lives, which semble's questions ask about. semble dev, 42 repositories, the table alone as
    the engine ranks it: NDCG@10 0.628 -> 0.685 (docs/code-embedder.md, "The path in the static text, and
    the density").
    MiniLM's texts stay ``embed_text``: not measured with the path (an hour a tree to embed).
    A function without a file (CoSQA's) has no path to say.
    """
    text = embed_text(symbol)
    if not symbol.path or not STATIC_TEXT_PATH:
        return text
    return f"{symbol.rel}\n{text}"


def parse_symbols(text: str, rel: str, path: str, module: str) -> list[Symbol]:
    """Every symbol of one file. Raises SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError."""
    tree = ast.parse(text, filename=rel)
    lines = text.splitlines(keepends=True)
    out: list[Symbol] = []
    seen: dict[str, int] = {}

    def add(kind: str, qualname: str, node: ast.AST | None, start: int, end: int, nested: list[ast.AST],
            signature: str = "", decorators: tuple[str, ...] = (), bases: tuple[str, ...] = ()) -> None:
        doc = ast.get_docstring(node, clean=True) if node is not None else None
        runs = _own_runs(start, min(end, len(lines)), nested)
        pieces = list(parts(lines, runs)) if sum(b - a + 1 for a, b in runs) > LONG else []
        if pieces:
            end = pieces[0][1]
            source = textwrap.dedent(pieces[0][2]).rstrip()
        else:
            source = textwrap.dedent("".join("".join(lines[a - 1:b]) for a, b in runs)).rstrip()
        key = qualname if qualname not in seen else f"{qualname}@{start}"  # a redefinition, a property setter
        seen[qualname] = start
        symbol = Symbol(id=f"{rel}::{key}", kind=kind, module=module, qualname=qualname, signature=signature,
                        docstring=doc or "", source=source, where=f"{rel}:{start if kind != 'module' else 1}",
                        path=path, line=start, end_line=end, decorators=decorators, bases=bases)
        text = embed_text(symbol)
        out.append(with_hash(symbol, text))
        for a, b, piece in pieces[1:]:
            part = Symbol(id=f"{symbol.id}@{a}", kind=kind, module=module, qualname=qualname, signature="",
                          docstring="", source=textwrap.dedent(piece).rstrip(), where=f"{rel}:{a}", path=path,
                          line=a, end_line=b)
            out.append(with_hash(part, embed_text(part)))

    top_nested = _nested_defs(tree)
    add("module", module, tree, 1, max(1, len(lines)), top_nested)
    # An explicit stack, not recursion: deeply nested code must not exhaust Python's stack here.
    stack: list[tuple[ast.AST, str, bool]] = [(n, "", False) for n in reversed(top_nested)]
    while stack:
        node, prefix, in_class = stack.pop()
        qualname = f"{prefix}.{node.name}" if prefix else node.name
        children = _nested_defs(node)
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        decorators = tuple(unparse(d) for d in node.decorator_list)
        if isinstance(node, ast.ClassDef):
            bases = tuple(unparse(b) for b in node.bases) + tuple(f"{k.arg}={unparse(k.value)}" if k.arg
                                                                   else f"**{unparse(k.value)}" for k in node.keywords)
            add("class", qualname, node, start, node.end_lineno or start, children, decorators=decorators, bases=bases)
        else:
            kind = "method" if in_class else "function"
            add(kind, qualname, node, start, node.end_lineno or start, children,
                signature=signature_of(node), decorators=decorators)
        child_prefix = qualname if isinstance(node, ast.ClassDef) else f"{qualname}.<locals>"
        stack.extend((c, child_prefix, isinstance(node, ast.ClassDef)) for c in reversed(children))
    out.sort(key=lambda s: (s.line, s.kind != "module"))
    return out


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")  # where statements nest
# The nodes that hold statement blocks, and which: a simple statement (most of a body) is passed over
# without looking for blocks it cannot have (2.6M getattr calls on the standard library before).
_COMPOUND: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"), ast.ExceptHandler: ("body",),
    ast.Match: ("cases",), ast.match_case: ("body",),
}
if hasattr(ast, "TryStar"):  # except* (3.11)
    _COMPOUND[ast.TryStar] = _COMPOUND[ast.Try]


def _nested_defs(node: ast.AST) -> list[ast.AST]:
    """Defs in ``node``'s body, also under if/try/with/for/match blocks, but not inside other defs.

    Only statement blocks are walked, never expressions: 4x faster than ast.iter_child_nodes here."""
    found = []
    pending = [child for field in _BLOCKS for child in getattr(node, field, ())]
    compound = _COMPOUND
    while pending:
        child = pending.pop()
        if isinstance(child, _DEFS):
            found.append(child)
        else:
            fields = compound.get(type(child))
            if fields is not None:
                for field in fields:
                    pending.extend(getattr(child, field))
    return sorted(found, key=lambda n: n.lineno)


def _own_runs(start: int, end: int, nested: list[ast.AST]) -> list[tuple[int, int]]:
    """Lines start..end (1-based, inclusive) less the lines of nested defs (with their decorators),
    as (first, last) runs; the source is their text, dedented (a method reads as it would at top level)."""
    runs, line = [], start
    for n in nested:  # sorted by line; a nested def's lines are one run to leave out
        first = min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])])
        if first > line:
            runs.append((line, min(first - 1, end)))
        line = max(line, (n.end_lineno or first) + 1)
    if line <= end:
        runs.append((line, end))
    return [(a, b) for a, b in runs if a <= b]


def parts(lines: list[str], runs: list[tuple[int, int]]):
    """(first line, last line, text) of PART-line pieces of the runs (a piece may hold several runs)."""
    piece: list[tuple[int, int]] = []
    size = 0
    for a, b in runs:
        while a <= b:
            take = min(b, a + PART - size - 1)
            piece.append((a, take))
            size += take - a + 1
            a = take + 1
            if size >= PART:
                yield piece[0][0], piece[-1][1], "".join("".join(lines[x - 1:y]) for x, y in piece).rstrip()
                piece, size = [], 0
    if piece:
        yield piece[0][0], piece[-1][1], "".join("".join(lines[x - 1:y]) for x, y in piece).rstrip()


def signature_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    text = f"({unparse(node.args)})"
    if node.returns is not None:
        text += f" -> {unparse(node.returns)}"
    return text


def unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (RecursionError, ValueError):  # a pathologically deep default or annotation
        return "…"


def with_hash(symbol: Symbol, text: str) -> Symbol:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    object.__setattr__(symbol, "content_hash", digest)
    return symbol
