"""One cache file of named numpy arrays: written atomically, read back memory-mapped, checked on open.

An index an engine keeps between runs (the code engine's symbols and word counts) is a handful of
flat arrays: offsets, integers and UTF-8 text. They go into one file, not a pickle of Python objects,
so that an open maps the file and touches only the pages a search reads (the arrays are views of the
map, never copied), and a cache written by other code cannot run anything here.

Layout: ``MAGIC``, the header's length (8 bytes, little-endian), the header (JSON: kind, format
version, the caller's metadata, each array's name, dtype, shape and offset, the file's full size and
a CRC of the header itself), then each array at a 64-byte boundary. A file that is shorter or longer
than its header says (cut off by a crash or a full disk), whose header does not parse or check, or
that is of another kind or format version raises ``CacheFault`` with a one-line cause: the caller
names it once, discards it and builds again. Writes go to a temporary file in the same folder and
are renamed over the old one, so a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import mmap
import os
import zlib
from pathlib import Path
from typing import Mapping

import numpy as np

from engines.atomic import atomic_file

MAGIC = b"OLAIIDX1"
ALIGN = 64
TEMP_PREFIX = ".tmp-"  # a temporary file a crash left behind starts with this (swept by the next write)


class CacheFault(Exception):
    """A cache file that cannot be used; ``str()`` is the one-line cause."""


def write_arrays(path: str | os.PathLike, kind: str, version: int, meta: Mapping,
                 arrays: Mapping[str, np.ndarray]) -> int:
    """Write ``arrays`` and ``meta`` (JSON-able) to ``path`` atomically; returns the file's size in bytes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep(path.parent)
    table, offset = [], 0
    arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    for name, a in arrays.items():
        table.append([name, a.dtype.str, list(a.shape), offset, a.nbytes])
        offset += -(-a.nbytes // ALIGN) * ALIGN
    header = {"kind": kind, "format": version, "meta": dict(meta), "arrays": table}
    # The header's own length depends on the offsets it holds: fix the start of the data first.
    body = json.dumps(header, separators=(",", ":")).encode()
    start = -(-(len(MAGIC) + 8 + len(body) + 64) // ALIGN) * ALIGN  # room for "size" and "crc"
    header["size"] = start + offset
    header["crc"] = zlib.crc32(body)
    text = json.dumps(header, separators=(",", ":")).encode()
    if len(MAGIC) + 8 + len(text) > start:
        raise AssertionError("header outgrew its room")  # 64 bytes hold two integers with room to spare
    with atomic_file(path, prefix=TEMP_PREFIX + path.name + ".", suffix="") as out:
        out.write(MAGIC + len(text).to_bytes(8, "little") + text)
        out.write(b"\0" * (start - out.tell()))
        for name, a in arrays.items():
            out.write(memoryview(a).cast("B") if a.nbytes else b"")
            out.write(b"\0" * (-a.nbytes % ALIGN))
    return header["size"]


def read_arrays(path: str | os.PathLike, kind: str, version: int) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of a file ``write_arrays`` wrote: read-only views of a memory map.

    Raises FileNotFoundError when there is no file, CacheFault when there is one that cannot be used."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < len(MAGIC) + 8:
            raise CacheFault(f"truncated ({size} bytes)")
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    if mapped[:len(MAGIC)] != MAGIC:
        raise CacheFault("not an olai-tui index file (its first bytes differ)")
    length = int.from_bytes(mapped[len(MAGIC):len(MAGIC) + 8], "little")
    if length > size - len(MAGIC) - 8:
        raise CacheFault(f"truncated ({size:,} bytes; its header alone says {length:,})")
    try:
        header = json.loads(mapped[len(MAGIC) + 8:len(MAGIC) + 8 + length])
        crc, expected = header.pop("crc"), header.pop("size")
        check = zlib.crc32(json.dumps(header, separators=(",", ":")).encode())
    except (ValueError, KeyError, TypeError, AttributeError):
        raise CacheFault("damaged (its header does not parse)") from None
    if crc != check:
        raise CacheFault("damaged (its header fails its checksum)")
    if header.get("kind") != kind:
        raise CacheFault(f"another kind of index ({header.get('kind')!r}, not {kind!r})")
    if header.get("format") != version:
        raise CacheFault(f"another format version ({header.get('format')}, this version reads {version})")
    if size != expected:
        raise CacheFault(f"truncated ({size:,} of {expected:,} bytes)" if size < expected else
                         f"damaged ({size:,} bytes where {expected:,} were written)")
    start = expected - sum(-(-nbytes // ALIGN) * ALIGN for *_, nbytes in header["arrays"])
    arrays = {}
    for name, dtype, shape, offset, nbytes in header["arrays"]:
        dt = np.dtype(dtype)
        count = nbytes // dt.itemsize if dt.itemsize else 0
        arrays[name] = np.frombuffer(mapped, dtype=dt, count=count, offset=start + offset).reshape(shape)
    return header["meta"], arrays


def _sweep(folder: Path) -> None:
    """Remove temporary files a killed writer left (older than a minute: a live writer's is newer)."""
    import time

    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(TEMP_PREFIX):
            try:
                if time.time() - entry.stat().st_mtime > 60:
                    os.unlink(entry.path)
            except OSError:
                pass


class StringColumn:
    """A column of strings as one UTF-8 blob and offsets: item ``i`` is ``blob[offsets[i]:offsets[i+1]]``."""

    __slots__ = ("blob", "offsets", "_bytes")

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        self.blob, self.offsets = blob, offsets
        self._bytes = memoryview(blob) if blob.size else memoryview(b"")

    @classmethod
    def of(cls, strings) -> "StringColumn":
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        return cls(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> str:
        return str(self._bytes[self.offsets[i]:self.offsets[i + 1]], "utf-8", "surrogatepass")

    def all(self) -> list[str]:
        """Every item. ASCII text (names, words: nearly always) is decoded once and sliced, 4x faster
        than a decode per item for the 198,011 words of the monorepo's vocabulary."""
        data, off = self._bytes, self.offsets.tolist()
        whole = str(data, "utf-8", "surrogatepass")
        if len(whole) == len(data):  # one byte per character: byte offsets are character offsets
            return [whole[a:b] for a, b in zip(off, off[1:])]
        return [str(data[a:b], "utf-8", "surrogatepass") for a, b in zip(off, off[1:])]

    def arrays(self, name: str) -> dict[str, np.ndarray]:
        return {f"{name}.blob": self.blob, f"{name}.offsets": self.offsets}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], name: str) -> "StringColumn":
        return cls(arrays[f"{name}.blob"], arrays[f"{name}.offsets"])

    @staticmethod
    def gather(columns: list["StringColumn"], runs: list[tuple[int, int, int]]) -> "StringColumn":
        """The items of ``runs`` (column number, first, end) in order, as one new column."""
        blobs, offsets, base = [], [np.zeros(1, dtype=np.int64)], 0
        for c, first, end in runs:
            column = columns[c]
            a, b = int(column.offsets[first]), int(column.offsets[end])
            blobs.append(column.blob[a:b])
            offsets.append(column.offsets[first + 1:end + 1] - a + base)
            base += b - a
        blob = np.concatenate(blobs) if blobs else np.zeros(0, dtype=np.uint8)
        return StringColumn(blob, np.concatenate(offsets))
