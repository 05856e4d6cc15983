"""Names of tree-sitter definitions, per language: the name node, C declarators, Go receivers,
Rust ``impl`` types, Elixir ``def`` calls, as dotted paths (``a::b``, ``M:f``, ``a\\b`` -> ``a.b``)."""

from __future__ import annotations

import re

from engines.code.languages import Lang


def _text(node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


_NAME_TYPES = frozenset({"identifier", "field_identifier", "type_identifier", "qualified_identifier", "operator_name",
                         "destructor_name", "namespace_identifier", "simple_identifier", "constant", "name", "word",
                         "variable", "property_identifier", "scoped_identifier", "template_function",
                         "nested_namespace_specifier", "qualified_name", "namespace_name", "scope_resolution"})


def name_of(node, lang: Lang, data: bytes) -> str:
    t = node.type
    if lang.name == "elixir":
        return _elixir_name(node, data)
    if t in ("function_definition", "declaration", "field_declaration") and lang.name in ("c", "cpp"):
        return _declarator_name(node, data)
    if t == "type_definition":
        declarator = node.child_by_field_name("declarator")
        return plain(_text(declarator, data)) if declarator is not None else ""
    if t == "impl_item":
        kind = node.child_by_field_name("type")
        return plain(_text(kind, data)) if kind is not None else ""
    if t == "variable_declaration" or t == "companion_object":  # zig `const X = struct {...}`
        ident = next((c for c in node.named_children if c.type in ("identifier", "type_identifier")), None)
        return _text(ident, data) if ident is not None else ("Companion" if t == "companion_object" else "")
    if t == "expression_statement" or t == "assignment_expression":
        expr = node.named_children[0] if t == "expression_statement" and node.named_child_count else node
        left = expr.child_by_field_name("left")
        return plain(_text(left, data)) if left is not None else ""
    if t == "assignment_statement":  # lua `M.f = function() end`
        target = node.named_children[0] if node.named_child_count else None
        return plain(_text(target, data)) if target is not None else ""
    if t == "test_declaration":
        label = next((c for c in node.named_children if c.type in ("string", "identifier")), None)
        return "test " + _text(label, data).strip('"') if label is not None else "test"
    if t == "init_declaration":
        return "init"
    if t == "singleton_method":
        name = node.child_by_field_name("name")
        return _text(name, data) if name is not None else ""
    name = node.child_by_field_name("name")
    if name is None:
        name = next((c for c in node.named_children if c.type in _NAME_TYPES), None)
    if name is None:
        return ""
    return plain(_text(name, data))


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|#[^\n]*", re.S)
_PART = re.compile(r"operator\s*[^\w\s(]+|[^\W\d][\w$!?]*|[$~][\w$]+")


def plain(text: str) -> str:
    """A name as a dotted path: ``a::b``, ``M:f``, ``a\\b``, ``X.prototype.f`` -> ``X.f``; generics,
    comments and punctuation dropped (a macro tree-sitter misread can put a comment in a name)."""
    text = _COMMENT.sub(" ", re.sub(r"<[^<>]*>", "", text))
    parts = [p for p in _PART.findall(text) if p != "prototype"]
    if not parts:  # an operator: Haskell's `(<>)`, Elixir's `a <> b`
        return " ".join(text.split())[:40]
    return ".".join(parts[:8])


def _declarator_name(node, data: bytes) -> str:
    declarator = node.child_by_field_name("declarator")
    for _ in range(8):
        if declarator is None:
            return ""
        if declarator.type in ("identifier", "field_identifier", "qualified_identifier", "operator_name",
                               "destructor_name", "type_identifier", "template_function"):
            return plain(_text(declarator, data))
        inner = declarator.child_by_field_name("declarator")
        declarator = inner if inner is not None else next(
            (c for c in declarator.named_children if c.type in _NAME_TYPES), None)
    return ""


def go_receiver(node, data: bytes) -> str:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ""
    words = re.findall(r"[A-Za-z_]\w*", _text(receiver, data).split("[", 1)[0])
    return words[-1] if words else ""


def _elixir_name(node, data: bytes) -> str:
    args = next((c for c in node.named_children if c.type == "arguments"), None)
    if args is None or not args.named_child_count:
        return ""
    head = args.named_children[0]
    if head.type == "binary_operator":  # `def f(x) when is_integer(x)`
        head = head.child_by_field_name("left") or head
    if head.type == "call":
        target = head.child_by_field_name("target")
        return _text(target, data) if target is not None else ""
    return _text(head, data).split("(", 1)[0].strip()
