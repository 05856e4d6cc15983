"""Symbols of source in any language of languages.py, read with tree-sitter: the symbol is the chunk.

Each definition the language's query matches becomes a Symbol shaped as the Python path makes them
(symbols.py): qualified name (``Type.method``, ``namespace.Type``), signature (what follows the name
up to the body), doc comment by the language's convention (the comments just above, ``@doc``,
docstrings), its own lines (a type's leave out its methods, which are symbols of their own, so a
2,000-line class is found at the method's lines) and start/end lines. Definitions inside function
bodies stay part of that function. Lines outside every symbol (imports, top-level statements,
scripts, config-like files) become ``module`` chunks, one per run of lines between symbols, cut at
WINDOW lines, so nothing is unsearchable. tree-sitter recovers from syntax errors: a file that does
not fully parse still yields the symbols around the error.
"""

from __future__ import annotations

import re
import textwrap

from engines.code.languages import COMMENTS, Lang, grammar
from engines.code.names import _text, go_receiver, name_of
from engines.code.symbols import LONG, Symbol, with_hash, embed_text, parts

# Top-level lines outside symbols are cut into chunks of at most this many lines: a chunk this
# size reads as one screen in the preview, and a long script is still found at the right lines.
WINDOW = 50
# Long symbols are cut into parts as symbols.py cuts Python's (LONG, PART there): a 2,000-line
# Elixir module of @callback docs is found at the callback's lines.
SIGNATURE_CHARS = 240  # a signature longer than this (a C++ template's) is cut: the source keeps all of it

_QUERIES: dict[str, object] = {}
_PARSERS: dict[str, object] = {}
_WORD = re.compile(r"\w")
_DOC_MARKS = re.compile(r"^[ \t]*(?:///?!?|/\*\*?!?|\*/|\*(?!\w)|#+!?|--+[ \t]*[|^]?|@(?:module)?doc[ \t]*(?:~[sS])?|\"\"\"|''')[ \t]?|[ \t]*(?:\*/|\"\"\"|''')?[ \t]*$", re.M)
_BODY_TYPES = frozenset({"block", "compound_statement", "statement_block", "class_body", "declaration_list",
                         "field_declaration_list", "body_statement", "do_block", "function_body", "template_body",
                         "enum_body", "interface_body", "constructor_body", "enum_variant_list", "protocol_body",
                         "enum_class_body", "class_declarations", "instance_declarations", "where"})


def _query(lang: Lang):
    found = _QUERIES.get(lang.name)
    if found is None:
        from tree_sitter import Query

        found = _QUERIES[lang.name] = Query(grammar(lang), lang.defs)
    return found


def parse_tree(lang: Lang, data: bytes):
    parser = _PARSERS.get(lang.name)
    if parser is None:
        from tree_sitter import Parser

        parser = _PARSERS[lang.name] = Parser(grammar(lang))
    return parser.parse(data)


def parse_code(text: str, rel: str, path: str, module: str, lang: Lang) -> list[Symbol]:
    """Every symbol of one file in ``lang``. Raises GrammarMissing when its wheel is absent."""
    from tree_sitter import QueryCursor

    data = text.encode("utf-8", "surrogatepass")
    tree = parse_tree(lang, data)
    captures = QueryCursor(_query(lang)).captures(tree.root_node)
    found = [(node, kind) for kind, nodes in captures.items() if not kind.startswith("_") for node in nodes]
    found.sort(key=lambda nk: (nk[0].start_byte, -nk[0].end_byte))
    lines = text.splitlines(keepends=True)
    out: list[Symbol] = []
    # The definitions open around the one being read: (end_byte, kind, name).
    stack: list[tuple[int, str, str]] = []
    spans: list[tuple[int, int, int]] = []  # (start, end, index into out) of emitted symbols, 1-based lines
    seen: set[str] = set()
    ids: set[str] = set()
    for node, kind in found:
        start_byte = node.start_byte
        while stack and stack[-1][0] <= start_byte:
            stack.pop()
        if stack and stack[-1][1] == "function" and lang.closures:
            continue  # a closure, a local helper: part of the function it is in
        name = name_of(node, lang, data)
        if not name:
            continue
        if not lang.closures and kind == "function":
            words = [_text(c, data) for c in node.children if c.type in ("ERROR", "identifier")]
            if "namespace" in words:  # `MACRO namespace x {`: a namespace tree-sitter read as a function
                kind, name = "namespace", next((w for w in words if w != "namespace"), name)
        if kind == "prefix":  # `namespace X;` holds every later symbol of its block
            parent = node.parent
            stack.append((parent.end_byte if parent is not None else len(data), "namespace", name))
            continue
        scope = [n for _, k, n in stack if k != "function"]
        in_type = any(k == "class" for _, k, _ in stack)
        if lang.name == "go" and node.type == "method_declaration":
            receiver = go_receiver(node, data)
            if receiver:
                scope, in_type = scope + [receiver], True
        qualname = ".".join(scope + [name])
        stack.append((node.end_byte, kind, name))
        if kind == "namespace":
            continue
        anchor = _anchor(node, lang)
        first, doc, leading_sig = _leading(anchor, lang, data)
        start = first.start_point[0] + 1
        end = node.end_point[0] + 1 if node.end_point[1] > 0 or node.end_point[0] == node.start_point[0] \
            else node.end_point[0]
        end = max(end, anchor.end_point[0] + 1 if anchor.end_point[1] > 0 else anchor.end_point[0], start)
        if not doc:
            doc = _inner_doc(node, lang, data)
        symbol_kind = "class" if kind == "class" else ("method" if in_type else "function")
        if lang.name == "haskell" and kind == "function" and out and out[-1].qualname == qualname \
                and out[-1].end_line >= start - 2:
            # One function, several equations (`f (A x) = ...` / `f (B x) = ...`): one symbol
            object.__setattr__(out[-1], "end_line", max(end, out[-1].end_line))
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]), spans[-1][2])
            continue
        signature = leading_sig or (_signature(node, data, lang) if kind == "function" and lang.name != "haskell"
                                    else "")
        key = qualname if qualname not in seen else f"{qualname}@{start}"
        while f"{rel}::{key}" in ids:  # two definitions of one name on one line
            key += "'"
        seen.add(qualname)
        ids.add(f"{rel}::{key}")
        spans.append((start, end, len(out)))
        out.append(Symbol(id=f"{rel}::{key}", kind=symbol_kind, module=module, qualname=qualname,
                          signature=signature, docstring=doc, source="", where=f"{rel}:{start}", path=path,
                          line=start, end_line=end, language=lang.name))
    return _finish(out, spans, lines, rel, path, module, lang)


def _finish(out: list[Symbol], spans: list[tuple[int, int, int]], lines: list[str], rel: str, path: str,
            module: str, lang: Lang) -> list[Symbol]:
    """Each symbol's own lines (less nested symbols), and the module chunks of the lines outside all."""
    spans.sort(key=lambda s: (s[0], -s[1]))
    nested: list[list[tuple[int, int]]] = [[] for _ in out]
    open_: list[tuple[int, int, int]] = []
    covered: list[tuple[int, int]] = []  # top-level symbol spans
    for start, end, i in spans:
        while open_ and open_[-1][1] < start:
            open_.pop()
        if open_:
            nested[open_[-1][2]].append((start, end))
        else:
            covered.append((start, end))
        open_.append((start, end, i))
    result = []
    for i, symbol in enumerate(out):
        runs = _own_runs(symbol.line, min(symbol.end_line, len(lines)), nested[i])
        if sum(b - a + 1 for a, b in runs) <= LONG:
            object.__setattr__(symbol, "source", "".join("".join(lines[a - 1:b]) for a, b in runs).rstrip())
            result.append(with_hash(symbol, embed_text(symbol)))
            continue
        for n, (a, b, text) in enumerate(parts(lines, runs)):
            if n == 0:
                object.__setattr__(symbol, "source", text)
                object.__setattr__(symbol, "end_line", b)
                result.append(with_hash(symbol, embed_text(symbol)))
            else:
                part = Symbol(id=f"{symbol.id}@{a}", kind=symbol.kind, module=module, qualname=symbol.qualname,
                              signature="", docstring="", source=text, where=f"{rel}:{a}", path=path, line=a,
                              end_line=b, language=lang.name)
                result.append(with_hash(part, embed_text(part)))
    taken = {s.id for s in result}  # nvm.sh's module chunk and its function nvm() would share an id
    result.extend(_module_chunks(lines, covered, rel, path, module, lang, taken))
    result.sort(key=lambda s: (s.line, s.kind != "module"))
    return result


def _module_chunks(lines: list[str], covered: list[tuple[int, int]], rel: str, path: str, module: str,
                   lang: Lang, taken: set[str]) -> list[Symbol]:
    runs, line = [], 1
    for start, end in covered + [(len(lines) + 1, len(lines) + 1)]:
        if start > line:
            runs.append((line, start - 1))
        line = max(line, end + 1)
    chunks: list[Symbol] = []
    for first, last in runs:
        while first <= last and not lines[first - 1].strip():
            first += 1
        while last >= first and not lines[last - 1].strip():
            last -= 1
        for lo in range(first, last + 1, WINDOW):
            hi = min(last, lo + WINDOW - 1)
            text = "".join(lines[lo - 1:hi])
            if not _WORD.search(text):
                continue  # closing braces, separators
            key = module if not chunks and f"{rel}::{module}" not in taken else f"{module}@{lo}"
            symbol = Symbol(id=f"{rel}::{key}", kind="module", module=module, qualname=module, signature="",
                            docstring="", source=text.rstrip(), where=f"{rel}:{lo}", path=path, line=lo,
                            end_line=hi, language=lang.name)
            chunks.append(with_hash(symbol, embed_text(symbol)))
    if not chunks:  # the file is still a row of its own: its path words find it
        symbol = Symbol(id=f"{rel}::{module}" if f"{rel}::{module}" not in taken else f"{rel}::{module}@1", kind="module", module=module, qualname=module, signature="",
                        docstring="", source="", where=f"{rel}:1", path=path, line=1, end_line=1, language=lang.name)
        chunks.append(with_hash(symbol, embed_text(symbol)))
    return chunks


def _own_runs(start: int, end: int, nested: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Lines start..end (1-based, inclusive) less the nested symbols' lines, as (first, last) runs.

    The text is not dedented (Python's path dedents): the preview reads the file itself, BM25 and
    the embedder ignore indentation, and dedent was 12% of laravel's parse time."""
    runs, line = [], start
    for first, last in nested:
        if first > line:
            runs.append((line, min(first - 1, end)))
        line = max(line, last + 1)
    if line <= end:
        runs.append((line, end))
    return [(a, b) for a, b in runs if a <= b]


def _anchor(node, lang: Lang):
    """The outermost wrapper of a definition (``export``, decorators, ``template<>``, ``type (...)``)."""
    while node.parent is not None and node.parent.type in lang.wrappers and node.parent.named_child_count <= 2:
        node = node.parent
    return node


def _leading(anchor, lang: Lang, data: bytes):
    """The first node of the symbol (its doc comment, attributes), the doc text, a Haskell signature."""
    first, docs, signature = anchor, [], ""
    node, climbed = anchor.prev_sibling, False
    while True:
        if node is None and not climbed and anchor.parent is not None and \
                anchor.parent.type in ("body_statement", "declarations"):
            # Ruby: a class's first method's comment sits before the body; Haskell: the first
            # declaration's haddock sits before the declarations, or at the end of the imports
            climbed, node = True, anchor.parent.prev_sibling
            if node is not None and node.type not in COMMENTS and node.child_count:
                node = node.children[-1]
        if node is None:
            break
        before = node.prev_sibling
        if node.type in COMMENTS and before is not None and before.end_point[0] == node.start_point[0]:
            break  # a comment trailing the line before (`x = 1  -- TODO`) is not this symbol's doc
        gap = first.start_point[0] - node.end_point[0]
        # A `/** */` block is meant for what follows even across one blank line (express writes them
        # so), unless it opens the file (a licence)
        if gap > 1 and not (gap == 2 and first is anchor and node.type in COMMENTS and node.start_point[0] > 0
                            and data.startswith(b"/**", node.start_byte)):
            break
        if node.type in COMMENTS:
            docs.append(_text(node, data))
        elif node.type in lang.leading:
            text = _text(node, data)
            if lang.name == "elixir":
                if not text.startswith(("@doc", "@spec", "@impl", "@deprecated")):
                    break
                if text.startswith("@doc"):
                    docs.append(text)
            elif lang.name == "haskell":
                signature = " ".join(text.split())
        else:
            break
        first = node
        node = node.prev_sibling
    doc = _clean_doc(list(reversed(docs)))
    if lang.name == "csharp":
        doc = re.sub(r'<\w+\s+\w+="([^"]*)"\s*/>', r"\1", doc)  # `<see cref="XNode"/>` -> XNode
        doc = re.sub(r"</?\w+[^>]*>", "", doc).strip()  # `<summary>`, `<param name="x">`
    return first, doc, signature[:SIGNATURE_CHARS]


def _clean_doc(parts: list[str]) -> str:
    text = "\n".join(parts)
    if not text:
        return ""
    # One pass over the whole comment, not one per line: laravel's docblocks made the per-line
    # loop 13% of its parse time.
    text = _DOC_MARKS.sub("", text)
    if "\n " in text:
        text = textwrap.dedent(text)
    return text.strip()


def _inner_doc(node, lang: Lang, data: bytes) -> str:
    """A doc inside the definition: a Python docstring, an Elixir @moduledoc."""
    if lang.name == "python":
        body = node.child_by_field_name("body")
        if body is not None and body.named_child_count:
            first = body.named_children[0]
            if first.type == "expression_statement" and first.named_child_count and \
                    first.named_children[0].type == "string":
                return _clean_doc([_text(first.named_children[0], data).strip("\"'rRbBuU")])
    elif lang.name == "elixir":
        block = next((c for c in node.named_children if c.type == "do_block"), None)
        if block is not None and block.named_child_count:
            first = block.named_children[0]
            text = _text(first, data)
            if text.startswith("@moduledoc"):
                return _clean_doc([text])
    return ""


_SIG_COMMENTS = {"lua": re.compile(r"--[^\n]*"), "python": re.compile(r"#[^\n]*"), "ruby": re.compile(r"#[^\n]*"),
                 "bash": re.compile(r"#[^\n]*"), "elixir": re.compile(r"#[^\n]*")}
_C_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _signature(node, data: bytes, lang: Lang) -> str:
    """What follows the name up to the body: ``(args) -> Ret``, Python's convention."""
    value = node.child_by_field_name("value") or node.child_by_field_name("right")
    if value is None and node.type == "expression_statement" and node.named_child_count:
        value = node.named_children[0].child_by_field_name("right")
    if value is not None:  # `const f = (a) => ...`, `M.f = function(a) end`: the function's parameters
        params = value.child_by_field_name("parameters") or next(
            (c for c in value.named_children if c.type in ("parameters", "formal_parameters")), None)
        return " ".join(_text(params, data).split())[:SIGNATURE_CHARS] if params is not None else ""
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if body is None:
        body = next((c for c in node.named_children if c.type in _BODY_TYPES), None)
    begin = name.end_byte if name is not None else node.start_byte
    finish = body.start_byte if body is not None and body.start_byte >= begin else node.end_byte
    raw = _SIG_COMMENTS.get(lang.name, _C_COMMENTS).sub(" ", data[begin:finish].decode("utf-8", "replace"))
    text = " ".join(raw.split())
    text = re.sub(r"(?:\s*;)?\s*\bend$", "", text)  # Ruby, Lua: `def f; end`
    return text.rstrip("{=:; ").strip()[:SIGNATURE_CHARS]
