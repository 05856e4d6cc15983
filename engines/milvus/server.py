"""milvus-lite's own Milvus binary on loopback: started, stalled, resumed and stopped by its PID.

The ``milvus-lite`` wheel ships Milvus's engine as ``milvus_lite/lib/milvus``; run as
``LD_LIBRARY_PATH=$lib $lib/milvus DATA.db 127.0.0.1:PORT ERROR`` it serves the Milvus gRPC API on
that port, and pymilvus talks to it over the network like to a cluster. The package's own Python
side is not imported (it imports pkg_resources, deprecated); only the binary's location is read.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

START_WAIT_S = 30.0  # the binary answers in ~0.3 s on 2 shared cores; a busy machine gets slack


class MilvusLiteMissing(Exception):
    """milvus-lite is not installed (pip install -e '.[milvus]')."""


def binary_folder() -> Path:
    spec = importlib.util.find_spec("milvus_lite")
    if spec is None or not spec.submodule_search_locations:
        raise MilvusLiteMissing("milvus-lite is not installed (pip install -e '.[milvus]')")
    lib = Path(list(spec.submodule_search_locations)[0]) / "lib"
    if not (lib / "milvus").is_file():
        raise MilvusLiteMissing(f"no milvus binary under {lib}")
    return lib


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalMilvus:
    """One Milvus process on 127.0.0.1 over one data file; ``uri`` for pymilvus."""

    def __init__(self, data_file: str | os.PathLike, port: int | None = None) -> None:
        self.data_file = Path(data_file)
        self.port = port or free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self) -> "LocalMilvus":
        lib = binary_folder()
        env = dict(os.environ, LD_LIBRARY_PATH=f"{lib}:{os.environ.get('LD_LIBRARY_PATH', '')}")
        self.data_file.parent.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen([str(lib / "milvus"), str(self.data_file), f"127.0.0.1:{self.port}", "ERROR"],
                                        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + START_WAIT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"milvus exited with status {self.process.returncode} on start")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"milvus did not listen on 127.0.0.1:{self.port} within {START_WAIT_S:.0f} s")

    def stall(self) -> None:
        """SIGSTOP: the socket stays open, nothing answers (a hung server, not a dead one)."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process and self.process.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if not self.process or self.process.poll() is not None:
            return
        os.kill(self.pid, signal.SIGCONT)  # a stalled process cannot act on SIGTERM
        os.kill(self.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self) -> "LocalMilvus":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
