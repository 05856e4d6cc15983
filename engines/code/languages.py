"""The languages the code engine reads: file extension -> tree-sitter grammar, and what a symbol is in each.

Each grammar is its own PyPI wheel (``tree-sitter-go``, ...), prebuilt, loaded from the installed
package: nothing is ever downloaded at run time. A missing wheel skips that language only, with one
notice naming the package (``grammar``). Per language:

- ``defs``: tree-sitter query patterns, each captured as the symbol kind it makes: ``@function``
  (a method when inside a type), ``@class`` (any type, trait, impl block, module-like container:
  its functions become ``Type.method``), ``@namespace`` (qualifies names, no chunk of its own),
  ``@prefix`` (``namespace X;``: qualifies every symbol after it in the same block).
  Matching runs in C over the whole tree; Python only visits the matches.
- ``wrappers``: node types a definition sits in (``export``, ``template<>``, decorators): the
  symbol starts where its wrapper does, and its doc comment is the wrapper's.
- ``leading``: sibling types absorbed before a definition besides comments (Rust attributes,
  Haskell type signatures, Elixir ``@doc``/``@spec``).
- ``lexer``: the Pygments lexer that highlights the preview.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field

COMMENTS = frozenset({"comment", "line_comment", "block_comment", "haddock", "doc_comment"})


@dataclass(frozen=True)
class Lang:
    name: str
    package: str  # the PyPI wheel that holds the grammar
    module: str  # its import name
    function: str  # the function returning the grammar's pointer
    extensions: tuple[str, ...]
    defs: str  # tree-sitter query: patterns captured @function / @class / @namespace / @prefix
    lexer: str
    wrappers: frozenset[str] = field(default_factory=frozenset)
    leading: frozenset[str] = field(default_factory=frozenset)
    # Whether a definition inside a function is part of it (a closure, a local helper). C and C++
    # have none: a "function" holding others is a macro tree-sitter misread (abseil's
    # `ABSL_NAMESPACE_BEGIN namespace x {` read as one 4,231-line function), so its insides are kept.
    closures: bool = True


LANGS: tuple[Lang, ...] = (
    Lang("python", "tree-sitter-python", "tree_sitter_python", "language", (".py", ".pyi"),
         "(class_definition) @class (function_definition) @function", "python",
         wrappers=frozenset({"decorated_definition"})),
    Lang("javascript", "tree-sitter-javascript", "tree_sitter_javascript", "language", (".js", ".jsx", ".mjs", ".cjs"),
         """(class_declaration) @class (function_declaration) @function (generator_function_declaration) @function
         (method_definition) @function
         (variable_declarator value: [(arrow_function) (function_expression)]) @function
         (pair key: (_) value: [(function_expression) (arrow_function)]) @function
         (expression_statement (assignment_expression left: (member_expression)
             right: [(function_expression) (arrow_function)]) @function)""", "javascript",
         wrappers=frozenset({"export_statement", "lexical_declaration", "variable_declaration", "expression_statement"})),
    Lang("typescript", "tree-sitter-typescript", "tree_sitter_typescript", "language_typescript", (".ts", ".mts", ".cts"),
         """(class_declaration) @class (abstract_class_declaration) @class (interface_declaration) @class
         (enum_declaration) @class (type_alias_declaration) @class (internal_module) @namespace (module) @namespace
         (function_declaration) @function (generator_function_declaration) @function (method_definition) @function
         (function_signature) @function (abstract_method_signature) @function (method_signature) @function
         (variable_declarator value: [(arrow_function) (function_expression)]) @function
         (pair key: (_) value: [(function_expression) (arrow_function)]) @function""", "typescript",
         wrappers=frozenset({"export_statement", "lexical_declaration", "variable_declaration", "expression_statement",
                             "ambient_declaration"})),
    Lang("tsx", "tree-sitter-typescript", "tree_sitter_typescript", "language_tsx", (".tsx",),
         "", "tsx"),  # defs and wrappers: typescript's (filled in below)
    Lang("go", "tree-sitter-go", "tree_sitter_go", "language", (".go",),
         "(type_spec) @class (function_declaration) @function (method_declaration) @function", "go",
         wrappers=frozenset({"type_declaration"})),
    Lang("rust", "tree-sitter-rust", "tree_sitter_rust", "language", (".rs",),
         """(struct_item) @class (enum_item) @class (union_item) @class (trait_item) @class (impl_item) @class
         (type_item) @class (mod_item body: (_)) @namespace (function_item) @function
         (function_signature_item) @function (macro_definition) @function""", "rust",
         leading=frozenset({"attribute_item"})),
    Lang("java", "tree-sitter-java", "tree_sitter_java", "language", (".java",),
         """(class_declaration) @class (interface_declaration) @class (enum_declaration) @class
         (record_declaration) @class (annotation_type_declaration) @class
         (method_declaration) @function (constructor_declaration) @function""", "java"),
    Lang("kotlin", "tree-sitter-kotlin", "tree_sitter_kotlin", "language", (".kt", ".kts"),
         """(class_declaration) @class (object_declaration) @class (companion_object) @class
         (function_declaration) @function""", "kotlin"),
    Lang("scala", "tree-sitter-scala", "tree_sitter_scala", "language", (".scala", ".sc", ".sbt"),
         """(class_definition) @class (object_definition) @class (trait_definition) @class (enum_definition) @class
         (function_definition) @function (function_declaration) @function""", "scala"),
    Lang("c", "tree-sitter-c", "tree_sitter_c", "language", (".c", ".h"),
         """(function_definition) @function (struct_specifier name: (_) body: (_)) @class
         (union_specifier name: (_) body: (_)) @class (enum_specifier name: (_) body: (_)) @class
         (type_definition) @class (preproc_function_def) @function""", "c", closures=False),
    Lang("cpp", "tree-sitter-cpp", "tree_sitter_cpp", "language", (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"),
         """(function_definition) @function (class_specifier name: (_) body: (_)) @class
         (struct_specifier name: (_) body: (_)) @class (union_specifier name: (_) body: (_)) @class
         (enum_specifier name: (_) body: (_)) @class (namespace_definition name: (_)) @namespace
         (preproc_function_def) @function (alias_declaration) @class""", "cpp",
         wrappers=frozenset({"template_declaration"}), closures=False),
    Lang("csharp", "tree-sitter-c-sharp", "tree_sitter_c_sharp", "language", (".cs",),
         """(class_declaration) @class (interface_declaration) @class (struct_declaration) @class
         (enum_declaration) @class (record_declaration) @class (namespace_declaration) @namespace
         (file_scoped_namespace_declaration) @prefix (method_declaration) @function
         (constructor_declaration) @function (property_declaration) @function (operator_declaration) @function""",
         "csharp"),
    Lang("php", "tree-sitter-php", "tree_sitter_php", "language_php", (".php",),
         """(class_declaration) @class (interface_declaration) @class (trait_declaration) @class
         (enum_declaration) @class (namespace_definition body: (_)) @namespace
         (namespace_definition !body) @prefix (function_definition) @function (method_declaration) @function""",
         "php"),
    Lang("ruby", "tree-sitter-ruby", "tree_sitter_ruby", "language", (".rb", ".rake", ".gemspec"),
         "(class) @class (module) @class (singleton_class) @class (method) @function (singleton_method) @function",
         "ruby"),
    Lang("swift", "tree-sitter-swift", "tree_sitter_swift", "language", (".swift",),
         """(class_declaration) @class (protocol_declaration) @class (function_declaration) @function
         (init_declaration) @function (protocol_function_declaration) @function""", "swift"),
    Lang("lua", "tree-sitter-lua", "tree_sitter_lua", "language", (".lua",),
         """(function_declaration) @function
         (assignment_statement (variable_list) (expression_list value: (function_definition))) @function""", "lua"),
    Lang("elixir", "tree-sitter-elixir", "tree_sitter_elixir", "language", (".ex", ".exs"),
         """((call target: (identifier) @_t) @class
             (#any-of? @_t "defmodule" "defprotocol" "defimpl"))
         ((call target: (identifier) @_f) @function
             (#any-of? @_f "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate"))""",
         "elixir", leading=frozenset({"unary_operator"})),
    Lang("haskell", "tree-sitter-haskell", "tree_sitter_haskell", "language", (".hs", ".lhs"),
         """(declarations [(function) (bind)] @function)
         (declarations [(data_type) (newtype) (type_synonym) (class) (instance) (type_family) (data_family)] @class)
         (class_declarations [(signature) (function)] @function) (instance_declarations [(function) (bind)] @function)""",
         "haskell", leading=frozenset({"signature"})),
    Lang("zig", "tree-sitter-zig", "tree_sitter_zig", "language", (".zig",),
         """(function_declaration) @function (test_declaration) @function
         (variable_declaration (identifier)
             [(struct_declaration) (enum_declaration) (union_declaration) (opaque_declaration)]) @class""", "zig"),
    Lang("bash", "tree-sitter-bash", "tree_sitter_bash", "language", (".sh", ".bash", ".bats", ".zsh"),
         "(function_definition) @function", "bash"),
)

_TS = next(lang for lang in LANGS if lang.name == "typescript")
LANGS = tuple(Lang(lang.name, lang.package, lang.module, lang.function, lang.extensions, _TS.defs, lang.lexer,
                   _TS.wrappers, _TS.leading, _TS.closures) if lang.name == "tsx" else lang for lang in LANGS)
BY_NAME = {lang.name: lang for lang in LANGS}
BY_EXTENSION = {ext: lang for lang in LANGS for ext in lang.extensions}
EXTENSIONS = frozenset(BY_EXTENSION)


def language_of(path: str) -> Lang | None:
    """The language a file is read as, by its extension (None: not a code file we read)."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return BY_EXTENSION.get(path[dot:].lower())


# A .h file is C or C++: C++ when it says so (fmtlib's and abseil's headers are C++; read as C they
# parse into error nodes and lose their classes).
_CPP_HEADER = re.compile(r"^\s*(?:namespace\s+\w|template\s*<|class\s+\w+[^;]*$)|\bstd::", re.M)


def refine(lang: Lang, rel: str, text: str) -> Lang:
    """The language a file's text shows when its extension is shared (``.h``: C or C++)."""
    if lang.name == "c" and rel.endswith(".h") and _CPP_HEADER.search(text):
        return BY_NAME["cpp"]
    return lang


_GRAMMARS: dict[str, object] = {}


class GrammarMissing(Exception):
    """The grammar's wheel is not installed (the message names the package)."""


def grammar(lang: Lang):
    """The tree_sitter.Language of ``lang``, loaded once; GrammarMissing names the wheel to install."""
    found = _GRAMMARS.get(lang.name)
    if found is None:
        # The PyPI wheel's entry point first; then `language()`, which nixpkgs' generated bindings
        # (python3Packages.tree-sitter-grammars) expose instead, TSX being a module of its own there.
        tries = [(lang.module, lang.function), (lang.module, "language")] + (
            [("tree_sitter_tsx", "language")] if lang.name == "tsx" else [])
        error: Exception | None = None
        for module_name, function in tries:
            try:
                from tree_sitter import Language

                found = Language(getattr(importlib.import_module(module_name), function)())
                break
            except (ImportError, AttributeError, ValueError, OSError, TypeError) as exc:
                error = error or exc
        if found is None:
            raise GrammarMissing(f"{lang.name} files skipped: the grammar package {lang.package} is not "
                                 f"installed or does not load ({type(error).__name__})")
        _GRAMMARS[lang.name] = found
    return found
