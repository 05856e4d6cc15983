"""The trained prose table that ships for notes: the pinned bytes, a manifest that says where it came from,
and the notes pane's static embedder is it (the distilled table where it is missing or damaged)."""

from __future__ import annotations

import json
import shutil

from engines.embed import reproduced, trained_prose_table
from engines.embed.llama import sha256_file
from engines.embed.static import StaticEmbedder


def test_the_shipped_table_is_the_pinned_one_and_the_notes_static_embedder():
    path = trained_prose_table.shipped_path()
    assert path.is_file(), path
    assert sha256_file(path) == trained_prose_table.SHA256
    embedder = trained_prose_table.notes_static()
    assert isinstance(embedder, trained_prose_table.ProseTableEmbedder)
    assert embedder.info().floor == trained_prose_table.FLOOR
    assert embedder.info().model_id == f"prose-table-{trained_prose_table.SHA256[:16]}"
    # the distilled table's tokenizer: a text is cut the same way, only the rows differ
    assert embedder.token_ids(["protecting young plants"]) == StaticEmbedder().token_ids(["protecting young plants"])


def test_its_manifest_gives_its_provenance_and_how_reproducible_it_is():
    path = trained_prose_table.shipped_path()
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["sha256"] == trained_prose_table.SHA256 and manifest["for"] == "notes"
    assert {s["name"] for s in manifest["corpus"]} == {"peps", "rust-rfcs", "go-proposals"}
    assert all(s["commit"] and s["license_spdx"] and s["url"] for s in manifest["corpus"])
    assert manifest["pairs"]["train"] > 10_000 and manifest["validation"]["held_out_documents"]
    assert "training.prose_table" in manifest["trained_by"]["command"]
    said = manifest["reproducible"]
    assert "engines.embed.reproduced" in said["check"]
    assert (said["validation_within"], said["row_cosine_at_least"]) == (reproduced.VALIDATION_WITHIN,
                                                                         reproduced.ROW_COSINE_AT_LEAST)
    # the check holds a rebuilt prose table to the prose table, not the code table
    assert reproduced.shipped_for(manifest) == path


def test_a_damaged_table_leaves_the_notes_pane_the_distilled_one(tmp_path, monkeypatch):
    damaged = tmp_path / trained_prose_table.FILENAME
    shutil.copyfile(trained_prose_table.shipped_path(), damaged)
    with damaged.open("r+b") as fh:
        fh.seek(-4, 2)
        fh.write(b"\x00\x00\x00\x00")
    monkeypatch.setattr(trained_prose_table, "locations", lambda: [damaged])
    embedder = trained_prose_table.notes_static()
    assert type(embedder) is StaticEmbedder
