"""The all-MiniLM-L6-v2 q8_0 GGUF: written right, tokenized right, embedding right.

None of the ways this model goes wrong raises (shared/design/MODEL.md): a vocabulary without the
phantom-space prefix turns words into [UNK], a missing lower-case flag breaks capitalised words, and
the model still loads and returns vectors. So the GGUF the Makefile built is checked against
tests/data/minilm_reference.json, which tools/make_reference_vectors.py wrote once from the HF
tokenizer and transformers' fp32 BertModel (the command is in the file's "made_by").
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engines.embed import convert, provenance

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests/data/minilm_reference.json").read_text(encoding="utf-8"))
SENTENCES = REFERENCE["sentences"]
MIN_COSINE = 0.999  # q8_0 against fp32: MODEL.md measured 0.9994-0.9997; a broken vocabulary gives ~0


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run_convert(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "engines.embed.convert", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def model_path() -> Path:
    path = provenance.default_model_path()
    if not path.is_file():
        pytest.fail(f"no model at {path}: `make test` writes it; by hand: "
                    f"python -m engines.embed.convert --out {path} --verify")
    return path


@pytest.fixture(scope="module")
def llama_cpp():
    try:
        import llama_cpp
    except Exception as exc:  # the embedding tier cannot run at all: say so loudly, never skip
        pytest.fail(f"llama_cpp cannot be imported ({type(exc).__name__}: {exc}); "
                    "llama-cpp-python==0.3.36 is a dependency: reinstall with `make test`")
    return llama_cpp


@pytest.fixture(scope="module")
def vocab(llama_cpp, model_path):
    return llama_cpp.Llama(str(model_path), vocab_only=True, verbose=False)


@pytest.fixture(scope="module")
def embedder(llama_cpp, model_path):
    return llama_cpp.Llama(str(model_path), embedding=True, n_ctx=512, n_threads=2, verbose=False)


# (1) deterministic, byte-identical to the pinned llama.cpp output -----------------------------------

def test_converting_twice_gives_the_pinned_sha256(tmp_path, model_path):
    first = _run_convert("--out", str(tmp_path / "a" / provenance.GGUF_FILENAME), "--verify")
    assert first.returncode == 0, first.stderr
    assert "sha256 " + provenance.GGUF_SHA256 in first.stdout
    second = tmp_path / "b.gguf"
    folder = convert.find_source(None)
    assert convert.convert(folder, second) == provenance.GGUF_SHA256
    for path in (tmp_path / "a" / provenance.GGUF_FILENAME, second, model_path):
        assert path.stat().st_size == provenance.GGUF_SIZE, path
        assert _sha256(path) == provenance.GGUF_SHA256, path
    # written atomically: no temp file left beside the output
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [provenance.GGUF_FILENAME, "b.gguf"]


def test_the_source_is_the_pinned_package():
    st = convert.find_source(None) / "model.safetensors"
    assert st.stat().st_size == provenance.SOURCE_SAFETENSORS_SIZE
    assert _sha256(st) == provenance.SOURCE_SAFETENSORS_SHA256


# (2) tokenization -----------------------------------------------------------------------------------

@pytest.mark.parametrize("row", SENTENCES, ids=[r["text"][:30] for r in SENTENCES])
def test_llama_cpp_tokenizes_like_the_hf_tokenizer(vocab, row):
    ids = vocab.tokenize(row["text"].encode("utf-8"), add_bos=True, special=False)
    assert ids == row["token_ids"], (row["tokens"], [vocab.detokenize([i]).decode("utf-8", "replace") for i in ids])


# (3) embeddings -------------------------------------------------------------------------------------

@pytest.mark.parametrize("row", SENTENCES, ids=[r["text"][:30] for r in SENTENCES])
def test_llama_cpp_embeds_like_the_fp32_reference(embedder, row):
    got = np.asarray(embedder.embed(row["text"]), dtype=np.float64)
    ref = np.asarray(row["embedding"], dtype=np.float64)
    assert got.shape == ref.shape == (provenance.DIMS,)
    cosine = float(got @ ref / (np.linalg.norm(got) * np.linalg.norm(ref)))
    assert cosine >= MIN_COSINE, f"cosine {cosine:.5f} to the fp32 reference"


# (4) metadata ---------------------------------------------------------------------------------------

def test_gguf_metadata(model_path):
    from gguf import GGUFReader

    reader = GGUFReader(model_path)

    def scalar(key):
        field = reader.fields[key]
        return field.parts[field.data[0]].tolist()[0]

    def string(key):
        field = reader.fields[key]
        return bytes(field.parts[field.data[0]]).decode("utf-8")

    assert string("general.architecture") == "bert"
    assert scalar("tokenizer.ggml.normalizer.lowercase") is True
    assert scalar("bert.pooling_type") == 1  # mean
    assert scalar("tokenizer.ggml.token_type_count") == 2
    assert scalar("bert.embedding_length") == provenance.DIMS
    assert scalar("bert.attention.causal") is False
    assert string("tokenizer.ggml.model") == "bert"
    assert len(reader.tensors) == provenance.GGUF_TENSORS == 101
    types = {t.name: t.tensor_type.name for t in reader.tensors}
    assert types["token_embd.weight"] == "Q8_0" and types["blk.0.attn_q.weight"] == "Q8_0"
    assert types["position_embd.weight"] == types["token_types.weight"] == "F32"
    assert types["blk.0.attn_output_norm.weight"] == types["blk.0.attn_q.bias"] == "F32"
    # phantom-space vocabulary: word-initial "▁tok", continuation "##tok" as "tok", specials unchanged
    field = reader.fields["tokenizer.ggml.tokens"]
    tokens = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
    assert len(tokens) == 30522
    assert tokens[101] == "[CLS]" and tokens[102] == "[SEP]" and tokens[0] == "[PAD]"
    assert tokens[1996] == "\u2581the"  # "the"
    assert tokens[2015] == "s"  # "##s"
    field = reader.fields["tokenizer.ggml.token_type"]
    control = [i for i, part in enumerate(field.data) if field.parts[part].tolist()[0] == 3]
    assert control == [0, 100, 101, 102, 103]
    assert scalar("tokenizer.ggml.bos_token_id") == 101
    assert scalar("tokenizer.ggml.eos_token_id") == scalar("tokenizer.ggml.seperator_token_id") == 102


# (5) errors -----------------------------------------------------------------------------------------

def test_missing_source_exits_2_with_one_line(tmp_path):
    out = tmp_path / "m.gguf"
    result = _run_convert("--out", str(out), "--source", str(tmp_path / "no-such-model"))
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no-such-model" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_bad_arguments_exit_2_with_one_line():
    result = _run_convert("--verify")  # no --out
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
