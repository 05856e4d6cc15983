"""The static embedder: its distiller's encoder is MiniLM's, its table is the pinned one, its vectors mean something.

The distiller runs MiniLM in numpy (engines/embed/distill.py), so its forward pass is held to the fp32
reference vectors transformers wrote (tests/data/minilm_reference.json, the same file test_model.py
holds the GGUF to); nothing of that raises when it is wrong.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from engines.embed import distill, static
from engines.embed.base import EmbedderUnavailable
from engines.embed.convert import find_source

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests/data/minilm_reference.json").read_text(encoding="utf-8"))
PACKAGED = Path(distill.__file__).resolve().parent / "model" / distill.STATIC_FILENAME


@pytest.fixture(scope="module")
def source() -> Path:
    return find_source(None)


@pytest.fixture(scope="module")
def embedder() -> static.StaticEmbedder:
    return static.StaticEmbedder()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_numpy_encoder_gives_the_reference_vectors(source):
    encoder = distill.Encoder(source)
    for sentence in REFERENCE["sentences"]:
        pooled = encoder.pooled(np.array([sentence["token_ids"]]))[0]
        reference = np.array(sentence["embedding"])
        cosine = pooled @ reference / np.linalg.norm(pooled) / np.linalg.norm(reference)
        assert cosine > 0.99999, (sentence["text"], cosine)  # float64 against fp32 rounded to 6 decimals


def test_the_shipped_table_is_the_pinned_one_and_make_distilled_the_same():
    assert _sha256(PACKAGED) == distill.STATIC_SHA256
    written = [p for p in static.static_locations()[1:] if p.is_file()]
    assert written, "make bootstrap distils the table under the prefix (Makefile: STATIC_MODEL)"
    assert _sha256(written[0]) == distill.STATIC_SHA256


def test_distilling_is_the_same_on_every_run_whatever_sign_the_eigensolver_picks(source, monkeypatch):
    vectors = distill.token_vectors(source, tokens=600)
    first = distill.table_from(vectors, dims=32).astype(np.float16)
    assert np.array_equal(first, distill.table_from(vectors.copy(), dims=32).astype(np.float16))
    eigh = np.linalg.eigh

    def flipping(matrix):
        values, components = eigh(matrix)
        return values, components * np.where(np.arange(components.shape[1]) % 2 == 0, -1.0, 1.0)

    monkeypatch.setattr(distill.np.linalg, "eigh", flipping)
    assert np.array_equal(first, distill.table_from(vectors, dims=32).astype(np.float16))


def test_a_paraphrase_is_nearer_than_unrelated_texts(embedder):
    query = embedder.embed(["protecting young plants from snails"], "query")[0]
    docs = embedder.embed(["the slugs got the seedlings last year", "tax return deadline in april",
                           "how to bake sourdough bread", "wiring a plug socket"], "document")
    scores = docs @ query
    assert scores[0] > max(scores[1:]) + 0.1, scores


def test_vectors_are_unit_length_and_an_empty_text_is_a_zero_vector(embedder):
    vectors = embedder.embed(["garden", "", "  ", "A longer text about the garden and its slugs. " * 200], "document")
    assert vectors.shape == (4, embedder.info().dims) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[[0, 3]], axis=1), 1.0, atol=1e-5)
    assert not vectors[1].any() and not vectors[2].any()
    assert embedder.embed([], "query").shape == (0, embedder.info().dims)


def test_texts_are_cut_into_minilms_own_pieces(embedder):
    for sentence in REFERENCE["sentences"]:
        assert embedder.token_ids([sentence["text"]])[0] == sentence["token_ids"][1:-1], sentence["text"]


def test_a_batch_gives_each_text_the_vector_it_gets_alone(embedder):
    texts = ["slugs in the garden", "x", "a note " * 3000, "seedlings and snails", "tax"]  # one longer than a gather
    together = embedder.embed(texts, "document")
    alone = np.vstack([embedder.embed([t], "document") for t in texts])
    assert np.allclose(together, alone, atol=1e-6)


ODD_TEXTS = ["slugs in the garden", "", "   \n\t", "[CLS] the [SEP] pieces [MASK] [UNK] [PAD] stay words",
             "naïve café 東京 🐌 \ud800 ﬁnal", "x", "a note " * 1500, "seedlings and snails " * 400, "tax"]


def test_its_token_arrays_are_its_token_ids(embedder):
    expected = embedder.token_ids(ODD_TEXTS)
    for room in (None, 1, 40):  # the buffer as made, and one too small from the first text or mid-batch
        flat, lengths = static._cut(embedder._vocabulary().vocab, ODD_TEXTS, room)
        assert lengths.tolist() == [len(ids) for ids in expected]
        assert flat.dtype == np.int64 and flat.tolist() == [i for ids in expected for i in ids]
    assert max(lengths) == static.MAX_TOKENS  # the long ones cut


def test_its_vectors_are_the_ones_its_token_ids_give(embedder):
    class ByLists(static.StaticEmbedder):  # the token_ids path, as a table that cuts its own way takes it
        def token_ids(self, texts):
            return super().token_ids(texts)

    texts = ODD_TEXTS * 40  # over SPLIT_TEXTS: split over the cores
    vectors = embedder.embed(texts, "document")
    assert np.array_equal(vectors, ByLists().embed(texts, "document"))
    table = embedder._loaded()  # each text's pieces' rows summed down the rows, as the sums were first made
    summed = np.array([np.add.reduceat(table[ids], [0], axis=0)[0] if ids else np.zeros(table.shape[1], np.float32)
                       for ids in embedder.token_ids(ODD_TEXTS)])
    norms = np.linalg.norm(summed, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    assert np.array_equal(vectors[:len(ODD_TEXTS)], summed / norms)


def test_its_model_id_is_its_own(embedder):
    from engines.embed.llama import LlamaEmbedder

    info = embedder.info()
    assert info.model_id.startswith("minilm-static-") and info.model_id != LlamaEmbedder().info().model_id
    assert info.dims == distill.DIMS and 0 < info.floor < 1


def test_a_missing_table_is_unavailable_with_what_enables_it(tmp_path):
    with pytest.raises(EmbedderUnavailable) as caught:
        static.StaticEmbedder(table_path=tmp_path / distill.STATIC_FILENAME).info()
    assert "no static table" in caught.value.reason and "make" in caught.value.enable


def test_a_damaged_table_is_refused(tmp_path):
    damaged = tmp_path / distill.STATIC_FILENAME
    shutil.copyfile(PACKAGED, damaged)
    with open(damaged, "r+b") as fh:
        fh.seek(5000)
        byte = fh.read(1)
        fh.seek(5000)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(EmbedderUnavailable) as caught:
        static.StaticEmbedder(table_path=damaged).embed(["garden"], "query")
    assert "damaged" in caught.value.reason
