"""The HTTP judge against a real OpenAI-compatible server on loopback that these tests start.

The server speaks ``POST /v1/chat/completions`` and plays a script: each request takes the next
step (answer after a delay, HTTP 500, bad JSON). Faults: slow (late, the fused order answers),
hedged (a second copy at 450 ms wins), 500, bad JSON, refused (nothing listening), over the cap.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engines.products.engine import ProductsEngine
from engines.products.http_judge import HttpJudge, judge_from_config
from engines.products.judge import JudgeFailed

ROOT = Path(__file__).resolve().parents[2]
NO_VECTORS = ("code", "lexical", "typo", "words", "kinds")


class ScriptedServer:
    def __init__(self) -> None:
        self.script: list[tuple] = []
        self.seen: list[dict] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.seen.append(body)
                    step = outer.script.pop(0) if outer.script else ("answer", 0.0)
                if step[0] == "status":
                    return self._send(step[1], b'{"error": "boom"}')
                time.sleep(step[1])
                if step[0] == "badjson":
                    content = "this is not json"
                else:
                    n = len(json.loads(body["messages"][1]["content"])["candidates"])
                    # the scripted judge calls every candidate the thing itself but the first
                    content = json.dumps({"labels": [{"i": i, "label": "no" if i == 0 else "exact",
                                                      "confidence": 0.9} for i in range(n)]})
                payload = {"choices": [{"message": {"role": "assistant", "content": content}}]}
                self._send(200, json.dumps(payload).encode())

            def _send(self, status, data):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/chat/completions"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def engine():
    return ProductsEngine(ROOT / "fixtures" / "products")


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


def make_judge(url, tmp_path, cap=100):
    return HttpJudge(url, "test-model", daily_cap=cap, ledger_dir=tmp_path)


def judged(engine, judge, text="laktoositon maito 1 l", limit=5):
    engine.judge = judge
    try:
        return engine.answer(text, limit=limit, sources=NO_VECTORS)
    finally:
        engine.judge = engine.rules_judge
        judge.close()


def test_a_prompt_answer_orders_the_products_and_code_checks_its_labels(engine, server, tmp_path):
    fused_first = engine.answer("laktoositon maito 1 l", limit=1, tiers="exact,recall", sources=NO_VECTORS).hits[0]
    a = judged(engine, make_judge(server.url, tmp_path), limit=40)
    assert a.extras["path"] == "judged" and "http judge" in a.extras["reason"]
    assert len(server.seen) == 1 and server.seen[0]["response_format"]["type"] == "json_schema"
    assert fused_first.id not in [h.id for h in a.hits]  # the judge said "no": never shown
    milks = [h for h in a.hits if h.extras["kind"] == "milk"]
    drinks = [h for h in a.hits if h.extras["kind"] == "plant_drink"]
    assert milks and all(h.extras["label"] == "exact" for h in milks)
    # called "exact" by the judge, but another family than the words name: code relabels it a stand-in
    assert drinks and all(h.extras["label"] == "standin" for h in drinks)
    assert a.hits.index(milks[-1]) < a.hits.index(drinks[0])


def test_slow_answers_miss_the_800_ms_deadline_and_the_fused_order_answers(engine, server, tmp_path):
    # The server answers after 5 s; the judge gives up at its 0.8 s deadline. Its own time is what is
    # checked (recall's time before it once pushed the whole answer past 1.1 s on a loaded CI machine),
    # with room for thread hand-offs but far short of the server's 5 s.
    server.script = [("answer", 5.0), ("answer", 5.0)]
    a = judged(engine, make_judge(server.url, tmp_path))
    assert a.tier("judge").ms < 2000
    assert a.extras["path"] == "fused" and "late" in a.extras["reason"] and "unsure" in a.extras["flags"]
    assert a.hits and a.tier("judge").status == "late"


def test_a_request_unanswered_at_450_ms_is_hedged_and_the_second_copy_wins(engine, server, tmp_path):
    server.script = [("answer", 1.5), ("answer", 0.05)]
    judge = make_judge(server.url, tmp_path)
    a = judged(engine, judge)
    assert a.extras["path"] == "judged" and judge.sent == 2 and len(server.seen) == 2


@pytest.mark.parametrize("step, reason", [(("status", 500), "HTTP 500"), (("badjson", 0.0), "malformed answer")])
def test_server_errors_and_bad_json_fall_back_to_the_fused_order(engine, server, tmp_path, step, reason):
    server.script = [step]
    a = judged(engine, make_judge(server.url, tmp_path))
    assert a.extras["path"] == "fused" and reason in a.extras["reason"]
    assert a.hits and a.tier("judge").status == "failed"


def test_a_refused_connection_falls_back_to_the_fused_order(engine, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    a = judged(engine, make_judge(f"http://127.0.0.1:{port}/v1/chat/completions", tmp_path))
    assert a.extras["path"] == "fused" and "refused" in a.extras["reason"]


def test_over_the_daily_cap_no_request_is_sent(engine, server, tmp_path):
    judge = make_judge(server.url, tmp_path, cap=1)
    assert judge.judge(engine.understand("milk"), engine.products[:3], 0.8)  # the one call the cap allows
    with pytest.raises(JudgeFailed, match="over the daily cap of 1"):
        judge.judge(engine.understand("milk"), engine.products[:3], 0.8)
    again = make_judge(server.url, tmp_path, cap=1)  # the count survives a restart
    a = judged(engine, again)
    assert a.extras["path"] == "fused" and "daily cap" in a.extras["reason"] and len(server.seen) == 1
    judge.close()


def test_no_endpoint_configured_means_no_http_judge(tmp_path):
    assert judge_from_config(tmp_path / "config.toml") == (None, None)
    cfg = tmp_path / "config.toml"
    cfg.write_text('[products.judge]\nurl = "http://127.0.0.1:9/v1/chat/completions"\n')
    judge, problem = judge_from_config(cfg)
    assert judge is None and "needs url and model" in problem
