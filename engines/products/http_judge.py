"""The HTTP judge: any OpenAI-compatible ``/v1/chat/completions`` endpoint labels the candidates.

Configured, never by default: text leaves the process only when the user names an endpoint in
``$XDG_CONFIG_HOME/olai-tui/config.toml``::

    [products.judge]
    url = "http://127.0.0.1:8000/v1/chat/completions"   # llama-cpp-python's server, or a hosted one
    model = "qwen2.5-1.5b-instruct"
    key_env = "OPENAI_API_KEY"      # the variable holding the key (none for a local server)
    daily_cap = 500                 # calls a day; over it, the fused ranking answers

llama-cpp-python's own server speaks this protocol: ``pip install 'llama-cpp-python[server]'`` then
``python -m llama_cpp.server --model MODEL.gguf --port 8000``.

One request carries the words and the candidates; the answer is a JSON object (asked for with a
JSON schema) labelling each candidate. A request still unanswered at 450 ms is sent once more
(hedged); whichever answers first within 800 ms wins. Late, refused, an HTTP error, malformed JSON,
over the daily cap: ``JudgeFailed`` with the reason, and the engine answers with the fused order.
Repeated failures open a breaker (engines/breaker.py): no call for a while, then one probe; a 429's
Retry-After is obeyed the same way. An answer over ``MAX_ANSWER_BYTES``, or one still trickling in at
the deadline, is dropped unread.
"""

from __future__ import annotations

import concurrent.futures as futures
import datetime as dt
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import httpx

from engines.breaker import Breaker
from engines.products.catalogue import Product
from engines.products.judge import LABELS, JudgeFailed, Judgement
from engines.products.request import Request

HEDGE_AFTER_S = 0.45  # issue 5: a request still unanswered at 450 ms is sent once more
DEADLINE_S = 0.80  # everything inside 800 ms
DAILY_CAP = 500
# 40 candidates labelled with confidences is ~2.5 KB of JSON; a body 400 times that is not an answer
# (a 10 MB body was read whole and parsed before this cap).
MAX_ANSWER_BYTES = 1 << 20

SYSTEM = ("You label shop products against a buyer's request. For each candidate answer one label: "
          "'exact' (it is the thing asked for), 'variant' (the thing, in another form, flavour or pack), "
          "'standin' (another thing that can do the same job), 'no' (not it). Hard rules (claims, allergens) "
          "are already applied; judge only what the thing is. Answer JSON only.")
SCHEMA = {
    "type": "object",
    "properties": {"labels": {"type": "array", "items": {
        "type": "object",
        "properties": {"i": {"type": "integer"}, "label": {"type": "string", "enum": list(LABELS)},
                       "confidence": {"type": "number"}},
        "required": ["i", "label", "confidence"]}}},
    "required": ["labels"],
}


def _httpx():
    """httpx, imported when a judge is first made: importing it loads rich (its command line's), which
    the engines never load otherwise (tests/engines/test_import_graph.py)."""
    import httpx

    return httpx


def judge_from_config(path: Path | None = None) -> tuple["HttpJudge | None", str | None]:
    """(the configured HTTP judge or None, a one-line problem with the config or None)."""
    from engines.settings import read_config

    config = read_config(path)
    if config.problem:
        return None, f"{config.path}: {config.problem}; the rules judge answers"
    path, section = config.path, config.section("products", "judge")
    if not section:
        return None, None
    if not isinstance(section, dict) or not section.get("url") or not section.get("model"):
        return None, f"{path}: [products.judge] needs url and model; the rules judge answers"
    key = os.environ.get(section["key_env"]) if section.get("key_env") else None
    return HttpJudge(section["url"], section["model"], api_key=key,
                     daily_cap=int(section.get("daily_cap", DAILY_CAP))), None


class CallLedger:
    """Calls made today, kept in a small file so the cap holds across runs (in memory when unwritable)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._day, self._count = "", 0

    def _file(self, day: str) -> Path | None:
        return self.directory / f"judge-calls-{day}.txt" if self.directory else None

    def count(self) -> int:
        day = dt.date.today().isoformat()
        with self._lock:
            if day != self._day:
                self._day, self._count = day, 0
                file = self._file(day)
                try:
                    self._count = int(file.read_text().strip() or 0) if file and file.exists() else 0
                except (OSError, ValueError):
                    self._count = 0
            return self._count

    def add(self, n: int = 1) -> None:
        self.count()
        with self._lock:
            self._count += n
            file = self._file(self._day)
            if file is not None:
                try:
                    file.parent.mkdir(parents=True, exist_ok=True)
                    tmp = file.with_suffix(".tmp")
                    tmp.write_text(str(self._count))
                    os.replace(tmp, file)
                except OSError:
                    pass


class HttpJudge:
    name = "http"

    def __init__(self, url: str, model: str, api_key: str | None = None, hedge_after_s: float = HEDGE_AFTER_S,
                 deadline_s: float = DEADLINE_S, daily_cap: int = DAILY_CAP, ledger_dir: Path | None = None) -> None:
        self.url = url
        self.model = model
        self.hedge_after_s = hedge_after_s
        self.deadline_s = deadline_s
        self.daily_cap = daily_cap
        if ledger_dir is None:
            from engines.locations import cache_root

            ledger_dir = cache_root()
        self.ledger = CallLedger(ledger_dir)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # a pool kept warm: the second request of a session skips the TCP (and TLS) handshake
        self.client = _httpx().Client(headers=headers, limits=_httpx().Limits(max_keepalive_connections=4,
                                                                       keepalive_expiry=60.0))
        self.pool = futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="olai-judge")
        self.sent = 0  # requests sent by this judge (a hedge counts as one more)
        self.breaker = Breaker()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.client.close()

    def judge(self, request: Request, candidates: Sequence[Product], deadline_s: float | None = None) -> list[Judgement]:
        if not candidates:
            return []
        deadline_s = min(deadline_s or self.deadline_s, self.deadline_s)
        if self.ledger.count() >= self.daily_cap:
            raise JudgeFailed(f"over the daily cap of {self.daily_cap} calls")
        refusal = self.breaker.refusal()
        if refusal:
            raise JudgeFailed(refusal)
        try:
            labels = self._judge(request, candidates, deadline_s)
        except JudgeFailed as exc:
            self.breaker.failed(exc.reason)
            raise
        self.breaker.succeeded()
        return labels

    def _judge(self, request: Request, candidates: Sequence[Product], deadline_s: float) -> list[Judgement]:
        body = self._body(request, candidates)
        started = time.monotonic()
        pending = {self._send(body, deadline_s)}
        failures: list[str] = []
        hedged = False
        while pending:
            left = deadline_s - (time.monotonic() - started)
            if left <= 0:
                break
            wait = min(left, self.hedge_after_s - (time.monotonic() - started)) if not hedged else left
            done, pending = futures.wait(pending, timeout=max(wait, 0.0), return_when=futures.FIRST_COMPLETED)
            for f in done:
                outcome = f.result()
                if isinstance(outcome, str):
                    failures.append(outcome)
                else:
                    return self._labels(outcome, len(candidates))
            if not hedged and time.monotonic() - started >= self.hedge_after_s:
                hedged = True  # once: a second copy, only while the first is still out and the cap allows
                if pending and self.ledger.count() < self.daily_cap:
                    pending.add(self._send(body, deadline_s - (time.monotonic() - started)))
        if failures and not pending:
            raise JudgeFailed(failures[0])
        raise JudgeFailed(f"late: no answer within {int(deadline_s * 1000)} ms")

    def _send(self, body: dict, timeout_s: float) -> futures.Future:
        self.ledger.add(1)
        self.sent += 1
        return self.pool.submit(self._post, body, max(timeout_s, 0.01))

    def _post(self, body: dict, timeout_s: float):
        """The answer's JSON content (a dict), or a one-line reason it has none."""
        started = time.monotonic()
        try:
            with self.client.stream("POST", self.url, json=body, timeout=timeout_s) as response:
                if response.status_code == 429:
                    return self._asked_to_wait(response)
                if response.status_code != 200:
                    return f"HTTP {response.status_code} from {self.url}"
                data = bytearray()
                # httpx's read timeout is per read: a body trickling a byte at a time never trips it
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > MAX_ANSWER_BYTES:
                        return f"answer over {MAX_ANSWER_BYTES // 1024} KB from {self.url}: dropped unread"
                    if time.monotonic() - started > timeout_s:
                        return f"late: the answer was still trickling in after {int(timeout_s * 1000)} ms"
        except _httpx().ConnectError as exc:
            if _lookup_failed(exc):
                return f"no address for {_httpx().URL(self.url).host}: the name lookup failed"
            return f"refused: {self.url} ({exc.__class__.__name__})"
        except _httpx().TimeoutException as exc:
            return f"late: no answer within {int(timeout_s * 1000)} ms ({exc.__class__.__name__})"
        except _httpx().HTTPError as exc:
            return f"failed: {exc.__class__.__name__}: {exc}"
        try:
            content = json.loads(bytes(data))["choices"][0]["message"]["content"]
            return json.loads(content)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            return f"malformed answer: {exc.__class__.__name__}"

    def _asked_to_wait(self, response: httpx.Response) -> str:
        """A 429: obey its Retry-After (seconds; an HTTP date or nothing reads as the breaker's pause)."""
        try:
            seconds = float(response.headers.get("Retry-After", ""))
        except ValueError:
            seconds = self.breaker.open_s
        reason = f"HTTP 429 from {self.url}: asked to wait {seconds:.0f} s"
        self.breaker.wait(seconds, reason)
        return reason

    def _body(self, request: Request, candidates: Sequence[Product]) -> dict:
        rows = [{"i": i, "name": p.name, "brand": p.brand, "kind": p.kinds[0] if p.kinds else None,
                 "quantity": str(p.quantity) if p.quantity else None} for i, p in enumerate(candidates)]
        user = json.dumps({"request": request.text[:300], "understood": request.understood(), "candidates": rows},
                          ensure_ascii=False)
        return {"model": self.model, "temperature": 0,
                "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
                "response_format": {"type": "json_schema", "json_schema": {"name": "labels", "schema": SCHEMA}}}

    @staticmethod
    def _labels(answer, n: int) -> list[Judgement]:
        try:
            items = answer["labels"]
            out = [Judgement("no", 0.0, "not labelled by the judge") for _ in range(n)]
            for item in items:
                i, label = int(item["i"]), str(item["label"])
                if label not in LABELS or not 0 <= i < n:
                    raise ValueError(f"label {label!r} for candidate {i}")
                out[i] = Judgement(label, float(item.get("confidence", 0.5)), "the http judge")
            return out
        except (KeyError, TypeError, ValueError) as exc:
            raise JudgeFailed(f"malformed answer: {exc}") from None


def _lookup_failed(exc: BaseException) -> bool:
    """Whether a connect error was a failed name lookup (socket.gaierror somewhere in its chain)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, socket.gaierror):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
