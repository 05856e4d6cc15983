"""The trained table's meaning of a tree, kept beside its code index in the form a search uses it.

A warm open used to rebuild it from scratch: every symbol made and its static text hashed (180,036 of
them on the 63-repository tree: 9.1 s profiled), each text's vector found in the vector cache by its
digest (3.5 s), gathered into a float32 matrix (1.7 s, 184 MB copied into memory) and, on a tree of
at most DENSITY_MOST symbols, the neighbourhood density measured again (~1 s). Once a build is whole
its state is written here: the vectors as a float32 matrix in the symbols' order, each symbol's text
key and its density. An open whose code index is the one these were made for maps the file (the
matrix is read by the first query's product, from the page cache, never copied) and is ready at once.

Which index they were made for: a digest of every file's relative path, BLAKE2b of its bytes and how
many symbols it gave, with the table's model id and the density's settings; and, since how a symbol's
text is made can change without its file changing, the text keys of two symbols written here (PROBES)
and of SAMPLED symbols spread over the tree are made again and compared. Few: each sampled symbol's
source is read from the code index's map, and the kernel maps a large span around each page read (32
samples took the open's resident memory up by 97 MB on the 63-repository tree). Anything else (another table, an edited file, a damaged file) and the state
is built as before and written again. Symbols handed in without files (CoSQA's) have no digest: their
state is not kept.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.code.symbols import Symbol, static_text
from engines.embed.cache import text_key
from engines.index_cache import CacheFault, read_arrays, write_arrays

KIND = "olai-tui code meaning"
FORMAT = 1
SAMPLED = 3  # symbols whose text keys are made again at an open (first, middle, last)
PROBES = (Symbol("probe.py::probe", "module", "probe", "probe", "", "A probe.", "import os\n", "probe.py:1",
                 "/probe/probe.py", 1, 1, language="python"),
          Symbol("probe.go::Probe.Run", "method", "probe", "Probe.Run", "(ctx Context) error", "Run runs.",
                 "func (p *Probe) Run(ctx Context) error {\n\treturn nil\n}\n", "probe.go:3", "/probe/probe.go", 3, 5,
                 language="go"))


@dataclass(frozen=True)
class MeaningState:
    keys: np.ndarray  # (n, 32) uint8: each symbol's text key (engines/embed/cache.text_key)
    vectors: np.ndarray  # (n, dims) float32, the symbols' order (a view of the file's map)
    density: np.ndarray  # (n,) float32: each symbol's neighbourhood density (zeros where not measured)
    measured: bool  # whether the density was measured (not past DENSITY_MOST)


def state_file(index_file: Path) -> Path:
    """Where a tree's meaning is kept: beside its code index, under the user cache."""
    return index_file.with_suffix(".meaning")


def fingerprint(index, model_id: str, settings: str) -> str | None:
    """What the state is valid for: the index's files by content (None when a file has no digest)."""
    digest = hashlib.sha256(f"{FORMAT}\n{model_id}\n{settings}\n".encode())
    for probe in PROBES:
        digest.update(text_key(static_text(probe)))
    for f in index.files:
        if f.end > f.first and not f.digest:
            return None
        digest.update(f"{f.source}\t{f.rel}\t{f.end - f.first}\t".encode("utf-8", "surrogatepass") + f.digest)
    return digest.hexdigest()


def sampled(size: int) -> np.ndarray:
    """The positions whose keys an open makes again: spread evenly, the first and last included."""
    return np.unique(np.linspace(0, size - 1, min(SAMPLED, size)).astype(np.int64)) if size else np.zeros(0, np.int64)


def read_state(path: Path, print_: str, index, dims: int) -> MeaningState | None:
    """The state kept at ``path`` when it was made for ``print_`` (``index``'s ``fingerprint``), holds its
    symbols' vectors of ``dims`` and its sampled symbols' text keys; else None (built again)."""
    size = index.size
    try:
        meta, arrays = read_arrays(path, KIND, FORMAT)
    except (OSError, CacheFault):
        return None
    try:
        keys, vectors, density = arrays["keys"], arrays["vectors"], arrays["density"]
    except KeyError:
        return None
    if (meta.get("fingerprint") != print_ or keys.shape != (size, 32) or vectors.shape != (size, dims)
            or density.shape != (size,) or vectors.dtype != np.float32):
        return None
    if any(bytes(keys[i]) != text_key(static_text(index.symbol(int(i)))) for i in sampled(size)):
        return None
    return MeaningState(keys, vectors, density, bool(meta.get("measured")))


def write_state(path: Path, print_: str, keys: list[bytes], vectors: np.ndarray, density: np.ndarray,
                measured: bool) -> None:
    """Keep the state for the next open (atomically; a failure only means the next open builds it)."""
    joined = np.frombuffer(b"".join(keys), np.uint8).reshape(len(keys), 32)
    try:
        write_arrays(path, KIND, FORMAT, {"fingerprint": print_, "measured": measured},
                     {"keys": joined, "vectors": np.asarray(vectors, np.float32),
                      "density": np.asarray(density, np.float32)})
    except OSError:
        pass
