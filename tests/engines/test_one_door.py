"""One door (issue 23): olai_tui uses an engine only through the contract. Walked over the source
with ``ast`` in a subprocess, imports inside functions included, olai_tui may import from engines/
only the contract, the registry, the envelope, errors, settings, knobs (a corpus's settings), locations,
tiers, terminal_text (the one mapping of a corpus's control characters, shared by the workbench and
the command line) and the
evaluation's public API: any module of ``engines.eval`` and, from it, names without a leading ``_``.
No ``getattr`` with a private name either (how the products adapter used to read a vector cache).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

ALLOWED = ("engines", "engines.contract", "engines.registry", "engines.answer", "engines.errors",
           "engines.settings", "engines.locations", "engines.tiers", "engines.terminal_text",
           "engines.knobs")

WALK = textwrap.dedent('''
    import ast, json, sys
    from pathlib import Path

    allowed = set(sys.argv[2].split(","))
    out = []
    for path in sorted(Path(sys.argv[1]).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = lambda node: f"{path.relative_to(Path(sys.argv[1]).parent)}:{node.lineno}"
        for node in ast.walk(tree):  # every node: imports inside functions too
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.name
                    if name.split(".")[0] == "engines" and name not in allowed and not name.startswith("engines.eval"):
                        out.append(f"{where(node)} import {name}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "engines":
                module = node.module
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    if module.startswith("engines.eval") or full.startswith("engines.eval"):
                        if alias.name.startswith("_"):
                            out.append(f"{where(node)} from {module} import {alias.name} (private)")
                    elif module not in allowed and full not in allowed:
                        out.append(f"{where(node)} from {module} import {alias.name}")
                    elif module == "engines" and full not in allowed:
                        out.append(f"{where(node)} from engines import {alias.name}")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) > 1:
                name = node.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.startswith("_") \\
                        and not name.value.startswith("__"):
                    out.append(f"{where(node)} getattr(..., {name.value!r})")
    print(json.dumps(out))
''')


def side_doors(package: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", WALK, str(package), ",".join(ALLOWED)], capture_output=True,
                          text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def test_olai_tui_uses_engines_only_through_the_contract_registry_and_evaluation():
    assert side_doors(REPO / "olai_tui") == []


def test_the_walk_finds_a_side_door_even_inside_a_function(tmp_path):
    package = tmp_path / "face"
    package.mkdir()
    (package / "ok.py").write_text("from engines.contract import Engine\nfrom engines import registry\n"
                                   "from engines.eval.suite import open_suite\n")
    (package / "lazy.py").write_text("def f(engine):\n    from engines.notes.engine import NotesEngine\n"
                                     "    import engines.products.recall\n"
                                     "    from engines.eval.cosqa.load import _signature\n"
                                     "    return getattr(engine, '_vectors')\n")
    found = side_doors(package)
    assert found == ["face/lazy.py:2 from engines.notes.engine import NotesEngine",
                     "face/lazy.py:3 import engines.products.recall",
                     "face/lazy.py:4 from engines.eval.cosqa.load import _signature (private)",
                     "face/lazy.py:5 getattr(..., '_vectors')"]


EVAL_WALK = textwrap.dedent('''
    import ast, json, sys
    from pathlib import Path

    root = Path(sys.argv[1])
    out = []
    for path in sorted(root.rglob("*.py")):
        where = lambda node: f"{path.relative_to(root.parent)}:{node.lineno}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engines.") \\
                    and not node.module.startswith("engines.eval"):
                out += [f"{where(node)} from {node.module} import {a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \\
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                out.append(f"{where(node)} {ast.unparse(node)}")
    print(json.dumps(out))
''')


def private_reaches(package: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", EVAL_WALK, str(package)], capture_output=True, text=True,
                          check=True, timeout=60)
    return json.loads(done.stdout)


# Measurements that look inside an engine on purpose, each named with why; every other part of the
# evaluation (its datasets, benches and tuning) reads the engines through their public interface.
INSIDE_ON_PURPOSE = {
    "eval/bench/code/profile_index.py engine._writer": "profiles edits: they must not be written back",
    "eval/bench/code/profile_index.py engine._index": "profiles edits: picks a real file record to edit",
    "eval/bench/notes/checkouts/exact_answers.py engine._exact": "compares two checkouts' exact matchers",
    "eval/bench/notes/checkouts/vectors_memory.py index.embedder._matrix": "frees the grown source to measure",
}


def test_the_evaluation_uses_no_private_name_of_an_engine():
    # engines/eval is a consumer of the engines' public interface, as the app is
    reached = {re.sub(r":\d+ ", " ", r, count=1) for r in private_reaches(REPO / "engines" / "eval")}  # no line
    assert sorted(reached - set(INSIDE_ON_PURPOSE)) == []
    assert sorted(set(INSIDE_ON_PURPOSE) - reached) == [], "no longer reached: drop it from INSIDE_ON_PURPOSE"


def test_the_evaluation_walk_finds_a_private_reach(tmp_path):
    package = tmp_path / "eval"
    package.mkdir()
    (package / "a.py").write_text("from engines.code.symbols import _unparse, Symbol\n"
                                  "def f(engine, self):\n    self._mine\n    return engine._lexical\n")
    assert private_reaches(package) == ["eval/a.py:1 from engines.code.symbols import _unparse",
                                        "eval/a.py:4 engine._lexical"]


# The command line and the evaluation's printer choose by what a spec or a dataset declares, never by
# name (issue 23: `index products --backend milvus`, `cli._bench`, the semble branch of evaluate.py).
FACES = ("olai_tui/cli.py", "olai_tui/commands.py", "olai_tui/evaluate.py")


def names_in(path: Path, names: set[str]) -> list[str]:
    """Each string constant of ``path`` that is one of ``names``, with its line."""
    import ast

    return [f"{path.name}:{node.lineno} {node.value!r}" for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]


def test_the_command_line_names_no_engine_dataset_or_configuration():
    from engines import registry
    from engines.eval.catalogue import datasets

    names = set(registry.names()) | {d.name for d in datasets()} | {c for d in datasets() for c in d.configs()}
    assert {"products", "semble", "smart_milvus"} <= names
    assert [hit for face in FACES for hit in names_in(REPO / face, names)] == []


def test_the_name_finder_finds_a_name(tmp_path):
    (tmp_path / "cli.py").write_text('def bench(engine):\n    if engine == "products":\n        return 1\n')
    assert names_in(tmp_path / "cli.py", {"products", "notes"}) == ["cli.py:2 'products'"]
