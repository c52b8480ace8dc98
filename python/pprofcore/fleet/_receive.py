"""The collector's push endpoint: a small HTTP server taking profiles that
programs send, into the collector's store.

- ``POST /pprof``: one profile.proto (gzip or not; pprof's legacy formats
  too), labelled by the query (``/pprof?service=api&profile_type=heap``);
- ``POST /v1development/profiles``: an OTLP/HTTP ``ExportProfilesServiceRequest``
  (``application/x-protobuf``, gzip or not, or ``application/json``), as
  opentelemetry-proto's collector serves profiles; each profile is one row,
  its resource attributes on every sample and as columns (``service.name``
  becomes ``service_name``).

A request is answered once its profiles are committed (200), or 202 when
the commit takes longer than ``COMMIT_WAIT``; what cannot be read is 400
with the decoder's message (for OTLP, a ``google.rpc.Status``, as the
protocol asks). Not here: fetching (``_collect``), writing (``_sink``)."""

from __future__ import annotations

import json
import re
import socket
import threading
import urllib.parse
from typing import TYPE_CHECKING, Callable, Dict, List, Tuple

from .._from_otlp import load_otlp
from .._io import loads
from .._wire import put_field_bytes, put_field_varint
from ..errors import DecodeError
from ._sink import STORE_COLUMNS, Sink, check_labels

PPROF_PATH = "/pprof"
OTLP_PATH = "/v1development/profiles"
#: Largest body taken (bytes); larger ones are answered 413.
MAX_BODY = 64 << 20
#: Seconds a push waits for its commit before the answer is 202.
COMMIT_WAIT = 30.0
#: Seconds a connection may stay silent (a client that never sends its body).
SOCKET_TIMEOUT = 30.0
#: Resource attributes made columns, at most, per OTLP profile.
MAX_RESOURCE_COLUMNS = 32
_GRPC_INVALID_ARGUMENT, _GRPC_UNAVAILABLE = 3, 14
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


class Refused(ValueError):
    """A push that cannot be taken: its HTTP status and the message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_listen(listen: str) -> Tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; PORT 0: any free port)."""
    if not isinstance(listen, str) or ":" not in listen:
        raise ValueError(f"listen: {listen!r} is not HOST:PORT")
    host, _, port = listen.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not port.isdigit() or int(port) > 65535:
        raise ValueError(f"listen: {listen!r} has no port number")
    return host or "127.0.0.1", int(port)


class Receiver:
    """Serves the push endpoint on ``listen`` in a thread until :meth:`close`."""

    def __init__(
        self,
        listen: str,
        sink: Sink,
        labels: Dict[str, str],
        counted: Callable[[int, int], None],
        say: Callable[[str], None],
    ) -> None:
        host, port = parse_listen(listen)
        self.sink, self.labels, self.counted, self.say = sink, labels, counted, say
        # imported here: http.server (and http.client) are ~50 ms of `import pprofcore`
        import http.server

        handler = type("Handler", (_Handling, http.server.BaseHTTPRequestHandler), {"receiver": self})
        server_class: type = http.server.ThreadingHTTPServer
        if ":" in host:
            server_class = type("Server6", (server_class,), {"address_family": socket.AF_INET6})
        self.server: http.server.ThreadingHTTPServer = server_class((host, port), handler)
        self.server.daemon_threads = True
        self.address = self.server.server_address[:2]
        self._thread = threading.Thread(target=self.server.serve_forever, name="pprofcore-collect-listen", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Take no more requests (those being read still get their answer)."""
        self.server.shutdown()
        self.server.server_close()

    def take(self, kind: str, body: bytes, query: str, peer: str) -> int:
        """Decode a push, hand its profiles over and wait for their commit:
        the number taken. Raises :class:`Refused`."""
        if not body:
            raise Refused(400, "empty body: POST a profile")
        try:
            asked = check_labels(urllib.parse.parse_qsl(query, keep_blank_values=True), "query", {"url", "host"})
        except ValueError as e:
            raise Refused(400, str(e)) from None
        try:
            if kind == "otlp":
                rows = [
                    (o.profile, {**_resource_columns(o.resource), **asked})
                    for o in load_otlp(body, resource_labels=True)
                ]
            else:
                rows = [(loads(body), asked)]
        except (DecodeError, ValueError) as e:
            raise Refused(400, f"not a profile: {e}") from None
        handed = []
        path = OTLP_PATH if kind == "otlp" else PPROF_PATH
        for profile, extra in rows:
            labels = {"url": path, "host": peer, **extra, **self.labels}
            labels.setdefault("profile_type", profile.sample_types[0][0] if profile.sample_types else "")
            item = self.sink.put(profile, path, labels, urgent=True)
            if item is None:
                raise Refused(503, "the collector is stopping; send it again later")
            handed.append(item)
        for item in handed:
            if not item.done.wait(COMMIT_WAIT):
                return -len(handed)  # accepted, not yet committed
            if not item.ok:
                raise Refused(503, "the store could not be written; send it again later")
        return len(handed)


def _resource_columns(resource: dict) -> Dict[str, str]:
    """An OTLP resource's scalar attributes as column names and strings."""
    out: Dict[str, str] = {}
    for key, value in resource.items():
        if len(out) >= MAX_RESOURCE_COLUMNS:
            break
        name = _NOT_NAME.sub("_", str(key))[:64]
        if not name or name[0].isdigit() or name in STORE_COLUMNS or name in ("url", "host"):
            continue
        if isinstance(value, bool):
            out[name] = str(value).lower()
        elif isinstance(value, (str, int, float)):
            out[name] = str(value)
    return out


if TYPE_CHECKING:  # pragma: no cover
    from http.server import BaseHTTPRequestHandler as HandlerBase
else:
    HandlerBase = object


class _Handling(HandlerBase):
    """The push endpoint's request handling, mixed into the standard library's
    ``BaseHTTPRequestHandler`` by :class:`Receiver`."""

    receiver: Receiver
    timeout = SOCKET_TIMEOUT
    protocol_version = "HTTP/1.1"
    server_version = "pprofcore-collect"

    def log_message(self, format, *args) -> None:  # noqa: A002 - the standard library's name
        pass

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self._plain(
            405 if self._path() in (PPROF_PATH, OTLP_PATH) else 404,
            f"pprofcore fleet collect takes POST {PPROF_PATH} (pprof) and POST {OTLP_PATH} (OTLP)\n",
        )

    def do_POST(self) -> None:  # noqa: N802
        path = self._path()
        if path not in (PPROF_PATH, OTLP_PATH):
            self._drain()
            self._plain(404, f"no endpoint {path}: POST {PPROF_PATH} (pprof) or {OTLP_PATH} (OTLP)\n")
            return
        kind = "otlp" if path == OTLP_PATH else "pprof"
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        as_json = kind == "otlp" and ctype == "application/json"
        try:
            body = self._body()
            taken = self.receiver.take(kind, body, urllib.parse.urlsplit(self.path).query, self.client_address[0])
        except Exception as e:  # noqa: BLE001 - a bug of ours must still answer, and say what happened
            if not isinstance(e, Refused):
                self.receiver.say(f"collect: internal error on a push to {path}: {type(e).__name__}: {e}")
                e = Refused(500, f"pprofcore internal error: {type(e).__name__}: {e}")
            self.receiver.counted(0, 1 if e.status == 400 else 0)
            if e.status == 400:
                self.receiver.say(f"collect: refused a push to {path} from {self.client_address[0]}: {e}")
            self._error(kind, as_json, e.status, str(e))
            return
        self.receiver.counted(abs(taken), 0)
        status = 200 if taken >= 0 else 202
        if kind == "otlp":
            # ExportProfilesServiceResponse with no partial_success: an empty message
            self._send(status, "application/json" if as_json else "application/x-protobuf", b"{}" if as_json else b"")
        else:
            self._plain(status, f"{'stored' if status == 200 else 'accepted'} {abs(taken)} profile(s)\n")

    # -------------------------------------------------------------- plumbing
    def _path(self) -> str:
        return urllib.parse.urlsplit(self.path).path

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._chunked()
        length = self.headers.get("Content-Length")
        if length is None or not length.strip().isdigit():
            self.close_connection = True
            raise Refused(411, "a Content-Length is needed")
        n = int(length)
        if n > MAX_BODY:
            self.close_connection = True
            raise Refused(413, f"body of {n} bytes is over the limit of {MAX_BODY}")
        return self._read(n)

    def _read(self, n: int) -> bytes:
        data = self.rfile.read(n)
        if len(data) != n:
            self.close_connection = True
            raise Refused(400, f"body ended after {len(data)} of {n} bytes")
        return data

    def _chunked(self) -> bytes:
        parts: List[bytes] = []
        size = 0
        while True:
            line = self.rfile.readline(1024).split(b";")[0].strip()
            try:
                n = int(line, 16)
            except ValueError:
                self.close_connection = True
                raise Refused(400, "malformed chunked body") from None
            if n == 0:
                while self.rfile.readline(1024).strip():  # trailers
                    pass
                return b"".join(parts)
            size += n
            if size > MAX_BODY:
                self.close_connection = True
                raise Refused(413, f"body over the limit of {MAX_BODY} bytes")
            parts.append(self._read(n))
            self.rfile.readline(8)

    def _drain(self) -> None:
        length = self.headers.get("Content-Length") or "0"
        if length.isdigit() and int(length) <= MAX_BODY:
            self.rfile.read(int(length))
        else:
            self.close_connection = True

    def _error(self, kind: str, as_json: bool, status: int, message: str) -> None:
        if kind != "otlp":
            self._plain(status, message + "\n")
            return
        code = _GRPC_UNAVAILABLE if status == 503 else _GRPC_INVALID_ARGUMENT
        if as_json:
            self._send(status, "application/json", json.dumps({"code": code, "message": message}).encode())
            return
        status_message = bytearray()  # google.rpc.Status: code = 1, message = 2
        put_field_varint(1, code, status_message)
        put_field_bytes(2, message.encode("utf-8"), status_message)
        self._send(status, "application/x-protobuf", bytes(status_message))

    def _plain(self, status: int, text: str) -> None:
        self._send(status, "text/plain; charset=utf-8", text.encode("utf-8"))

    def _send(self, status: int, ctype: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
