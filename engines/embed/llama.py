"""The local embedder: a GGUF embedding model run by llama.cpp through llama-cpp-python.

Which model, and the facts that come with it (prefixes, token limit, floor, text normalisation), is a
``ModelSpec`` (engines/embed/models.py): all-MiniLM-L6-v2 unless told otherwise.

Loaded lazily: a search that never needs meaning never loads it (nor imports llama_cpp). Queries
and documents use separate llama.cpp contexts over the same mmapped weights, so a query typed while
the index builds in the background is not queued behind an indexing batch.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.embed.base import EmbedderInfo, EmbedderUnavailable, Kind
from engines.embed.models import E5, MINILM, ModelSpec
from engines.embed.provenance import GGUF_SHA256, default_model_path, is_packaged
from engines.memory import give_back_free_memory

# The cosine under which a neighbour is noise in MiniLM's vector space (title and passage vectors).
# `.venv/bin/python -m engines.eval.tuning.floor`: 34 junk queries (10 of them near the notebook's own
# subjects: "a vegan lasagne", "wiring a plug socket") reach at most 0.370 on the demo notebook and
# 0.371 on the olai roadmap (median of per-query maxima 0.22); true paraphrases score 0.403-0.437
# ("protecting young plants from snails" -> the slugs note 0.403). The floor sits just above junk:
# a near-topic paraphrase under it (0.320) is lost rather than junk shown as resemblance.
FLOOR = MINILM.floor

ENABLE_HINT = MINILM.enable

# Tokens per llama.cpp decode when embedding documents. Texts are packed several to a batch.
DOCUMENT_BATCH_TOKENS = 256
MAX_TOKENS = MINILM.max_tokens
# One thread embeds a query: a short query is too small to share. Measured on 2 quiet cores, 100
# queries (engines/eval/tuning/query_threads.py): 1 thread p50 2.2 ms (passive or spinning
# waits alike); 2 threads 1.2 ms while spinning, 6.9 ms with the passive waits the indexer needs;
# and 2 spinning threads took ~0.9 s per query beside a busy neighbour. One thread also leaves the
# other core to the background indexer.
QUERY_THREADS = 1


# Held while llama-cpp-python loads a model or a vocabulary: its one-time backend set-up is guarded by a
# plain class flag, which two threads loading at once would both pass.
LOADING = threading.Lock()
_DROP_LOG = None  # the log callback llama.cpp holds: kept referenced here, or ctypes would free it


def quiet_loads() -> None:
    """Keep llama.cpp's loading log off the person's terminal without touching the process's output.

    With verbose off, llama-cpp-python silences a load by pointing file descriptors 1 and 2 at /dev/null
    (``suppress_stdout_stderr``, by dup2) and back after. That is process-wide: whatever another thread
    wrote meanwhile was lost. A one-shot search printed its answer while the background index loaded
    MiniLM and the JSON went to /dev/null, exit 0, nothing printed (once in a loaded CI run;
    tests/engines/test_llama_output.py makes it happen at will). So llama.cpp's log goes to a callback
    that drops it (an unreadable model still fails as an exception, with its cause) and the dup2 is
    replaced by nothing. Idempotent."""
    global _DROP_LOG
    import llama_cpp
    import llama_cpp._internals
    import llama_cpp.llama

    if _DROP_LOG is None:
        @llama_cpp.llama_log_callback
        def drop(level, text, user_data):  # noqa: ARG001 - llama.cpp's signature
            return None

        _DROP_LOG = drop
        llama_cpp.llama_log_set(_DROP_LOG, ctypes.c_void_p(0))
    llama_cpp.llama.suppress_stdout_stderr = _Unchanged
    llama_cpp._internals.suppress_stdout_stderr = _Unchanged


class _Unchanged:
    """``suppress_stdout_stderr``'s interface, leaving the file descriptors as they are."""

    def __init__(self, disable: bool = True) -> None:
        pass

    def __enter__(self) -> "_Unchanged":
        return self

    def __exit__(self, *exc) -> None:
        return None


def _threads() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


class LlamaEmbedder:
    def __init__(self, model_path: str | os.PathLike | None = None, n_threads: int | None = None,
                 spec: ModelSpec | None = None, note: str | None = None) -> None:
        self.model_path = Path(model_path) if model_path is not None else default_model_path()
        self.spec = spec or (E5 if self.model_path.name == E5.filename else MINILM)
        self.note = note  # why another model than the one asked for answers (engines/embed/choose.py)
        self.n_threads = n_threads or _threads()
        self._contexts: dict[str, object] = {}
        self._locks = {"query": threading.Lock(), "document": threading.Lock()}
        self._load_lock = threading.Lock()
        self._info: EmbedderInfo | None = None

    # -- the seam ------------------------------------------------------------------------------
    def info(self) -> EmbedderInfo:
        if self._info is None:
            self._check_file()
            digest = sha256_file(self.model_path)
            llm = self._context("query")
            self._info = EmbedderInfo(model_id=f"{self.spec.name}-{digest[:16]}", dims=int(llm.n_embd()),
                                      floor=self.spec.floor, margin=self.spec.junk_margin, name=self.spec.name,
                                      note=self.note)
        return self._info

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.info().dims), dtype=np.float32)
        llm = self._context(kind)
        with self._locks[kind]:
            rows = llm.embed([self._text(t, kind) for t in texts], normalize=False, truncate=True)
        vectors = np.asarray(rows, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise RuntimeError(f"embedder returned shape {vectors.shape} for {len(texts)} texts")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vectors / norms

    def count_tokens(self, text: str) -> int:
        return len(self._context("document").tokenize(self._text(text, "document").encode("utf-8"), add_bos=True))

    def _text(self, text: str, kind: Kind) -> str:
        text = _clean(text)
        if self.spec.normalise is not None:
            text = self.spec.normalise(text)
        return self.spec.prefix(kind) + text

    # -- loading -------------------------------------------------------------------------------
    def _check_file(self) -> None:
        path = self.model_path
        if not path.exists():
            raise EmbedderUnavailable(f"no model file at {path}", self.spec.enable)
        try:
            with open(path, "rb") as fh:
                magic = fh.read(4)
        except OSError as exc:
            raise EmbedderUnavailable(f"model file {path} unreadable: {exc.strerror}", self.spec.enable) from exc
        if magic != b"GGUF":
            raise EmbedderUnavailable(f"{path} is not a GGUF file", self.spec.enable)
        # The packaged file is known byte for byte: a damaged install says so rather than embedding
        # garbage (a flipped byte still loads). Hashing 25 MB takes ~30 ms, once per process.
        pinned = GGUF_SHA256 if is_packaged(path) else E5.sha256 if path.name == E5.filename else None
        if pinned is not None:
            digest = sha256_file(path)
            if digest != pinned:
                raise EmbedderUnavailable(
                    f"{path} is damaged (sha256 {digest[:12]}..., the pinned one is {pinned[:12]}...)", self.spec.enable)

    def _context(self, kind: Kind):
        llm = self._contexts.get(kind)
        if llm is not None:
            return llm
        with self._load_lock:
            if kind not in self._contexts:
                self._contexts[kind] = self._load(kind)
            return self._contexts[kind]

    def _load(self, kind: Kind):
        self._check_file()
        # llama.cpp's OpenMP threads spin while they wait; on 2 shared cores a spinning idle thread
        # starved the other: one short query took ~0.9 s instead of 2-4 ms with a busy neighbour
        # process, 8-20 ms with passive waiting. Must be set before libgomp loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from llama_cpp import Llama

            quiet_loads()
        except ImportError as exc:
            raise EmbedderUnavailable(
                "llama-cpp-python is not installed", "pip install llama-cpp-python==0.3.36 (or run `make`)"
            ) from exc
        limit = self.spec.max_tokens
        n_batch = self.spec.query_tokens if kind == "query" else max(DOCUMENT_BATCH_TOKENS, limit)
        threads = QUERY_THREADS if kind == "query" else self.n_threads
        try:
            with LOADING:
                model = Llama(
                    model_path=str(self.model_path), embedding=True, n_ctx=max(n_batch, limit),
                    n_batch=n_batch, n_ubatch=n_batch, n_threads=threads,
                    n_threads_batch=threads, verbose=False,
                )
        except Exception as exc:  # llama.cpp reports a bad file as ValueError/RuntimeError
            raise EmbedderUnavailable(f"could not load {self.model_path}: {exc}", self.spec.enable) from exc
        give_back_free_memory()  # what reading the model freed (its vocabulary parsed, its tensors' metadata)
        return model


def _clean(text: str) -> str:
    # llama.cpp's tokenizer takes UTF-8 bytes; lone surrogates cannot be encoded.
    return text.encode("utf-8", "replace").decode("utf-8")


_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def sha256_file(path: Path) -> str:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA_CACHE:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        _SHA_CACHE[key] = digest.hexdigest()
    return _SHA_CACHE[key]

