"""Nothing leaves the machine: the suite-wide guard (tests/conftest.py) refuses and records any
connection or name lookup that is not loopback, and every engine answers with every tier on under it.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engines.answer import collect
from engines.code.engine import CodeEngine
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"



# -- the guard itself: it must refuse, and refusing must fail the test --------------------------------
@pytest.mark.parametrize("address", [("192.0.2.1", 9), ("2001:db8::1", 9, 0, 0)])
def test_a_connection_off_the_machine_is_refused_and_recorded(no_egress, address):
    no_egress.expect()
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        with pytest.raises(ConnectionRefusedError, match="no-egress guard"):
            s.connect(address)
        assert s.connect_ex(address) != 0
    assert len(no_egress.attempts) == 2 and address[0] in no_egress.attempts[0]


def test_a_name_lookup_off_the_machine_is_refused_and_recorded(no_egress):
    no_egress.expect()
    with pytest.raises(socket.gaierror, match="no-egress guard"):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(OSError):  # the stdlib's own client path goes through the same lookup
        urllib.request.urlopen("http://example.com/", timeout=1)
    assert len(no_egress.attempts) == 2


def test_a_datagram_off_the_machine_is_refused(no_egress):
    no_egress.expect()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        with pytest.raises(ConnectionRefusedError):
            s.sendto(b"x", ("192.0.2.1", 53))
    assert no_egress.attempts == ["datagram to ('192.0.2.1', 53)"]


def test_a_swallowed_refusal_still_fails_the_test(tmp_path):
    # The guard records the attempt even when the code under test catches the error: a pytest of its
    # own, in a subprocess, with this suite's conftest.
    (tmp_path / "conftest.py").write_text((Path(__file__).parents[1] / "conftest.py").read_text())
    (tmp_path / "test_swallows.py").write_text(
        "import socket\n"
        "def test_swallows():\n"
        "    try:\n"
        "        socket.create_connection(('192.0.2.1', 9), timeout=0.5)\n"
        "    except OSError:\n"
        "        pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed, 1 error" in run.stdout and "tried to leave the machine" in run.stdout, run.stdout


def test_loopback_servers_the_test_starts_are_reachable(no_egress):
    class Hello(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for host in ("127.0.0.1", "localhost"):
            with urllib.request.urlopen(f"http://{host}:{server.server_address[1]}/", timeout=5) as reply:
                assert reply.read() == b"ok"
    finally:
        server.shutdown()
        server.server_close()
    assert no_egress.attempts == []


# -- every engine, every tier on, under the guard ---------------------------------------------------
def test_notes_answers_with_both_tiers_under_the_guard(no_egress, embedder):
    engine = NotesEngine(FIXTURES / "notes", embedder=embedder, wait_for_index=True)
    try:
        answer = collect("notes", "protecting young plants from snails",
                         engine.search("protecting young plants from snails", 10, ("exact", "semantic")))
    finally:
        engine.close()
    assert answer.tier("semantic").status == "answered", answer.to_json()
    assert any(h.tier == "semantic" for h in answer.hits)
    json.dumps(answer.to_json())
    assert no_egress.attempts == []


def test_code_answers_with_both_tiers_under_the_guard(no_egress, embedder, tmp_path):
    engine = CodeEngine(FIXTURES / "code", embedder=embedder, cache_dir=str(tmp_path / "cache"), wait_for_index=True,
                        remote_endpoint="https://embeddings.example.com/v1")
    try:
        answer = collect("code", "where do we throttle requests",
                         engine.search("where do we throttle requests", 10, ("lexical", "embedding")))
    finally:
        engine.close()
    assert {t.name: t.status for t in answer.tiers} == {"lexical": "answered", "embedding": "answered"}
    assert no_egress.attempts == [], "the configured remote endpoint was never called"


def test_products_answers_with_every_tier_and_source_under_the_guard(no_egress, embedder, tmp_path):
    engine = ProductsEngine(FIXTURES / "products", embedder=embedder, cache_dir=str(tmp_path / "cache"),
                            wait_for_index=True)
    try:
        answer = engine.answer("laktoositon maito 1 l", limit=10)
    finally:
        engine.close()
    assert {t.name: t.status for t in answer.tiers} == {"exact": "empty", "recall": "answered", "judge": "answered"}
    assert answer.extras["sources"]["vectors"]["status"] in ("answered", "empty")
    assert no_egress.attempts == []
