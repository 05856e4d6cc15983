"""`smart_http` in the food evaluation: run only when the user configured an endpoint, against a real
OpenAI-compatible server on loopback that this test starts; without one, asking for it says how to enable it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engines.eval.catalogue import default_configs
from olai_tui.errors import UsageError
from olai_tui.evaluate import evaluate


class LabellingServer:
    """Labels every candidate of every request 'exact' but the first, which it calls 'no'."""

    def __init__(self) -> None:
        self.calls = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.calls += 1
                n = len(json.loads(body["messages"][1]["content"])["candidates"])
                content = json.dumps({"labels": [{"i": i, "label": "no" if i == 0 else "exact", "confidence": 0.9}
                                                 for i in range(n)]})
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/chat/completions"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_without_an_endpoint_smart_http_is_not_run_and_asking_for_it_says_how(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert "smart_http" not in default_configs("products", "food")
    with pytest.raises(UsageError, match=r"smart_http: no judge endpoint configured.*\[products.judge\]"):
        evaluate("products", "food", "smart_http", "dev", True, False)


def test_with_an_endpoint_smart_http_runs_beside_smart_through_the_same_scoring(tmp_path, monkeypatch, capsys):
    server = LabellingServer()
    try:
        config = tmp_path / "config" / "olai-tui" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(f'[products.judge]\nurl = "{server.url}"\nmodel = "test-model"\n')
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        assert default_configs("products", "food")[-1] == "smart_http"
        assert evaluate("products", "food", "smart,smart_http", "heldout", True, True) == 0
        out = json.loads(capsys.readouterr().out)
    finally:
        server.close()
    requests = out["configs"]["smart"]["metrics"]["requests"]
    assert server.calls >= requests - 10, "every request with candidates went to the endpoint"
    http = out["configs"]["smart_http"]["metrics"]
    assert http["requests"] == requests and 0.0 <= http["right_first"] <= 1.0
    # this judge calls the best candidate "no": smart_http's first product differs from smart's
    first = [(r["configs"]["smart"]["top"][:1], r["configs"]["smart_http"]["top"][:1]) for r in out["requests"]]
    assert sum(a != b for a, b in first if a and b) > requests // 2
    # hard rules come before any judge: whatever the endpoint says, no shown product breaks a stated rule
    assert http["dropped"] == 0
