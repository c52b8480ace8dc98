"""The explorer's guard at the door (an ASGI middleware).

* DNS rebinding: a page on another site can point its own name at 127.0.0.1
  and then read this server; the browser still sends that foreign name as
  ``Host``. Requests whose ``Host`` is not one of the names this server answers
  to are refused.
* Cross-site writes: a mutating request (anything but GET/HEAD/OPTIONS) whose
  ``Origin`` is not this server's, or that the browser marks ``cross-site``, is
  refused.
* Every response carries a Content-Security-Policy that allows only this
  server's own scripts (no inline script, no network), so even a name that got
  past escaping could not run.
"""

from __future__ import annotations

import socket
from typing import Iterable, List, Optional, Set, Tuple

LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")
WILDCARD = ("", "0.0.0.0", "::", "[::]")

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS: List[Tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def allowed_hosts(bind_host: str, extra: Iterable[str] = ()) -> Set[str]:
    """The ``Host`` names a server bound to ``bind_host`` answers to: loopback
    names, the bound name, and (bound to every interface) this machine's names."""
    hosts = set(LOOPBACK) | {h.lower() for h in extra}
    if bind_host not in WILDCARD:
        hosts.add(bind_host.lower().strip("[]"))
    else:
        for name in (socket.gethostname(), socket.getfqdn()):
            hosts.add(name.lower())
    return hosts


def host_name(header: str) -> str:
    """The name part of a Host header (``[::1]:8080`` -> ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """ASGI middleware refusing foreign hosts and cross-origin writes."""

    def __init__(self, app, hosts: Set[str]):
        self.app = app
        self.hosts = {h.strip("[]") for h in hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        why = self.refusal(scope["method"], headers)
        if why:
            return await _forbidden(send, why)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        return await self.app(scope, receive, send_with_headers)

    def refusal(self, method: str, headers: dict) -> Optional[str]:
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            return "forbidden: unknown Host (this server answers only to its own names)"
        if method not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            if origin is not None and origin.lower() not in (f"http://{host.lower()}", f"https://{host.lower()}"):
                return "forbidden: cross-origin request"
            if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                return "forbidden: cross-site request"
        return None


async def _forbidden(send, why: str) -> None:
    body = why.encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
            + HEADERS,
        }
    )
    await send({"type": "http.response.body", "body": body})
