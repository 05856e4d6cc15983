"""An index kept between runs in the user cache: one folder per searched root, written atomically.

Shared shape for an engine's persistent index (engines/notes/store.py): a folder under
``cache_root()/<kind>/`` named by a hash of the searched root's absolute path (never inside the
searched folder), holding numpy arrays (``.npy``, read back memory-mapped where large), a few
other files, and ``manifest.json`` written last. Each write is a temp file in the same folder and
``os.replace``, and every file but the manifest carries the generation in its name: a reader holds
either the old generation or the new one, never a mix, and a run killed midway leaves the old
manifest pointing at the old, complete files. The manifest names the format version, the root it
was made for and each file's size, so a truncated, foreign or older index is recognised and named
once (``Stale``), never served.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from engines.atomic import atomic_file, taking_turns
from engines.locations import cache_root

MANIFEST = "manifest.json"
STALE_TEMP_S = 3600.0  # a temp file this old belongs to a save that died (100k notes save in seconds)
WRITER_LOCK = ".writer.lock"
# A generation the manifest moved on from stays this long: a reader that read the old manifest opens its
# files within seconds of it (a 100,000-note index is read in ~2 s), and an open or mapped file lives on
# after its name is removed.
RETIRED_GRACE_S = 120.0


class Stale(Exception):
    """The saved index cannot be used; the message is the one line that says why."""


def folder_for(kind: str, root: str, cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the index of ``root`` (an absolute path) lives: ``<cache>/<kind>/<hash of root>``."""
    base = Path(cache_dir) if cache_dir is not None else cache_root()
    tag = hashlib.sha256(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return base / kind / tag


def write_atomically(path: Path, data: bytes | np.ndarray) -> int:
    """``data`` (bytes, or an array saved as ``.npy``) at ``path`` via a temp file and rename; its size."""
    with atomic_file(path) as fh:
        if isinstance(data, np.ndarray):
            np.save(fh, data, allow_pickle=False)
        else:
            fh.write(data)
    return path.stat().st_size


def read_manifest(folder: Path, format_version: int, root: str) -> dict | None:
    """The manifest of the index in ``folder`` (None: there is none); Stale when it cannot be used."""
    try:
        raw = (folder / MANIFEST).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Stale(f"unreadable ({(error.strerror or str(error)).lower()})") from None
    try:
        manifest = json.loads(raw.decode("utf-8", "surrogatepass"))  # as written: a root not in UTF-8 survives
    except ValueError:
        raise Stale("damaged (its manifest is not JSON)") from None
    if not isinstance(manifest, dict):
        raise Stale("damaged (its manifest is not a JSON object)")
    if manifest.get("format") != format_version:
        raise Stale(f"written in format {manifest.get('format')!r}, this version reads format {format_version}")
    if manifest.get("root") != root:
        raise Stale(f"made for {manifest.get('root')!r}, not this folder (another machine's or a moved copy)")
    for name, size in (manifest.get("files") or {}).items():
        try:
            actual = (folder / name).stat().st_size
        except OSError:
            raise Stale(f"damaged ({name} is missing)") from None
        if actual != size:
            raise Stale(f"damaged ({name} holds {actual:,} bytes, not {size:,}: truncated)")
    return manifest


def load_array(folder: Path, name: str, mmap: bool = True) -> np.ndarray:
    """One saved array, memory-mapped by default (read-only); Stale if it does not read back."""
    try:
        return np.load(folder / name, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise Stale(f"damaged ({name}: {' '.join(str(error).split())[:80]})") from None


def map_bytes(folder: Path, name: str) -> "mmap.mmap | bytes":
    """One saved file's bytes, memory-mapped read-only like the arrays: only the pages read are resident,
    and the kernel may drop them again (a bytes copy of the exact tier's haystack held 69 MB of a
    100,000-note vault's memory). An empty file is b"" (an empty file cannot be mapped)."""
    try:
        with open(folder / name, "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                return b""
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as error:
        raise Stale(f"damaged ({name}: {' '.join(str(error).split())[:80]})") from None


@contextmanager
def one_writer(folder: Path):
    """Held while a generation is written and made current: two processes saving the same index take
    turns, so neither removes the files of the other's generation before its manifest names them (two
    `index notes` at once left a manifest naming removed files). An flock: the kernel lets go of it when
    its holder dies."""
    with taking_turns(folder / WRITER_LOCK):
        yield


def write_manifest(folder: Path, manifest: dict) -> None:
    """The manifest last: from here on the new generation is the index. The generation it replaces is
    kept as retired (with when), so its files outlive it by RETIRED_GRACE_S."""
    now = time.time()
    retired = {}
    try:
        before = json.loads((folder / MANIFEST).read_bytes().decode("utf-8", "surrogatepass"))
        retired = {g: t for g, t in (before.get("retired") or {}).items() if now - float(t) < RETIRED_GRACE_S}
        if before.get("generation") and before["generation"] != manifest.get("generation"):
            retired[before["generation"]] = now
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    manifest = {**manifest, "retired": retired}
    write_atomically(folder / MANIFEST, json.dumps(manifest, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def remove_other_generations(folder: Path, keep: set[str]) -> None:
    """Files of earlier generations, once they have been retired for RETIRED_GRACE_S (a reader that
    still maps one keeps its pages: an unlinked file lives on until it is unmapped)."""
    try:
        names = os.listdir(folder)
        retired = json.loads((folder / MANIFEST).read_bytes().decode("utf-8", "surrogatepass")).get("retired") or {}
    except (OSError, ValueError, AttributeError):
        return
    now = time.time()
    old = now - STALE_TEMP_S
    recent = {g for g, t in retired.items() if now - float(t) < RETIRED_GRACE_S}
    for name in names:
        if name in (MANIFEST, WRITER_LOCK) or name in keep or _generation(name) in recent:
            continue
        try:
            # a temp file ("."...) may be another run's save in progress: only an old one is a dead run's
            if not name.startswith(".") or (folder / name).stat().st_mtime < old:
                os.unlink(folder / name)
        except OSError:
            pass


def _generation(name: str) -> str | None:
    """``note_strings.<generation>.txt`` -> the generation."""
    parts = name.split(".")
    return parts[1] if len(parts) >= 3 and parts[0] else None


def discard(folder: Path) -> None:
    """Drop an index that cannot be used (it is rebuilt from the searched files: nothing is lost); the
    writers' lock stays, taken, so a save under way in another process is not cut from under it."""
    try:
        with one_writer(folder):
            for name in os.listdir(folder):
                if name != WRITER_LOCK:
                    path = folder / name
                    shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
