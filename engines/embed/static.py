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
        pieces = self.token_ids(texts)
        lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
        flat = np.fromiter((i for p in pieces for i in p), dtype=np.int64, count=int(lengths.sum()))
        sums = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        # a few thousand tokens' rows gathered at a time into one buffer that stays in cache: the whole
        # batch's rows at once (171,500 tokens, 175 MB) took 0.35 s to gather and 0.18 s to sum
        buffer = np.empty((GATHER_TOKENS, table.shape[1]), dtype=np.float32)
        first = 0
        while first < len(texts):
            last = int(np.searchsorted(ends, ends[first - 1] + GATHER_TOKENS if first else GATHER_TOKENS, "right"))
            last = max(last, first + 1)
            lo, hi = int(starts[first]), int(ends[last - 1])
            part = np.take(table, flat[lo:hi], axis=0, out=buffer[:hi - lo]) if hi - lo <= GATHER_TOKENS \
                else table[flat[lo:hi]]  # one text longer than the buffer
            filled = np.flatnonzero(lengths[first:last]) + first
            if len(filled):
                sums[filled] = np.add.reduceat(part, starts[filled] - lo, axis=0)
            first = last
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0  # a text with no known piece: a zero vector, near nothing
        return sums / norms

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's WordPiece ids as MiniLM cuts it, without [CLS]/[SEP] and [UNK], at most MAX_TOKENS."""
        return [[i for i in self.raw_ids(text)[:MAX_TOKENS] if i not in SPECIAL] for text in texts]

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
