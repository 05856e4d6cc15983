"""No module of the product over 400 lines: past that a module holds more than one reason to change, and a
reader cannot keep it in view. Counted over engines/, olai_tui/, tools/ and training/ (tests are not counted: a test
file is read one test at a time). An exception is named here with why it is one."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIMIT = 400
EXCEPTIONS: dict[str, str] = {}  # "path": "why it stays whole"; none today


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_400_lines():
    over = {str(p.relative_to(REPO)): lines_of(p) for top in ("engines", "olai_tui", "tools", "training")
            for p in sorted((REPO / top).rglob("*.py")) if lines_of(p) > LIMIT}
    assert {p: n for p, n in over.items() if p not in EXCEPTIONS} == {}


def test_every_exception_is_still_needed():
    for path in EXCEPTIONS:
        assert lines_of(REPO / path) > LIMIT, f"{path} is back under {LIMIT} lines: drop its exception"


def test_the_count_is_lines_as_an_editor_shows_them(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("a = 1\n" * 401, encoding="utf-8")
    assert lines_of(module) == 401 > LIMIT


def test_the_readme_is_at_most_400_lines():
    # the README holds one figure a cell; the history its tables once held is in docs/readme-history.md
    assert lines_of(REPO / "README.md") <= LIMIT
