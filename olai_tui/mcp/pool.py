"""The engines an MCP server answers from: opened from the registry, each over its configured corpus.

An engine opens on the first call that names it, and the others in the background a moment after
the start (reading a corpus takes milliseconds to a second; nothing waits on the model), so the first
call pays for its own engine only. The model is never loaded here: an engine loads it on the first search that asks a tier
needing it. A call whose arguments carry an engine option (code's ``modules``) gets an engine opened
with it, kept for later calls (a few at a time).

``read`` is confined to the configured corpora: an id that is a path leaving the corpus (``..``, an
absolute path, ``~``) is refused before the engine is asked, a path-shaped id that resolves outside
through a symlink is refused before the file is opened, and a passage whose file lies outside is
never returned.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from engines import registry
from engines.answer import Answer

# A search that asks a model tier while its index builds waits this long for it, then answers with
# what is there (evidence tiers, `indexing done/of`): clients time out after 10-60 s; this stays
# far under that. The demo notebook's index, cached, is ready in ~0.3 s.
INDEX_GRACE_S = 1.5
# Opening all three demo engines at the start cost the first answer ~0.2 s of CPU on 2 cores (notes
# 0.11 s, code 0.06 s, products 0.14 s, beside 0.42 s importing the SDK): the ones not yet asked for
# open this long after the start instead.
PREOPEN_DELAY_S = 1.0
OPTION_ENGINES = 4  # engines opened with options (installed modules) kept open at once
_DRIVE = re.compile(r"^[A-Za-z]:")


class Refused(ValueError):
    """A call this server will not serve; the message is one line."""


class Slot:
    """One open (or opening) engine with the corpus it may read from and a lock for its searches."""

    def __init__(self, name: str, corpus: Path | None, options: dict[str, Any]) -> None:
        self.name, self.corpus, self.options = name, corpus, options
        self.future: Future = Future()
        self.lock = threading.Lock()  # engines are searched from one thread at a time, as in the app
        self.watcher = None
        self._opening = threading.Lock()
        self._started = False

    def ensure_open(self) -> None:
        """Open the engine now unless another thread already is (then its result is awaited)."""
        with self._opening:
            if self._started:
                return
            self._started = True
        self.open()

    def open(self) -> None:
        try:
            engine = registry.open_engine(self.name, self.corpus, **self.options)
        except Exception as exc:  # noqa: BLE001 - a corpus that cannot be read is reported per call
            self.future.set_exception(exc)
            return
        if self.corpus is None and not self.options:
            self.corpus = registry.spec(self.name).default_corpus()
        try:
            self.watcher = engine.watch()  # edits to the corpus show on the next call
        except Exception:  # noqa: BLE001 - no watcher: answers as of the last read
            self.watcher = None
        self.future.set_result(engine)

    def engine(self, timeout: float | None = None):
        self.ensure_open()
        try:
            return self.future.result(timeout)
        except TimeoutError:
            raise  # still opening, not refused: status says "opening" (it said "products: TimeoutError")
        except Exception as exc:  # noqa: BLE001
            raise Refused(f"{self.name}: {_one_line(exc)}") from exc


class Pool:
    def __init__(self, corpora: dict[str, Path | None]) -> None:
        self.slots = {name: Slot(name, corpora.get(name), {}) for name in registry.names()}
        self._optioned: OrderedDict[tuple, Slot] = OrderedDict()
        self._lock = threading.Lock()

    def start(self) -> None:
        def preopen() -> None:
            time.sleep(PREOPEN_DELAY_S)
            for slot in list(self.slots.values()):
                slot.ensure_open()

        threading.Thread(target=preopen, name="open-engines", daemon=True).start()

    def slot(self, name: str, options: dict[str, Any]) -> Slot:
        given = {k: v for k, v in options.items() if v not in (None, [], ())}
        if not given:
            return self.slots[name]
        known = {o.name for o in registry.spec(name).options}
        for key in given:
            if key not in known:
                raise Refused(f"{key}: {name} takes no such option"
                              + (f" (its options: {', '.join(sorted(known))})" if known else ""))
        key = (name, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in given.items())))
        with self._lock:
            slot = self._optioned.get(key)
            if slot is None:
                slot = Slot(name, self.slots[name].corpus, given)
                self._optioned[key] = slot
                fresh = True
                while len(self._optioned) > OPTION_ENGINES:
                    _, old = self._optioned.popitem(last=False)
                    _close(old)
            else:
                fresh = False
                self._optioned.move_to_end(key)
        if fresh:
            slot.ensure_open()
        return slot

    # -- the three tools ----------------------------------------------------------------------------
    def search(self, name: str, query: str, limit: int, tiers: list[str] | None,
               options: dict[str, Any]) -> tuple[Answer, Any]:
        slot = self.slot(name, options)
        engine = slot.engine()
        if tiers is not None:
            for tier in tiers:
                if tier not in engine.tiers:
                    raise Refused(f"search: tiers: {name} has no tier {tier!r} (its tiers: {', '.join(engine.tiers)})")
        wanted = tuple(tiers) if tiers is not None else tuple(engine.default_tiers)
        engine.wait_for(wanted, INDEX_GRACE_S)
        with slot.lock:
            answer = engine.collect(query, engine.search(query, limit=limit, tiers=wanted))
        return answer, engine

    def read(self, name: str, item_id: str, options: dict[str, Any]):
        _refuse_leaving(item_id)
        slot = self.slot(name, options)
        engine = slot.engine()
        roots = _roots(slot, engine)
        # An id that names a file under the corpus (notes: its path; code: path::symbol) is checked
        # before the engine opens anything: a symlink out of the corpus is refused here.
        path_part = item_id.split("::", 1)[0].split("#", 1)[0]
        for candidate in {path_part, path_part.rsplit(":", 1)[0]}:
            for root in roots:
                target = Path(root) / candidate
                if candidate and os.path.isdir(root) and os.path.lexists(target) and not _inside(target, roots):
                    raise Refused(f"read: refused {_short(item_id)}: it leads outside the corpus (a link out of it)")
        try:
            passage = engine.read(item_id)
        except KeyError:
            raise Refused(f"read: {name} has no item {_short(item_id)} (ids come from search)") from None
        if passage.path and not _inside(Path(passage.path), roots):
            raise Refused(f"read: refused {_short(item_id)}: its file lies outside the configured corpus")
        return passage

    def status(self, names: list[str]) -> list[tuple[str, Any, Any, str | None]]:
        out = []
        for name in names:
            slot = self.slots[name]
            try:
                engine = slot.engine(timeout=0.5)
            except Refused as exc:
                out.append((name, None, None, str(exc)))
                continue
            except Exception:  # noqa: BLE001 - still opening (a large corpus): say so, never block
                out.append((name, None, None, f"{name}: opening {slot.corpus}"))
                continue
            out.append((name, engine, engine.status(), None))
        return out

    def close(self) -> None:
        for slot in [*self.slots.values(), *self._optioned.values()]:
            _close(slot)


def _refuse_leaving(item_id: str) -> None:
    if "\x00" in item_id:
        raise Refused("read: refused an id holding a NUL byte")
    path = item_id.replace("\\", "/")
    if path.startswith(("/", "~")) or _DRIVE.match(path) or ".." in path.split("/"):
        raise Refused(f"read: refused {_short(item_id)}: ids are relative to the corpus "
                      "('..', absolute paths and ~ lead out of it)")


def _roots(slot: Slot, engine) -> list[str]:
    """The real paths a read may touch: the engine's own roots where it names them, else the corpus."""
    roots = [Path(r) for r in engine.roots()] or ([slot.corpus] if slot.corpus is not None else [])
    if not roots:
        raise Refused(f"read: {slot.name} opened with {', '.join(slot.options)} names no corpus folder to confine reads to")
    return [os.path.realpath(r) for r in roots]


def _inside(path: Path, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _close(slot: Slot) -> None:
    try:
        if slot.watcher is not None:
            slot.watcher.stop()
        if slot.future.done() and slot.future.exception() is None:
            slot.future.result().close()
    except Exception:  # noqa: BLE001 - closing on the way out: nothing left to tell
        pass


def _short(text: str, width: int = 80) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]
