"""Running the explorer: pprof's ``-http=[HOST]:PORT`` address, uvicorn, the
URL printed and (unless ``no_browser``) opened, as ``go tool pprof -http`` does."""

from __future__ import annotations

import socket
import sys
import threading
import time
from typing import Callable, Optional, Tuple

from ._app import create_app, warm
from ._session import Session

#: Seconds after the server answers when the session's held background work
#: starts if no view's data was asked for by then.
RELEASE_BACKGROUND_AFTER_S = 1.0


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


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening: connections wait in its
    backlog until the server answers them."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def web_stack() -> None:
    """Imports the modules serving needs (Starlette, uvicorn and the h11
    protocol its server loads when it starts): about a third of the time to
    the first page, spent while a thread loads the profile."""
    import starlette.applications  # noqa: F401
    import uvicorn  # noqa: F401
    import uvicorn.protocols.http.h11_impl  # noqa: F401


def uvicorn_server(app, announce: Optional[Callable[[], None]] = None):
    """uvicorn's server for the explorer, calling ``announce`` once it answers
    requests. HTTP/1.1 by h11 on asyncio's loop, named: "auto" would first try
    httptools, uvloop and the WebSocket libraries, importing what it finds.
    Warnings reach stderr through the root logger (no logging configuration)."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.started and announce is not None:
                announce()

    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", http="h11", ws="none", loop="asyncio", log_config=None
    )
    return Server(config)


def serve(session: Session, address: str = "127.0.0.1:0", *, open_browser: bool = True, out=None) -> None:
    """Serves ``session`` until interrupted: listens on ``address``, computes
    the first page's data on a thread while the server starts, prints
    "Serving web UI on URL" once requests are answered and opens the browser
    unless told not to."""
    serve_loading(lambda: session, address, open_browser=open_browser, out=out)


def serve_loading(
    load: Callable[[], Session],
    address: str = "127.0.0.1:0",
    *,
    open_browser: bool = True,
    out=None,
    answering: Optional[Callable[[], None]] = None,
) -> None:
    """:func:`serve` for the session ``load()`` returns: it loads, then
    computes the first page's data, on a thread while uvicorn and Starlette
    are imported (decoding and the views' passes are C++ with the GIL
    released, so they take the other core); an error of ``load`` is raised
    here. The session's background work waits until the first view's data
    is sent (or :data:`RELEASE_BACKGROUND_AFTER_S` after the server answers);
    ``answering()`` is called once it answers."""
    host, port = parse_address(address)
    sock = listening_socket(host, port)  # connections wait in the backlog until the server answers
    loading = _Loading(load)
    try:
        web_stack()
        session = loading.session()
    except BaseException:
        loading.join()  # not left inside a C++ call at exit (see _session.wait_background_at_exit)
        raise
    url = url_of(host, sock.getsockname()[1], session.initial.to_query())

    def announce() -> None:
        print(f"Serving web UI on {url}", file=out or sys.stderr, flush=True)
        if answering is not None:
            answering()
        # The held work starts once the first view's data is sent (the app
        # releases it then), so that it does not share the cores with the
        # page's first requests; or after a while, if none is asked for.
        later = threading.Timer(RELEASE_BACKGROUND_AFTER_S, session.release_background)
        later.daemon = True
        later.start()
        if open_browser:  # on a thread: a console browser would hold the server until it exits
            import webbrowser  # on use: it imports subprocess and shlex at start-up

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    uvicorn_server(create_app(session, bind_host=host), announce).run(sockets=[sock])


class _Loading:
    """``load()`` and the first page's data (:func:`~._app.warm`), on a thread;
    the session's background work is held from the start (the server releases
    it once it answers)."""

    def __init__(self, load: Callable[[], Session]):
        self.loaded = threading.Event()
        self.result: Optional[Session] = None
        self.error: Optional[BaseException] = None
        self.thread = threading.Thread(target=self.run, args=(load,), name="pprofcore-warm", daemon=True)
        self.thread.start()

    def run(self, load: Callable[[], Session]) -> None:
        try:
            session = load()
            session.hold_background()
            self.result = session
        except BaseException as e:  # noqa: BLE001 - raised again by session(), on the main thread
            self.error = e
            return
        finally:
            self.loaded.set()
        warm(session)

    def session(self) -> Session:
        self.loaded.wait()
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result

    def join(self) -> None:
        self.loaded.wait()  # the load, not the warm-up: a request would wait for that anyway


def start_in_thread(session: Session, host: str = "127.0.0.1", port: int = 0, hosts=None):
    """A server on a thread (tests, notebooks): returns (server, url); stop it
    with ``server.should_exit = True``."""
    sock = listening_socket(host, port)
    server = uvicorn_server(create_app(session, hosts=hosts, bind_host=host))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    return server, url_of(host, sock.getsockname()[1])
