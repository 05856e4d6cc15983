"""The code corpus: the code files of a source tree, or of installed modules, read into symbols.

A tree is walked as walk.py says (.gitignore honoured, hidden, vendored, build and dependency
folders left out, directory symlinks not followed). Python is read with ``ast`` (symbols.py; a file
``ast`` refuses, Python 2 say, is read with tree-sitter so its symbols are still found), every
other language of languages.py with tree-sitter (treesitter.py). Installed modules are located with
``importlib.util.find_spec`` on the top-level name only (a dotted name's parent package would be
imported by find_spec; the rest of the path is found on disk), then parsed like any tree: never
imported, never run. Bad files never stop a load: each is named once as a Problem and everything
else is indexed. Nothing is ever written into the tree.
"""

from __future__ import annotations

from engines.errors import BadInput

import io
import os
import stat
import tokenize as pytokenize
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from engines.gcpause import paused_gc
from engines.code.ignore import Rule, ignored, read_rules
from engines.code.languages import BY_NAME, GrammarMissing, language_of, refine
from engines.code.parallel import read_all
from engines.code.symbols import Symbol, parse_symbols
from engines.code.source import CodeSource, _cause, add_problem  # noqa: F401 (CodeSource: re-exported)
from engines.problems import Problem
from engines.code.walk import OUTPUT_FOLDERS, SKIPPED_FOLDERS, VENDORED_FOLDERS, find_code_files, machine_made
# The largest file of the Python 3.11 standard library is pydoc_data/topics.py, 0.76 MB: 2 MB leaves
# 2.6x headroom and still keeps out generated files (the bad-input test's is 20 MB).
MAX_FILE_BYTES = 2 * 1024 * 1024
NO_CODE_FILES = "no code files here (none in any of the 19 languages read: engines/code/languages.py)"
BINARY_SNIFF_BYTES = 8192  # a NUL byte this early means a binary file, as git and grep decide it


@dataclass
class CodeLoad:
    symbols: list[Symbol]
    problems: list[Problem]
    files: int
    documents: list | None = None  # document(symbol) for each symbol, when load_sources was given one


# What a load may compute for each symbol beside its parse, on the worker that read its file
# (parallel.py): the lexical tier's BM25 document, so that counting words is spread over the cores too.
Document = Callable[[Symbol], object]


class CorpusError(BadInput):
    """The corpus itself cannot be read (one-line message naming it and why)."""


def tree_source(root: str | os.PathLike) -> CodeSource:
    path = Path(os.path.abspath(os.fspath(root)))
    shown = os.fspath(root).replace("\n", "\\n")
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            os.scandir(path).close()
        elif language_of(path.name) is None:
            raise CorpusError(f"{shown}: not a folder or a code file (no language read here has its extension)")
    except OSError as exc:
        raise CorpusError(f"{shown}: {_cause(exc)}") from None
    return CodeSource(path, path if path.is_dir() else path.parent, shown)


def module_sources(names: list[str]) -> list[CodeSource]:
    """Installed modules by name, located without importing them. CorpusError names a bad one."""
    import importlib.util

    sources = []
    for name in names:
        top, _, rest = name.partition(".")
        if not top.isidentifier() or (rest and not all(p.isidentifier() for p in rest.split("."))):
            raise CorpusError(f"--modules: {name!r} is not a module name")
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError) as exc:
            raise CorpusError(f"--modules: {name}: {exc}") from None
        if spec is None:
            raise CorpusError(f"--modules: no installed module named {top!r}")
        if spec.submodule_search_locations:
            folder = Path(next(iter(spec.submodule_search_locations)))
        elif spec.origin and spec.origin.endswith(".py"):
            folder = Path(spec.origin)
        else:
            raise CorpusError(f"--modules: {top} has no Python source ({spec.origin or 'built in'})")
        for part in rest.split(".") if rest else []:
            if (folder / part).is_dir():
                folder = folder / part
            elif (folder / f"{part}.py").is_file():
                folder = folder / f"{part}.py"
            else:
                raise CorpusError(f"--modules: no module {name!r} under {folder}")
        # Paths read "httpx/_client.py" and modules "httpx._client": relative to the package's parent.
        anchor = Path(next(iter(spec.submodule_search_locations))).parent if spec.submodule_search_locations \
            else Path(spec.origin).parent
        sources.append(CodeSource(folder, anchor, name))
    return sources


def load_sources(sources: list[CodeSource], document: Document | None = None,
                 progress: Callable[[int, int], None] | None = None) -> CodeLoad:
    """Every symbol of the sources, and ``document(symbol)`` for each when given (a module-level
    function: it may run in a worker process); ``progress(files read, of)`` as the files are read."""
    with paused_gc():  # the collector finds nothing here and cost more than half the time (gcpause.py)
        return _load_sources(sources, document, progress)


def _load_sources(sources: list[CodeSource], document: Document | None = None,
                  progress: Callable[[int, int], None] | None = None) -> CodeLoad:
    symbols: list[Symbol] = []
    documents: list = []
    problems: list[Problem] = []
    files = 0
    missing: set[str] = set()  # grammars named once, not once per file
    read = partial(_load_file_with_documents, document) if document is not None else load_file
    found_paths = []
    for source in sources:
        paths, found = find_code_files(source)
        problems += found
        found_paths.append(paths)
    of = sum(len(paths) for paths in found_paths)
    for source, paths in zip(sources, found_paths):
        told = None if progress is None else (lambda done, _, start=files: progress(start + done, of))
        for file_symbols, problem, *file_documents in read_all(paths, str(source.base), read, _read_sizes(paths),
                                                                told):
            files += 1
            symbols += file_symbols
            if file_documents:
                documents += file_documents[0]
            add_problem(problems, missing, problem)
    if not files and not problems:
        problems.append(Problem(", ".join(s.label for s in sources) or ".", NO_CODE_FILES))
    return CodeLoad(symbols, problems, files, documents if document is not None else None)


def _read_sizes(paths: list[str]) -> list[int]:
    """The bytes of each file a load will parse (a file over the limit is only named: 0)."""
    sizes = []
    for path in paths:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
        sizes.append(size if size <= MAX_FILE_BYTES else 0)
    return sizes


def _load_file_with_documents(document: Document, path: str, base: str) -> tuple[list[Symbol], Problem | None, list]:
    symbols, problem = load_file(path, base)
    return symbols, problem, [document(s) for s in symbols]


def load_file(path: str | os.PathLike, base: str | os.PathLike) -> tuple[list[Symbol], Problem | None]:
    """The symbols of one file, and the problem met reading it (the watcher calls this on change).

    A missing grammar comes back as a Problem whose path is ``*.ext`` (the loader names it once)."""
    path, base = os.path.abspath(os.fspath(path)), os.path.abspath(os.fspath(base))
    rel = os.path.relpath(path, base).replace(os.sep, "/") if path != base else os.path.basename(path)
    lang = language_of(rel) or BY_NAME["python"]
    text, note = _read_source(path, lang.name == "python")
    if text is None:
        return [], Problem(rel, note)
    made = machine_made(text) if lang.name != "python" else None  # Python's path is as it was (tests pin it)
    if made is not None:
        return [], Problem(rel, made)
    if lang.name == "python":
        try:
            return parse_symbols(text, rel, path, module_name(rel)), None
        except SyntaxError as exc:
            where = f" (line {exc.lineno})" if exc.lineno else ""
            note = f"not Python 3 syntax{where}: {exc.msg}; read with tree-sitter"
        except (RecursionError, MemoryError):
            return [], Problem(rel, "nested too deeply to parse")
        except ValueError as exc:
            return [], Problem(rel, f"unparsable: {exc}")
    from engines.code.treesitter import parse_code

    lang = refine(lang, rel, text)
    try:
        return parse_code(text, rel, path, module_name(rel), lang), Problem(rel, note) if note else None
    except GrammarMissing as exc:
        return [], Problem(f"*{os.path.splitext(rel)[1]}", str(exc)) if lang.name != "python" else \
            Problem(rel, note or str(exc))
    except (RecursionError, MemoryError, ValueError) as exc:
        return [], Problem(rel, f"unparsable: {type(exc).__name__}")


def module_name(rel: str) -> str:
    """Dotted, from the relative path: "svc/limits.py" -> "svc.limits", "cmd/root.go" -> "cmd.root"."""
    stem, dot = rel, rel.rfind(".")
    if dot > rel.rfind("/") + 1:
        stem = rel[:dot]
    parts = stem.split("/")
    if parts and parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def find_python_files(source: CodeSource) -> tuple[list[str], list[Problem]]:
    """Every code file under the source (the name is older than the other languages)."""
    return find_code_files(source)


def _read_source(path: str, python: bool = True) -> tuple[str | None, str | None]:
    """(the file's text, a note), or (None, why not). Outside Python a file that is not UTF-8 is
    read with replacement characters, so its symbols are still found, and the note says so."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file: not opened"
        if st.st_size > MAX_FILE_BYTES:
            return None, f"too large ({st.st_size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES // 2**20} MB): skipped"
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, _cause(exc)
    if len(data) > MAX_FILE_BYTES:
        return None, f"too large (over {MAX_FILE_BYTES // 2**20} MB): skipped"
    nul = data.find(b"\0", 0, BINARY_SNIFF_BYTES)
    if nul >= 0:
        return None, f"binary (NUL byte at offset {nul}): skipped"
    if not python:
        try:
            return data.decode("utf-8").lstrip("\ufeff"), None
        except UnicodeDecodeError as exc:
            return data.decode("utf-8", "replace").lstrip("\ufeff"), (
                f"not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}): read with replacement characters")
    try:
        # PEP 263: a coding cookie (latin-1, cp1252 ...) is honoured; UTF-8 otherwise, BOM stripped
        encoding, _ = pytokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # no usable cookie and the first lines are not UTF-8: say where UTF-8 fails
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return None, f"not {encoding.upper() if encoding == 'utf-8' else encoding} (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}): skipped"
    except LookupError:
        return None, f"unknown source encoding {encoding!r}: skipped"
    return text.lstrip("\ufeff"), None


def source_of(sources: list[CodeSource], path: str) -> CodeSource | None:
    """The source whose walk would index ``path`` (a code file under it, not hidden, skipped or ignored)."""
    path = os.path.abspath(path)
    for source in sources:
        root = str(source.root)
        if source.root.is_file():
            if path == root:
                return source
            continue
        if not path.startswith(root.rstrip(os.sep) + os.sep) or language_of(path) is None:
            continue
        parts = os.path.relpath(path, root).split(os.sep)
        if any(p.startswith(".") for p in parts) or any(
                p in VENDORED_FOLDERS or (p in SKIPPED_FOLDERS and not (
                    p in OUTPUT_FOLDERS and os.path.exists(os.path.join(root, *parts[:i + 1], "__init__.py"))))
                for i, p in enumerate(parts[:-1])):
            continue
        rules: list[Rule] = []
        folder, local = root, ""
        hidden = False
        for i, part in enumerate(parts):
            rules = rules + read_rules(folder, local)
            local = f"{local}/{part}" if local else part
            if ignored(rules, local, i < len(parts) - 1):
                hidden = True
                break
            folder = os.path.join(folder, part)
        if not hidden:
            return source
    return None
