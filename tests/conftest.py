"""Shared test settings: no test reads or writes the user's own cache, config or data, and no test talks to
anything but loopback.

The no-egress guard (issue 7) wraps every test: a socket connect (or UDP send) to an address that is
not loopback, or a name lookup of a host that is not loopback, is refused with an OSError *and*
recorded; a test with a refused attempt fails at teardown even when the code under test swallowed
the error. Loopback servers a test starts (the HTTP judge's) are untouched. A test that means to
provoke a refused lookup (a judge URL whose DNS fails) takes ``no_egress`` and calls ``expect()``.
"""

from __future__ import annotations

import ipaddress
import socket
import threading

import pytest

_SOCKET = socket.socket  # the class, kept: a test may swap the module's name for a function
_REAL_GETADDRINFO = socket.getaddrinfo
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


@pytest.fixture(autouse=True, scope="session")
def _private_cache_and_config(tmp_path_factory):
    # One cache for the session: the demo notebook is embedded once, not once per test. Tests
    # that need a cold cache give their engine a cache_dir of their own.
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    mp.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    mp.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))  # a person's grades and runs
    mp.delenv("OLAI_RECALL", raising=False)
    mp.delenv("OLAI_EMBED_MODEL", raising=False)
    yield
    mp.undo()


@pytest.fixture(scope="session")
def embedder():
    """The real model, loaded once for the whole run (loading it is most of a cold start): every test
    that embeds asks for this one instead of building its own."""
    from tests.snapshot_app import shared_embedder

    return shared_embedder()


def is_loopback_host(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None:
        return True  # getaddrinfo(None, port): the local wildcard, what a server binds
    host = str(host).strip("[]").split("%")[0].lower().rstrip(".")
    if host in _LOOPBACK_NAMES or host == "":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name that is not loopback's: its lookup would leave the machine
    return address.is_loopback or address.is_unspecified or (
        address.version == 6 and address.ipv4_mapped is not None and address.ipv4_mapped.is_loopback)


class EgressGuard:
    """What the guard refused in this test, and the switch for a test that provokes a refusal."""

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self.expected = False
        self._lock = threading.Lock()

    def expect(self) -> None:
        """This test provokes refused attempts on purpose (and asserts on ``attempts`` itself)."""
        self.expected = True

    def refuse(self, what: str, error: type[OSError] = ConnectionRefusedError) -> OSError:
        with self._lock:
            self.attempts.append(what)
        if error is socket.gaierror:
            return socket.gaierror(socket.EAI_NONAME, f"no-egress guard: lookup of {what} refused")
        return error(f"no-egress guard: {what} is not loopback; tests never leave the machine")


@pytest.fixture(autouse=True)
def no_egress(monkeypatch):
    guard = EgressGuard()
    real_connect, real_connect_ex, real_sendto = _SOCKET.connect, _SOCKET.connect_ex, _SOCKET.sendto

    def allowed(sock, address) -> bool:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return True  # AF_UNIX (asyncio's self-pipe, socketpair) never leaves the machine
        return is_loopback_host(address[0] if isinstance(address, tuple) else address)

    def connect(self, address):
        if not allowed(self, address):
            raise guard.refuse(f"connect to {address!r}")
        return real_connect(self, address)

    def connect_ex(self, address):
        if not allowed(self, address):
            guard.refuse(f"connect to {address!r}")
            return 111  # ECONNREFUSED, as connect_ex reports it
        return real_connect_ex(self, address)

    def sendto(self, data, *args):
        address = args[-1]
        if not allowed(self, address):
            raise guard.refuse(f"datagram to {address!r}")
        return real_sendto(self, data, *args)

    def getaddrinfo(host, *args, **kwargs):
        if not is_loopback_host(host):
            raise guard.refuse(f"{host!r}", socket.gaierror)
        return _REAL_GETADDRINFO(host, *args, **kwargs)

    monkeypatch.setattr(_SOCKET, "connect", connect)
    monkeypatch.setattr(_SOCKET, "connect_ex", connect_ex)
    monkeypatch.setattr(_SOCKET, "sendto", sendto)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield guard
    if guard.attempts and not guard.expected:
        pytest.fail(f"the test tried to leave the machine: {guard.attempts}", pytrace=False)


@pytest.fixture(autouse=True)
def no_terminal_app(monkeypatch):
    """A test that starts a Textual app on the terminal fails at once rather than waiting forever for keys
    (a loaded CI run once hung so: run_app drew the workbench when a refusal came after its wait).
    Pilot tests drive apps through ``run_test``; snapshot tests run them headless."""
    from textual.app import App

    run = App.run

    def refuse(self, *args, **kwargs):
        if not kwargs.get("headless"):
            raise RuntimeError(f"a test started {type(self).__name__} on the terminal (App.run); use run_test")
        return run(self, *args, **kwargs)

    monkeypatch.setattr(App, "run", refuse)
