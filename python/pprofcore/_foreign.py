"""Other profilers' formats, told apart by content (never by file name) and
handed to their reader (``_from_<format>``). :func:`pprofcore.load` comes
here only after the core found the input is neither ``profile.proto`` nor a
legacy pprof format, so a pprof profile never pays for these checks.

Each detector looks at the first bytes only; the reader then parses the whole
input and raises a :class:`DecodeError` naming the format and the place."""

from __future__ import annotations

import re
from typing import Callable, Dict, Optional

from . import _core
from ._from_cpuprofile import looks_like_cpuprofile, read_cpuprofile_bytes
from ._profile import Profile

_HEAD = 64 << 10


def _strip_bom(data: bytes) -> bytes:
    while data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data


def detect(data: bytes) -> Optional[str]:
    """The name of the foreign format ``data`` holds (``"cpuprofile"``, ...),
    or ``None`` when it is none that pprofcore reads."""
    head = _strip_bom(bytes(data[:_HEAD]))
    text = head.lstrip()
    if text[:1] in (b"{", b"["):
        if looks_like_cpuprofile(text):
            return "cpuprofile"
    return None


READERS: Dict[str, Callable[[bytes], Profile]] = {
    "cpuprofile": read_cpuprofile_bytes,
}


def read(data, max_size: int) -> Optional[Profile]:
    """The profile in ``data`` when it is a foreign format pprofcore reads
    (gzip-compressed or not), else ``None``. Reader errors propagate."""
    data = bytes(data)
    if data[:2] == b"\x1f\x8b":
        try:
            data = _core.gunzip(data, max_size)
        except _core.DecodeError:
            return None
    kind = detect(data)
    if kind is None:
        return None
    return READERS[kind](_strip_bom(data))


_ = re  # used by the text detectors below
