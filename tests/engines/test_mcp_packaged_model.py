"""The model shipped inside the package: found without any setting, checked byte for byte."""

from __future__ import annotations

import shutil

import pytest

from engines.embed import provenance
from engines.embed.base import EmbedderUnavailable
from engines.embed.llama import LlamaEmbedder


def test_the_packaged_model_is_the_default_and_has_the_pinned_sha256(monkeypatch):
    monkeypatch.delenv(provenance.ENV_OVERRIDE, raising=False)
    assert provenance.default_model_path() == provenance.PACKAGED_MODEL
    assert provenance.PACKAGED_MODEL.stat().st_size == provenance.GGUF_SIZE


def test_olai_embed_model_still_overrides_the_packaged_model(monkeypatch, tmp_path):
    monkeypatch.setenv(provenance.ENV_OVERRIDE, str(tmp_path / "other.gguf"))
    assert provenance.default_model_path() == tmp_path / "other.gguf"


def test_a_damaged_packaged_model_is_refused_with_what_enables_the_tier(monkeypatch, tmp_path):
    damaged = tmp_path / provenance.GGUF_FILENAME
    shutil.copyfile(provenance.PACKAGED_MODEL, damaged)
    with open(damaged, "r+b") as fh:  # one flipped byte deep in the weights: it would still load
        fh.seek(provenance.GGUF_SIZE // 2)
        byte = fh.read(1)
        fh.seek(provenance.GGUF_SIZE // 2)
        fh.write(bytes([byte[0] ^ 0xFF]))
    monkeypatch.setattr(provenance, "PACKAGED_MODEL", damaged)
    with pytest.raises(EmbedderUnavailable) as caught:
        LlamaEmbedder(model_path=damaged).info()
    assert "damaged" in str(caught.value) and "reinstall" in caught.value.enable
