"""Binaries found by build ID: the ``.build-id`` layout of debug directories,
and debuginfod servers.

- Local: ``DIR/.build-id/ab/cdef....debug`` (separate debug info, as Debian's
  ``-dbgsym`` packages install it under ``/usr/lib/debug``) and
  ``DIR/.build-id/ab/cdef...`` (often a link to the binary itself), for each
  search directory and ``/usr/lib/debug``.
- debuginfod: when ``DEBUGINFOD_URLS`` names servers (space separated), the
  debug info is fetched from ``URL/buildid/ID/debuginfo`` (then
  ``/executable``) into the debuginfod client's cache,
  ``$DEBUGINFOD_CACHE_PATH`` or ``$XDG_CACHE_HOME/debuginfod_client`` or
  ``~/.cache/debuginfod_client``, as ``ID/debuginfo``: the layout elfutils'
  client uses, so either reuses the other's downloads. ``DEBUGINFOD_TIMEOUT``
  (seconds, default 90) bounds each request. A build ID the servers do not
  have is remembered for the session and not asked again.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Any, Dict, List, Optional, Sequence

from .. import _atomic

SYSTEM_DEBUG_DIRS = ("/usr/lib/debug",)
_BUILD_ID = re.compile(r"^[0-9a-f]{2,}$")
_missing: Dict[str, str] = {}  # build ID -> why no server had it (this session)


def build_id_paths(build_id: str, search: Sequence[str]) -> List[str]:
    """Candidate local files for ``build_id`` in the ``.build-id`` layout."""
    bid = build_id.lower()
    if not _BUILD_ID.match(bid):
        return []
    out = []
    for d in [*search, *SYSTEM_DEBUG_DIRS]:
        root = os.path.join(d, ".build-id", bid[:2], bid[2:])
        out += [root + ".debug", root]
    return out


def cache_dir() -> str:
    """The debuginfod client's cache directory."""
    if os.environ.get("DEBUGINFOD_CACHE_PATH"):
        return os.environ["DEBUGINFOD_CACHE_PATH"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "debuginfod_client")


def servers() -> List[str]:
    return [u.rstrip("/") for u in os.environ.get("DEBUGINFOD_URLS", "").split() if u]


def timeout() -> float:
    try:
        return max(1.0, float(os.environ.get("DEBUGINFOD_TIMEOUT", "90")))
    except ValueError:
        return 90.0


def fetch(build_id: str) -> Optional[str]:
    """The cached path of ``build_id``'s debug info (fetched when not cached),
    or None when no server is configured or none has it. Raises OSError with
    the servers' answers when every server failed for another reason."""
    bid = build_id.lower()
    if not _BUILD_ID.match(bid) or not servers():
        return None
    for kind in ("debuginfo", "executable"):
        cached = os.path.join(cache_dir(), bid, kind)
        if os.path.isfile(cached):
            return cached
    if bid in _missing:
        return None
    # imported here, as in _fetch: http.client, email and ssl cost start-up time
    import urllib.error
    import urllib.parse
    import urllib.request

    errors = []
    for kind in ("debuginfo", "executable"):
        for server in servers():
            url = f"{server}/buildid/{urllib.parse.quote(bid)}/{kind}"
            try:
                with urllib.request.urlopen(url, timeout=timeout()) as response:
                    return _store(response, bid, kind)
            except urllib.error.HTTPError as e:
                if e.code != 404:
                    errors.append(f"{url}: {e.code} {e.reason}")
            except (urllib.error.URLError, OSError) as e:
                errors.append(f"{url}: {getattr(e, 'reason', e)}")
    if errors:
        raise OSError("debuginfod: " + "; ".join(errors))
    _missing[bid] = "not found"
    return None


def _store(response: Any, build_id: str, kind: str) -> str:
    """Writes a download to the cache whole or not at all (_atomic)."""
    directory = os.path.join(cache_dir(), build_id)
    os.makedirs(directory, exist_ok=True)
    final = os.path.join(directory, kind)

    def fill(tmp: str) -> None:
        with open(tmp, "wb") as f:
            shutil.copyfileobj(response, f, 1 << 20)

    _atomic.write_with(final, fill)
    return final
