"""The static embedder: a text is the mean of its tokens' rows in a table distilled from MiniLM.

The table is engines/embed/distill.py's (model2vec's method, no training). Its tokens are MiniLM's own
WordPiece pieces, cut by llama.cpp's tokenizer from the shipped GGUF loaded vocabulary-only (no
weights, ~30 ms), so a text is split exactly as the contextual model splits it. Inference is numpy: a
gather and a segmented sum, no transformer; model2vec's own package was not taken for it (it reads its
tokenizer through HF ``tokenizers``, a dependency for what llama.cpp here already does).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.embed import provenance
from engines.embed.base import EmbedderInfo, EmbedderUnavailable, Kind
from engines.embed.distill import STATIC_FILENAME, STATIC_SHA256

NAME = "all-MiniLM-L6-v2 static"
# The cosine under which a neighbour is noise in this table's space. `engines/eval/tuning/floor.py --static`
# (2026-12-04): 34 junk queries reach 0.526 on the demo notebook and 0.545 on the olai roadmap (median
# of per-query maxima 0.27); the true paraphrases score 0.307-0.661. Junk and paraphrases overlap far
# more than in MiniLM's space (0.370 against 0.403): a static vector ranks, it rarely proves, so its
# floor sits over the junk and few rows are shown for their static resemblance alone.
FLOOR = 0.55
JUNK_MARGIN = 0.08
GATHER_TOKENS = 4096
SPLIT_TEXTS = 256  # a batch of at least this many texts is split over the cores
MAX_TOKENS = 2048  # a text's first pieces: a mean over more moves it little and costs the gather
ENABLE = ("run `make` (or `olai-tui model install`), which distils the static table from the installed "
          f"{provenance.SOURCE_PACKAGE}")
SPECIAL = (0, 100, 101, 102, 103)  # [PAD] [UNK] [CLS] [SEP] [MASK]: no meaning of their own


def static_locations() -> list[Path]:
    """Where the table may live, first found wins: inside the package beside MiniLM's GGUF, then under
    the install prefix (``make`` and ``olai-tui model install`` write it there)."""
    return [provenance.PACKAGED_MODEL.parent / STATIC_FILENAME,
            Path(os.sys.prefix) / "share" / "olai-tui" / "models" / STATIC_FILENAME]


class StaticEmbedder:
    def __init__(self, table_path: str | os.PathLike | None = None,
                 tokenizer_path: str | os.PathLike | None = None) -> None:
        found = next((p for p in static_locations() if p.is_file()), static_locations()[0])
        self.table_path = Path(table_path) if table_path is not None else found
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else provenance.PACKAGED_MODEL
        self._table: np.ndarray | None = None
        self._vocabs = threading.local()  # a vocabulary per thread: llama.cpp's tokenizer keeps a cache per vocabulary
        self._info: EmbedderInfo | None = None
        self._load_lock = threading.Lock()

    def info(self) -> EmbedderInfo:
        if self._info is None:
            table = self._loaded()
            from engines.embed.llama import sha256_file

            digest = sha256_file(self.table_path)
            self._info = EmbedderInfo(model_id=f"minilm-static-{digest[:16]}", dims=int(table.shape[1]),
                                      floor=FLOOR, margin=JUNK_MARGIN, name=NAME)
        return self._info

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        table = self._loaded()
        if not texts:
            return np.zeros((0, table.shape[1]), dtype=np.float32)
        workers = _workers()
        if len(texts) < SPLIT_TEXTS or workers == 1:
            return self._embedded(texts, table)
        # tokenizing (llama.cpp) and the gathers and sums (numpy) let go of the interpreter: a large batch
        # split over the cores embeds in about half the time on 2 of them
        step = -(-len(texts) // workers)
        parts = _pool().map(lambda at: self._embedded(texts[at:at + step], table), range(0, len(texts), step))
        return np.vstack(list(parts))

    def _embedded(self, texts: Sequence[str], table: np.ndarray) -> np.ndarray:
        flat, lengths = self.token_arrays(texts)
        sums = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        # a few thousand tokens' rows gathered at a time into one buffer that stays in cache: the whole
        # batch's rows at once (171,500 tokens, 175 MB) took 0.35 s to gather and 0.18 s to sum
        dims = table.shape[1]
        buffer = np.empty((GATHER_TOKENS, dims), dtype=np.float32)
        across = np.empty(GATHER_TOKENS * dims, dtype=np.float32)  # the rows turned: one line per dimension
        first = 0
        while first < len(texts):
            last = int(np.searchsorted(ends, ends[first - 1] + GATHER_TOKENS if first else GATHER_TOKENS, "right"))
            last = max(last, first + 1)
            lo, hi = int(starts[first]), int(ends[last - 1])
            part = np.take(table, flat[lo:hi], axis=0, out=buffer[:hi - lo]) if hi - lo <= GATHER_TOKENS \
                else table[flat[lo:hi]]  # one text longer than the buffer
            filled = np.flatnonzero(lengths[first:last]) + first
            if len(filled):
                # Summed along each dimension's own line: numpy adds a text's pieces in the same order as
                # down the rows (the first, then the pairwise sum of the rest), so the sums are the same
                # bits (a test holds them to it), but in contiguous runs rather than one strided walk per
                # dimension per text: 0.144 s of a 2,048-passage batch's 0.212 s against 0.021 s, the
                # turn ~0.05 s (the vault's first 2,048 passages, 2026-12-07)
                lines = turned(part, across)
                sums[filled] = np.add.reduceat(lines, starts[filled] - lo, axis=1).T
            first = last
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0  # a text with no known piece: a zero vector, near nothing
        return sums / norms

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's WordPiece ids as MiniLM cuts it, without [CLS]/[SEP] and [UNK], at most MAX_TOKENS."""
        return [[i for i in self.raw_ids(text)[:MAX_TOKENS] if i not in SPECIAL] for text in texts]

    def token_arrays(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``token_ids`` as arrays: every text's ids one after the other (int64), and each text's count.
        Each text is cut by one llama.cpp call into a buffer shared by the batch, its first MAX_TOKENS
        kept and the special pieces dropped in numpy. Through ``token_ids`` (llama-cpp-python's list of
        Python ints, filtered, then flattened, holding the interpreter, and every text over 512 pieces
        cut twice by that wrapper) a 2,048-passage batch of the 100,000-note vault took 0.377 s on one
        core; this way 0.132 s, the same ids (2026-12-07)."""
        # a table that cuts its own way (code), or ids given for this embedder alone (training's check)
        if getattr(self.token_ids, "__func__", None) is not StaticEmbedder.token_ids:
            pieces = self.token_ids(texts)
            lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
            return np.fromiter((i for p in pieces for i in p), dtype=np.int64, count=int(lengths.sum())), lengths
        return _cut(self._vocabulary().vocab, texts)

    def raw_ids(self, text: str) -> list[int]:
        """Every WordPiece id of ``text`` as llama.cpp gives them, [UNK] and all, uncut."""
        data = text.encode("utf-8", "replace")
        return self._vocabulary().tokenize(data, add_bos=False, special=False) if data.strip() else []

    def count_tokens(self, text: str) -> int:
        return len(self.token_ids([text])[0])

    # -- loading -------------------------------------------------------------------------------
    def _loaded(self) -> np.ndarray:
        if self._table is None:
            with self._load_lock:
                if self._table is None:
                    self._table = self._read_table()
        return self._table

    def _read_table(self) -> np.ndarray:
        path = self.table_path
        if not path.is_file():
            raise EmbedderUnavailable(f"no static table at {path}", ENABLE)
        from engines.embed.llama import sha256_file

        if path.name == STATIC_FILENAME and sha256_file(path) != STATIC_SHA256:
            raise EmbedderUnavailable(f"{path} is damaged (its sha256 is not the pinned one)", ENABLE)
        try:
            table = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise EmbedderUnavailable(f"static table {path} unreadable: {exc}", ENABLE) from exc
        if table.ndim != 2:
            raise EmbedderUnavailable(f"static table {path} has shape {table.shape}", ENABLE)
        # float32 in memory (31 MB): gathering float16 rows and widening them per text took 0.7 s of
        # 0.78 s for 171,500 tokens, against ~0.1 s from float32
        return np.asarray(table, dtype=np.float32)

    def _vocabulary(self):
        vocab = getattr(self._vocabs, "vocab", None)
        if vocab is None:
            vocab = self._vocabs.vocab = self._load_vocabulary()  # ~30 ms, once per thread
        return vocab

    def _load_vocabulary(self):
        try:
            import llama_cpp
            from llama_cpp._internals import LlamaModel

            from engines.embed.llama import LOADING, quiet_loads
        except ImportError as exc:
            raise EmbedderUnavailable("llama-cpp-python is not installed",
                                      "pip install llama-cpp-python==0.3.36 (or run `make`)") from exc
        if not self.tokenizer_path.is_file():
            raise EmbedderUnavailable(f"no tokenizer (MiniLM's GGUF) at {self.tokenizer_path}", ENABLE)
        # the model's vocabulary alone, without the context ``Llama(vocab_only=True)`` still makes
        quiet_loads()  # llama.cpp's loading log is not for a person, and the process's output stays put
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        try:
            with LOADING:
                return LlamaModel(path_model=str(self.tokenizer_path), params=params, verbose=False)
        except Exception as exc:  # noqa: BLE001 - llama.cpp reports a bad file as ValueError/RuntimeError
            raise EmbedderUnavailable(f"could not read the vocabulary of {self.tokenizer_path}: {exc}",
                                      ENABLE) from exc


TURN_ROWS = 256  # rows turned at a time: one copy of the whole transposed view was twice as slow (cache)


def turned(rows: np.ndarray, room: np.ndarray) -> np.ndarray:
    """``rows.T`` as a C-contiguous array, in ``room`` (a flat float32 buffer) where it fits."""
    count, dims = rows.shape
    out = room[:count * dims].reshape(dims, count) if count * dims <= len(room) else np.empty((dims, count), np.float32)
    for at in range(0, count, TURN_ROWS):
        np.copyto(out[:, at:at + TURN_ROWS], rows[at:at + TURN_ROWS].T)
    return out


def _cut(vocab, texts: Sequence[str], room: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``StaticEmbedder.token_arrays`` for the vocabulary ``vocab`` (llama.cpp's): the same ids as
    ``raw_ids`` cut to MAX_TOKENS less SPECIAL, text by text. llama.cpp gives at most one piece per
    byte here (WordPiece: each piece spans a character or more, [UNK] a whole word); a text that asks
    for more is cut again into a buffer made large enough (``room``: the first buffer's size, for a test)."""
    import ctypes

    import llama_cpp

    tokenize, pointer = llama_cpp.llama_tokenize, llama_cpp.llama_token_p
    data = [text.encode("utf-8", "replace") for text in texts]
    room = sum(map(len, data)) + 64 if room is None else room
    buffer = np.empty(room, np.int32)
    raw = np.zeros(len(data), np.int64)  # each text's ids kept, [UNK] and the rest of SPECIAL still in
    at = 0
    for i, text in enumerate(data):
        if not text.strip():
            continue
        n = tokenize(vocab, text, len(text), ctypes.cast(buffer.ctypes.data + 4 * at, pointer), room - at, False, False)
        if n < 0:  # more pieces than the room left: a buffer for them all, then on as before
            grown = np.empty(at - n + sum(map(len, data[i + 1:])) + 64, np.int32)
            grown[:at] = buffer[:at]
            buffer, room = grown, len(grown)
            n = tokenize(vocab, text, len(text), ctypes.cast(buffer.ctypes.data + 4 * at, pointer), room - at, False,
                         False)
            if n < 0:
                raise RuntimeError(f"llama.cpp could not tokenize a text of {len(text)} bytes")
        raw[i] = min(n, MAX_TOKENS)  # what lies past the cut is written over by the next text
        at += int(raw[i])
    ids = buffer[:at]
    keep = ~np.isin(ids, SPECIAL)
    kept = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
    ends = np.cumsum(raw)
    return ids[keep].astype(np.int64), kept[ends] - kept[ends - raw]


_POOL = None
_POOL_LOCK = threading.Lock()


def _workers() -> int:
    return max(1, min(os.cpu_count() or 1, 2))


def _pool():
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="olai-static")
        return _POOL
