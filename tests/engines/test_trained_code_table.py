"""The trained code table that ships: the pinned bytes, and a manifest that says where it came from."""

from __future__ import annotations

import json

from engines.embed import trained_code_table
from engines.embed.llama import sha256_file


def test_the_shipped_table_is_the_pinned_one():
    path = trained_code_table.shipped_path()
    assert path.is_file(), path
    assert sha256_file(path) == trained_code_table.SHA256
    embedder = trained_code_table.trained_code_table()
    assert embedder.info().floor == trained_code_table.FLOOR
    assert embedder.info().model_id == f"code-table-{trained_code_table.SHA256[:16]}"


def test_its_manifest_gives_its_provenance():
    path = trained_code_table.shipped_path()
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["sha256"] == trained_code_table.SHA256
    assert manifest["corpus"] and all(r["commit"] and r["license_spdx"] and r["url"] for r in manifest["corpus"])
    assert manifest["pairs"]["train"] > 10_000 and manifest["validation"]["held_out_repositories"]
    # the benchmark's repositories are none of the training corpus's
    from engines.locations import shared_data

    bench = json.loads((shared_data() / "code" / "semble" / "repos.json").read_text(encoding="utf-8"))
    assert not {r["name"] for r in bench} & {r["name"] for r in manifest["corpus"]}
