"""Targets for the fleet collector's tests, all on 127.0.0.1:

- ``GoTarget``: the Go program ``producers/pprofserver`` (``net/http/pprof``,
  with a custom profile ``fixed`` whose samples never change), built with
  Debian's Go into ``build/test-bin/``; it can be killed and started again on
  the same port;
- ``SilentServer``: a socket that accepts connections and never answers;
- ``FixedServer``: a Python HTTP server answering every path with the same
  profile bytes, after an optional delay, counting requests per path and the
  most it served at once; paths can be told to fail (``fail``: status and how
  many times)."""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Dict, Optional, Tuple

from testenv import REPO, go_build_once

SOURCE = REPO / "tests" / "producers" / "pprofserver"
BIN = REPO / "build" / "test-bin" / "pprofserver"


def go_missing() -> Optional[str]:
    """Why the Go target cannot be built here, or None."""
    return None if shutil.which("go") else "needs Debian's Go (apt-get install golang-go)"


def go_binary() -> str:
    """The built ``pprofserver`` (rebuilt when its source is newer)."""
    return go_build_once(BIN, list(SOURCE.glob("*.go")), SOURCE, dict(os.environ, GO111MODULE="off", GOFLAGS=""))


class GoTarget:
    """A running ``pprofserver``; ``addr`` is its ``127.0.0.1:PORT``."""

    def __init__(self, addr: str = "127.0.0.1:0") -> None:
        self.proc = subprocess.Popen([go_binary(), addr], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening "):
            self.proc.kill()
            raise RuntimeError(f"pprofserver did not start: {line!r} {self.proc.stderr.read()}")
        self.addr = line.split()[1]

    def url(self, profile: str) -> str:
        return f"http://{self.addr}/debug/pprof/{profile}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def restart(self) -> "GoTarget":
        """A new process on the same port (Go's listener reuses the address)."""
        self.kill()
        for _ in range(50):
            try:
                return GoTarget(self.addr)
            except RuntimeError:
                time.sleep(0.1)  # the port not free yet
        return GoTarget(self.addr)


class SilentServer:
    """Accepts connections and never answers; ``addr`` is ``127.0.0.1:PORT``."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.addr = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.held: list = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)  # kept open, never read from or written to

    def close(self) -> None:
        self.sock.close()
        for c in self.held:
            c.close()


class FixedServer:
    """Serves ``body`` at every path after ``delay`` seconds."""

    def __init__(self, body: bytes, delay: float = 0.0) -> None:
        self.body, self.delay = body, delay
        self.requests: Counter = Counter()
        self.fail: Dict[str, Tuple[int, int]] = {}  # path: (status, times)
        self.active = self.most = 0
        self.lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                path = self.path.split("?")[0]
                with owner.lock:
                    owner.requests[path] += 1
                    owner.active += 1
                    owner.most = max(owner.most, owner.active)
                    status, times = owner.fail.get(path, (200, 0))
                    if times:
                        owner.fail[path] = (status, times - 1)
                try:
                    time.sleep(owner.delay)
                    with owner.lock:  # answered: the client may send its next request before this thread ends
                        owner.active -= 1
                    if times:
                        self.send_error(status)
                        return
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(owner.body)))
                    self.end_headers()
                    self.wfile.write(owner.body)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.addr = "127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://{self.addr}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def example_bytes() -> bytes:
    import pprofcore

    return Path(pprofcore.example_path()).read_bytes()
