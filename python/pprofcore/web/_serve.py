"""Running the explorer: pprof's ``-http=[HOST]:PORT`` address, uvicorn, the
URL printed and (unless ``no_browser``) opened, as ``go tool pprof -http`` does."""

from __future__ import annotations

import socket
import sys
from typing import Tuple

from ._app import create_app
from ._session import Session


def parse_address(address: str) -> Tuple[str, int]:
    """pprof's ``[HOST]:PORT`` (``:8080``, ``localhost:0``, ``:``, ``[::1]:9000``);
    no host means 127.0.0.1 and no port a free one."""
    host, sep, port = address.rpartition(":")
    if not sep:
        raise ValueError(f"-http needs HOST:PORT, got {address!r}")
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port) if port else 0
    except ValueError:
        raise ValueError(f"-http: bad port {port!r}") from None
    if not 0 <= number <= 65535:
        raise ValueError(f"-http: port {number} is out of range")
    return host, number


def url_of(host: str, port: int, query: str = "") -> str:
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/ui/" + (f"?{query}" if query else "")


def serve(session: Session, address: str = "127.0.0.1:0", *, open_browser: bool = True, out=None) -> None:
    """Serves ``session`` until interrupted: binds ``address``, prints
    "Serving web UI on URL", opens the browser unless told not to."""
    import uvicorn

    host, port = parse_address(address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)  # connections wait in the backlog from the moment the URL is printed
    port = sock.getsockname()[1]
    url = url_of(host, port, session.initial.to_query())
    app = create_app(session, bind_host=host)
    print(f"Serving web UI on {url}", file=out or sys.stderr, flush=True)
    if open_browser:
        import webbrowser  # on use: it imports subprocess and shlex at start-up

        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    server.run(sockets=[sock])


def start_in_thread(session: Session, host: str = "127.0.0.1", port: int = 0, hosts=None):
    """A server on a thread (tests, notebooks): returns (server, url); stop it
    with ``server.should_exit = True``."""
    import threading
    import time

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = create_app(session, hosts=hosts, bind_host=host)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    return server, url_of(host, port)
