"""Profiles fetched over HTTP, as ``go tool pprof`` takes them.

A source is a URL (``http://host:6060/debug/pprof/heap``) or pprof's
``host:port[/path]`` shorthand; an existing local file always wins. With no
path, Go's CPU profile endpoint ``/debug/pprof/profile`` is asked for.
``seconds`` becomes the ``seconds=`` query parameter; the HTTP timeout is
``timeout`` (default: 1.5 times the duration, or 60 s) plus 5 s, as pprof's,
for the whole request, body included. Also used by the fleet collector.
A command line that fetched anything saves the profile it read where pprof
saves it (``$PPROF_TMPDIR``, else ``$HOME/pprof``, else the temporary
directory) under pprof's name, ``pprof.<binary>.<types>.NNN.pb.gz``.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import urllib.parse
from typing import Callable, Optional

CPU_PROFILE_PATH = "/debug/pprof/profile"  # Go's handler for a URL without a path
_HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]*):[0-9]+(/.*)?$")
_MAX_BODY = 1 << 32  # the decoder's own limit applies after this
_CHUNK = 1 << 20


def source_url(source: str, seconds: Optional[float] = None) -> Optional[str]:
    """The URL to fetch for ``source``, or None when it names a local file."""
    if os.path.exists(source):
        return None
    if source.startswith(("http://", "https://")):
        url = source
    elif _HOST_PORT.match(source):
        url = "http://" + source
    else:
        return None
    parts = urllib.parse.urlsplit(url)
    path = parts.path if parts.path not in ("", "/") else CPU_PROFILE_PATH
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if seconds is not None and seconds > 0:
        query = [(k, v) for k, v in query if k != "seconds"] + [("seconds", str(int(seconds)))]
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, urllib.parse.urlencode(query), ""))


def duration_of(url: str) -> float:
    """The ``seconds=`` the URL asks for (0 when none)."""
    values = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("seconds", [])
    try:
        return float(int(values[-1])) if values else 0.0
    except ValueError:
        return 0.0


def go_duration(seconds: float) -> str:
    """Seconds as Go prints a time.Duration of whole seconds (``1m30s``)."""
    s = int(seconds)
    hours, rest = divmod(s, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


class ServerError(OSError):
    """The server answered with an error status (``status``: 404, 503...)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def fetch(
    url: str,
    timeout: Optional[float] = None,
    say: Callable[[str], None] = lambda _: None,
    *,
    grace: float = 5.0,
) -> bytes:
    """The body of ``url``; raises OSError naming the URL and the server's
    answer (pprof's ``server response: 404 Not Found``) or the timeout.

    The whole request, body included, must end within ``timeout + grace``
    seconds (pprof's 5 s of grace by default), so a server that trickles
    its answer cannot hold the caller longer than one request's time."""
    duration = duration_of(url)
    if not timeout or timeout <= 0:
        timeout = duration * 1.5 if duration > 0 else 60.0
    limit = timeout + grace
    deadline = time.monotonic() + limit
    say(f"Fetching profile over HTTP from {url}")
    if duration > 0:
        say(f"Please wait... ({go_duration(duration)})")
    # imported here: urllib.request brings http.client, email and ssl, which
    # a command line reading a file has no use for (start-up time)
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "pprofcore"})
    try:
        with urllib.request.urlopen(request, timeout=limit) as response:
            return _read_until(response, deadline)
    except urllib.error.HTTPError as e:
        detail = ""
        if e.headers.get("X-Go-Pprof") and "text/plain" in e.headers.get("Content-Type", ""):
            detail = " - " + e.read(4096).decode("utf-8", "replace").strip()
        raise ServerError(f"{url}: server response: {e.code} {e.reason}{detail}", e.code) from None
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise OSError(f"{url}: http fetch: {reason}") from None


def _read_until(response, deadline: float) -> bytes:
    """The body, read in pieces; TimeoutError once ``deadline`` has passed."""
    chunks, size = [], 0
    while size < _MAX_BODY:
        if time.monotonic() > deadline:
            raise TimeoutError("timed out reading the body")
        chunk = response.read(min(_CHUNK, _MAX_BODY - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def save_dir() -> str:
    """Where pprof keeps fetched profiles: $PPROF_TMPDIR, $HOME/pprof, the temp dir."""
    candidates = [os.environ.get("PPROF_TMPDIR", "")]
    if os.environ.get("HOME"):
        candidates.append(os.path.join(os.environ["HOME"], "pprof"))
    candidates.append(tempfile.gettempdir())
    for d in candidates:
        if not d:
            continue
        try:
            os.makedirs(d, exist_ok=True)
            return d
        except OSError:
            continue
    raise OSError("no directory to save the fetched profile in")


def save_prefix(binary: str, sample_types: list) -> str:
    """pprof's name for a fetched profile: the main binary's base name and the types."""
    prefix = "pprof."
    if binary:
        prefix += os.path.basename(binary) + "."
    return prefix + "".join(f"{t}." for t in sample_types)
