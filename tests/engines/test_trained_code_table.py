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


def test_reproducible_means_the_stated_tolerance_and_the_check_holds_it():
    # issue 60: a fresh machine's rebuild was not the same bytes; the tolerance it met is what is promised
    import numpy as np

    from engines.embed import reproduced

    path = trained_code_table.shipped_path()
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    said = manifest["reproducible"]
    assert said["bytes"] is False and "engines.embed.reproduced" in said["check"]
    assert (said["validation_within"], said["row_cosine_at_least"]) == (reproduced.VALIDATION_WITHIN,
                                                                         reproduced.ROW_COSINE_AT_LEAST)
    shipped = np.load(path)[:4000].astype(np.float32)  # a slice keeps the test cheap; the check reads any shape
    assert reproduced.differences(shipped, manifest, shipped, manifest) == []
    rng = np.random.default_rng(0)
    # a rebuild as the fresh machine's: every row a little off, validation 0.0001 apart
    scale = 0.004 * np.linalg.norm(shipped, axis=1, keepdims=True) / np.sqrt(shipped.shape[1])
    near = shipped + rng.normal(0, 1, shipped.shape).astype(np.float32) * scale
    moved = json.loads(json.dumps(manifest))
    moved["validation"]["soup"] += 0.0001
    assert reproduced.row_cosines(near, shipped).min() > 0.9998
    assert reproduced.differences(near, moved, shipped, manifest) == []
    # one row turned away, one figure 0.0005 apart: each named
    far = near.copy()
    far[1234] = -far[1234]
    moved["validation"]["soup"] += 0.0004
    found = reproduced.differences(far, moved, shipped, manifest)
    assert len(found) == 2 and "soup" in found[0] and "row 1234" in found[1], found
