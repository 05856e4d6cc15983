"""The layering, pinned: engines/ is UI-free and knows nothing of olai_tui; engines/ and olai_tui/
import each other's modules without a cycle, counting the imports made inside functions (lazy ones).
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import engines
import olai_tui

REPO = Path(__file__).resolve().parents[2]


def test_importing_every_engine_module_loads_neither_textual_rich_nor_olai_tui():
    names = [m.name for m in pkgutil.walk_packages(engines.__path__, prefix="engines.")]
    assert "engines.notes.engine" in names and "engines.registry" in names
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'olai_tui'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engines import: {out.stdout.strip()}"


def module_files() -> dict[str, Path]:
    files = {}
    for package in (engines, olai_tui):
        root = Path(package.__path__[0])
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(parts)] = path
    return files


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Every project module ``name`` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:  # `from a.b import f`: the module a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _runtime_nodes(tree: ast.AST):
    """Every node but those under ``if TYPE_CHECKING:`` (never imported when the program runs)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def test_no_engine_module_imports_olai_tui():
    files = module_files()
    known = set(files)
    offenders = {name: sorted(t for t in imports_of(name, path, known) if t.startswith("olai_tui"))
                 for name, path in files.items() if name.startswith("engines")}
    assert {n: t for n, t in offenders.items() if t} == {}


def test_evaluation_is_a_consumer_no_engine_module_imports_it():
    files = module_files()
    known = set(files)
    offenders = {name: sorted(t for t in imports_of(name, path, known) if t.startswith("engines.eval"))
                 for name, path in files.items()
                 if name.startswith("engines") and not name.startswith("engines.eval")}
    assert {n: t for n, t in offenders.items() if t} == {}


def test_the_import_graph_has_no_cycle_lazy_imports_included():
    files = module_files()
    known = set(files)
    graph = {name: imports_of(name, path, known) - {p for p in known if name.startswith(p + ".")}
             for name, path in files.items()}  # a module importing its own package's __init__ is no cycle
    cycles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    # The finder itself can fail: a two-module loop written here is found.
    (tmp_path / "a.py").write_text("def f():\n    from engines.b import g\n")
    (tmp_path / "b.py").write_text("from engines.a import f\n")
    known = {"engines.a", "engines.b"}
    assert imports_of("engines.a", tmp_path / "a.py", known) == {"engines.b"}
    assert imports_of("engines.b", tmp_path / "b.py", known) == {"engines.a"}
