"""A table of declarations by key, safe to change from any thread: the registry's engines, the
evaluation's benches and datasets. Kept in the order declared (the workbench's panes, left to right)."""

from __future__ import annotations

import threading
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Declared(Generic[K, V]):
    def __init__(self) -> None:
        self._items: dict[K, V] = {}
        self._lock = threading.Lock()

    def declare(self, key: K, item: V) -> V:
        with self._lock:
            self._items[key] = item
        return item

    def forget(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._items)

    def values(self) -> list[V]:
        with self._lock:
            return list(self._items.values())
