"""Keeping a products engine live: watchfiles reports an edited or new export, the catalogue is read again.

The whole catalogue is re-read (tuotteet.csv's 3,738 rows: about a second) and installed only when
its rows changed (the readings' content hashes): a save that changed nothing rebuilds nothing. A
catalogue that no longer reads (a half-written file) leaves the last good one answering.
"""

from __future__ import annotations

import os
from pathlib import Path

from engines.products.catalogue import CatalogueError, catalogue_files, load_catalogue
from engines.watching import FolderWatcher

WATCHED_SUFFIXES = (".csv", ".tsv", ".txt", ".xlsx", ".xlsm", ".xls", ".ods", ".jsonl", ".ndjson", ".json",
                    ".zip", ".toml")


class CatalogueWatcher(FolderWatcher):
    thread_name = "olai-products-watch"

    def __init__(self, engine) -> None:
        super().__init__(engine)
        self.problem: str | None = None  # why the last re-read failed (the old catalogue still answers)

    def roots(self) -> list[str]:
        root = self.engine.root
        return [str(root if root.is_dir() else root.parent)]  # a file's folder: editors save by rename

    def recursive(self) -> bool:
        return self.engine.root.is_dir()

    def is_watched_file(self, path: str) -> bool:
        root = self.engine.root
        if root.is_dir():
            return Path(path).name.lower().endswith(WATCHED_SUFFIXES)
        return os.path.abspath(path) == os.path.abspath(root) or Path(path).name == "catalogue.toml"

    def files_under(self, folder: str) -> list[str]:
        return [str(p) for p in catalogue_files(Path(folder))]

    def apply(self, paths: set[str]) -> None:
        if not any(self.is_watched_file(p) or os.path.isdir(p) for p in paths):
            return
        try:
            catalogue = load_catalogue(self.engine.root, self.engine.knowledge)
        except CatalogueError as exc:
            self.problem = str(exc)
            return
        self.problem = None
        if _hashes(catalogue) == _hashes(self.engine.catalogue) and all(_hashes(catalogue)):
            return
        install(self.engine, catalogue)
        self.changes_seen += 1


class LiveCatalogue:
    """The products engine's ``watch()``: a catalogue file or folder on disk is followed."""

    def watch(self) -> CatalogueWatcher | None:
        if self.root is None or not self.root.exists():
            return None  # a database (re-read by `index products`) or rows given in memory
        watcher = CatalogueWatcher(self)
        watcher.start()
        return watcher


def install(engine, catalogue) -> None:
    """Swap in a re-read catalogue: recall's index and the request reader rebuilt; the vectors re-embed
    only texts the cache has not seen (a changed row, not the whole catalogue)."""
    from engines.products.recall import RecallIndex
    from engines.products.request import RequestReader

    index = RecallIndex(catalogue, engine.knowledge)
    reader = RequestReader(engine.knowledge, catalogue.brands, set(index.vocabulary))
    with engine._lock:
        old, engine._vectors, engine._names = engine._vectors, None, None
        engine.catalogue, engine.problems, engine.index, engine.reader = catalogue, catalogue.problems, index, reader
    if old is not None:
        old.close()
        if not engine.wait_for_index:
            engine.start_indexing()
    engine._by_name()


def _hashes(catalogue) -> tuple[str, ...]:
    return tuple(r.rows_hash for r in catalogue.readings)
