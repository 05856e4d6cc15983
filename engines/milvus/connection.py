"""One client of its own to one Milvus, and what a search resolved through it (the published pointer
read and checked), both dropped after a failure so the next search reconnects and reads them again."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engines.milvus.versions import new_client


class MilvusConnection:
    def __init__(self, uri: str, token: str | None = None, workers: int = 2,
                 name: str = "olai-milvus-search") -> None:
        self.uri = uri
        self.token = token
        self._client = None
        self._resolved: Any = None
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)

    def _resolve(self, client, timeout: float) -> Any:
        """What the searches need to know first (which collection or versions); raises when Milvus
        cannot answer for what is open here."""
        raise NotImplementedError

    def _connect(self, timeout: float) -> tuple[Any, Any]:
        """(the client, what ``_resolve`` found), made on first use and kept until a failure."""
        with self._lock:
            if self._client is None:
                self._client = new_client(self.uri, self.token, timeout)
            client = self._client
            if self._resolved is None:
                self._resolved = self._resolve(client, timeout)
            return client, self._resolved

    def forget(self) -> None:
        """After a failure: reconnect and resolve again next time (a pointer may have moved)."""
        with self._lock:
            client, self._client, self._resolved = self._client, None, None
        if client is not None:  # closed aside: a channel to a stalled server may take its time to close
            threading.Thread(target=_close_quietly, args=(client,), name="olai-milvus-close", daemon=True).start()

    def close(self) -> None:
        self.forget()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _close_quietly(client) -> None:
    try:
        client.close()
    except Exception:  # noqa: BLE001 - it is being thrown away
        pass
