"""The code corpus: the Python files of a source tree, or of installed modules, read into symbols.

A tree is walked without what its .gitignore files ignore, and without .git (every hidden folder),
virtualenvs, ``__pycache__`` and ``node_modules``. Installed modules are located with
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
from pathlib import Path

from engines.code.gcpause import paused_gc
from engines.code.ignore import Rule, ignored, read_rules
from engines.code.symbols import Symbol, parse_symbols

SKIPPED_FOLDERS = {"__pycache__", "node_modules", "site-packages"}
# The largest file of the Python 3.11 standard library is pydoc_data/topics.py, 0.76 MB: 2 MB leaves
# 2.6x headroom and still keeps out generated files (the bad-input test's is 20 MB).
MAX_FILE_BYTES = 2 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192  # a NUL byte this early means a binary file, as git and grep decide it


@dataclass
class Problem:
    path: str  # as named to the user: relative to the corpus root
    cause: str

    def __str__(self) -> str:
        return f"{self.path}: {self.cause}"


@dataclass
class CodeSource:
    """One place symbols come from: a folder (or file) and the name its relative paths start from."""

    root: Path  # the folder walked (or one .py file)
    base: Path  # relative paths and module names are taken from here
    label: str  # how it is named to the user


@dataclass
class CodeLoad:
    symbols: list[Symbol]
    problems: list[Problem]
    files: int


class CorpusError(BadInput):
    """The corpus itself cannot be read (one-line message naming it and why)."""


def tree_source(root: str | os.PathLike) -> CodeSource:
    path = Path(os.path.abspath(os.fspath(root)))
    shown = os.fspath(root).replace("\n", "\\n")
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            os.scandir(path).close()
        elif not path.name.endswith(".py"):
            raise CorpusError(f"{shown}: not a folder or a .py file")
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


def load_sources(sources: list[CodeSource]) -> CodeLoad:
    with paused_gc():  # the collector finds nothing here and cost more than half the time (gcpause.py)
        return _load_sources(sources)


def _load_sources(sources: list[CodeSource]) -> CodeLoad:
    symbols: list[Symbol] = []
    problems: list[Problem] = []
    files = 0
    for source in sources:
        paths, found = find_python_files(source)
        problems += found
        for path in paths:
            file_symbols, problem = load_file(path, source.base)
            files += 1
            symbols += file_symbols
            if problem is not None:
                problems.append(problem)
    return CodeLoad(symbols, problems, files)


def load_file(path: str | os.PathLike, base: str | os.PathLike) -> tuple[list[Symbol], Problem | None]:
    """The symbols of one file, or the problem that keeps it out (the watcher calls this on change)."""
    path, base = os.path.abspath(os.fspath(path)), os.path.abspath(os.fspath(base))
    rel = os.path.relpath(path, base).replace(os.sep, "/") if path != base else os.path.basename(path)
    text = _read_source(path)
    if isinstance(text, str):
        try:
            return parse_symbols(text, rel, path, module_name(rel)), None
        except SyntaxError as exc:
            where = f" (line {exc.lineno})" if exc.lineno else ""
            return [], Problem(rel, f"not Python 3 syntax{where}: {exc.msg}")
        except (RecursionError, MemoryError):
            return [], Problem(rel, "nested too deeply to parse")
        except ValueError as exc:
            return [], Problem(rel, f"unparsable: {exc}")
    return [], Problem(rel, text[1])


def module_name(rel: str) -> str:
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts and parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def find_python_files(source: CodeSource) -> tuple[list[str], list[Problem]]:
    """Every .py file under the source, sorted; symlinked folders followed once (no cycles)."""
    root = source.root
    if root.is_file():
        return [str(root)], []
    found: dict[tuple[int, int], str] = {}
    problems: list[Problem] = []
    seen: set[str] = set()
    rules: list[Rule] = []

    def rel(path: str) -> str:
        return os.path.relpath(path, source.base).replace(os.sep, "/")

    pending = [str(root)]
    while pending:
        folder = pending.pop()
        real = os.path.realpath(folder)
        if real in seen:
            problems.append(Problem(rel(folder), "symlink to a folder already walked (a cycle?): not followed"))
            continue
        seen.add(real)
        local = os.path.relpath(folder, root).replace(os.sep, "/")
        local = "" if local == "." else local
        rules = rules + read_rules(folder, local)
        if os.path.exists(os.path.join(folder, "pyvenv.cfg")):
            continue  # a virtualenv
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name, reverse=True)
        except OSError as exc:
            problems.append(Problem(rel(folder) + "/", f"folder {_cause(exc)}"))
            continue
        for entry in entries:
            name = entry.name
            entry_local = f"{local}/{name}" if local else name
            try:
                is_dir = entry.is_dir()  # follows a symlink; a dangling one is neither
                if is_dir:
                    if name.startswith(".") or name in SKIPPED_FOLDERS or ignored(rules, entry_local, True):
                        continue
                    pending.append(entry.path)
                elif name.endswith(".py") and not name.startswith("."):
                    if ignored(rules, entry_local, False):
                        continue
                    if entry.is_symlink() and not os.path.exists(entry.path):
                        problems.append(Problem(rel(entry.path), "broken symlink (no target)"))
                        continue
                    st = entry.stat()
                    found.setdefault((st.st_dev, st.st_ino), entry.path)
            except OSError as exc:
                problems.append(Problem(rel(entry.path), _cause(exc)))
    return sorted(found.values(), key=rel), problems


def _read_source(path: str) -> str | tuple[None, str]:
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
    return text.lstrip("\ufeff")


def _cause(error: OSError) -> str:
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, FileNotFoundError):
        return "no such file or directory"
    if error.errno == 40:  # ELOOP
        return "symlink loop"
    return (error.strerror or str(error)).lower()


def source_of(sources: list[CodeSource], path: str) -> CodeSource | None:
    """The source whose walk would index ``path`` (a .py file under it, not hidden, skipped or ignored)."""
    path = os.path.abspath(path)
    for source in sources:
        root = str(source.root)
        if source.root.suffix == ".py":
            if path == root:
                return source
            continue
        if not path.startswith(root.rstrip(os.sep) + os.sep) or not path.endswith(".py"):
            continue
        parts = os.path.relpath(path, root).split(os.sep)
        if any(p.startswith(".") or p in SKIPPED_FOLDERS for p in parts):
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
