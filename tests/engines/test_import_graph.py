"""The layering, pinned: engines/ is UI-free and knows nothing of olai_tui; engines/ and olai_tui/
import each other's modules without a cycle, counting the imports made inside functions (lazy ones) and
those made only for the type checker: a module that names another's types depends on it as much.
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


def imports_of(name: str, path: Path, known: set[str], type_checking: bool = False) -> set[str]:
    """Every project module ``name`` imports, at the top or inside a function (and under ``if
    TYPE_CHECKING:`` with ``type_checking``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree) if type_checking else _runtime_nodes(tree):
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


def test_tuning_is_never_imported_by_a_bench_an_evaluation_or_an_engine():
    # engines/eval/tuning/ chose constants on dev data; a bench that imported it could measure with a
    # tuning run's settings instead of the shipped ones
    files = module_files()
    known = set(files)
    offenders = {name: sorted(t for t in imports_of(name, path, known, type_checking=True)
                              if t.startswith("engines.eval.tuning"))
                 for name, path in files.items() if not name.startswith("engines.eval.tuning")}
    assert {n: t for n, t in offenders.items() if t} == {}


def cycles_of(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle a depth-first walk meets, as the modules around it."""
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
    return cycles


def import_graph(type_checking: bool) -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    return {name: imports_of(name, path, known, type_checking) - {p for p in known if name.startswith(p + ".")}
            for name, path in files.items()}  # a module importing its own package's __init__ is no cycle


def test_the_import_graph_has_no_cycle_lazy_imports_included():
    cycles = cycles_of(import_graph(type_checking=False))
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def test_no_two_modules_import_each_other_not_even_for_the_type_checker():
    cycles = cycles_of(import_graph(type_checking=True))
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    # The finder itself can fail: a two-module loop written here is found.
    (tmp_path / "a.py").write_text("def f():\n    from engines.b import g\n")
    (tmp_path / "b.py").write_text("from engines.a import f\n")
    known = {"engines.a", "engines.b"}
    assert imports_of("engines.a", tmp_path / "a.py", known) == {"engines.b"}
    assert imports_of("engines.b", tmp_path / "b.py", known) == {"engines.a"}
    assert cycles_of({"engines.a": {"engines.b"}, "engines.b": {"engines.a"}}) == [
        ["engines.a", "engines.b", "engines.a"]]


def test_an_import_made_only_for_the_type_checker_counts_when_asked(tmp_path):
    (tmp_path / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engines.b import g\n")
    known = {"engines.a", "engines.b"}
    assert imports_of("engines.a", tmp_path / "a.py", known) == set()
    assert imports_of("engines.a", tmp_path / "a.py", known, type_checking=True) == {"engines.b"}
