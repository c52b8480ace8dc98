"""Other profilers' formats, told apart by content (never by file name) and
handed to their reader (``_from_<format>``). :func:`pprofcore.load` comes
here only after the core found the input is neither ``profile.proto`` nor a
legacy pprof format, so a pprof profile never pays for these checks.

Each detector looks at the first bytes only; the reader then parses the whole
input and raises a :class:`DecodeError` naming the format and the place."""

from __future__ import annotations

import zlib
from typing import Callable, Dict, Optional, Tuple

from . import _core
from ._from_async_profiler import looks_like_async_profiler, read_async_profiler_bytes
from ._from_callgrind import looks_like_callgrind, read_callgrind_bytes
from ._from_chrome_trace import looks_like_chrome_trace, read_chrome_trace_bytes
from ._from_collapsed import looks_collapsed, read_collapsed_bytes
from ._from_cpuprofile import looks_like_cpuprofile, read_cpuprofile_bytes
from ._from_dhat import looks_like_dhat, read_dhat_bytes
from ._from_firefox import looks_like_firefox, read_firefox_bytes
from ._from_gecko import looks_like_gecko, read_gecko_bytes
from ._from_heapprofile import looks_like_heapprofile, read_heapprofile_bytes
from ._from_heaptrack import looks_like_heaptrack, read_heaptrack_bytes
from ._from_jfr import looks_like_jfr, read_jfr_bytes, split_kinds
from ._from_massif import looks_like_massif, read_massif_all, read_massif_bytes
from ._from_memray import looks_like_memray, read_memray_bytes
from ._from_perf_data import looks_like_perf_data, read_perf_data_bytes
from ._from_perf_script import looks_like_perf_script, read_perf_script_bytes
from ._from_pstats import looks_like_pstats, read_pstats_bytes
from ._from_pyinstrument import looks_like_pyinstrument, read_pyinstrument_bytes
from ._from_scalene import looks_like_scalene, read_scalene_bytes
from ._from_sentry import looks_like_sentry, read_sentry_bytes
from ._from_speedscope import looks_like_speedscope, read_speedscope_bytes
from ._from_stackprof import looks_like_stackprof, read_stackprof_bytes
from ._profile import Profile

_HEAD = 64 << 10
_ZSTD = b"\x28\xb5\x2f\xfd"  # heaptrack writes its files with zstd


def _strip_bom(data: bytes) -> bytes:
    while data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data


def detect(data: bytes) -> Optional[str]:
    """The name of the foreign format ``data`` holds (``"cpuprofile"``, ...),
    or ``None`` when it is none that pprofcore reads."""
    head = bytes(data[:_HEAD])
    if looks_like_jfr(head):
        return "jfr"
    if looks_like_perf_data(head):
        return "perf data"
    if looks_like_memray(head):
        return "memray"
    if looks_like_stackprof(head):  # a Ruby Marshal dump, or its JSON form
        return "stackprof"
    if looks_like_pstats(head):  # binary: before the byte-order mark is stripped
        return "pstats"
    head = _strip_bom(head)
    text = head.lstrip()
    if text[:1] in (b"{", b"["):
        if looks_like_speedscope(text):
            return "speedscope"
        if looks_like_chrome_trace(text):
            return "chrome trace"
        if looks_like_firefox(text):
            return "firefox"
        if looks_like_stackprof(text):
            return "stackprof"
        if looks_like_dhat(text):
            return "dhat"
        if looks_like_gecko(text):
            return "gecko"
        if looks_like_scalene(text):
            return "scalene"
        if looks_like_sentry(text):
            return "sentry"
        if looks_like_pyinstrument(text):
            return "pyinstrument"
        if looks_like_cpuprofile(text):
            return "cpuprofile"
        if looks_like_heapprofile(text):
            return "heapprofile"
        return None
    if looks_like_async_profiler(head):
        return "async-profiler"
    if looks_like_massif(head):
        return "massif"
    if looks_like_heaptrack(head):
        return "heaptrack"
    if looks_like_callgrind(head):
        return "callgrind"
    if looks_like_perf_script(head):
        return "perf script"
    if looks_collapsed(head):
        return "collapsed"
    return None


READERS: Dict[str, Callable[[bytes], Profile]] = {
    "cpuprofile": read_cpuprofile_bytes,
    "chrome trace": read_chrome_trace_bytes,
    "firefox": read_firefox_bytes,
    "dhat": read_dhat_bytes,
    "gecko": read_gecko_bytes,
    "scalene": read_scalene_bytes,
    "sentry": read_sentry_bytes,
    "pyinstrument": read_pyinstrument_bytes,
    "heapprofile": read_heapprofile_bytes,
    "jfr": read_jfr_bytes,
    "speedscope": read_speedscope_bytes,
    "stackprof": read_stackprof_bytes,
    "pstats": read_pstats_bytes,
    "perf script": read_perf_script_bytes,
    "massif": read_massif_bytes,
    "heaptrack": read_heaptrack_bytes,
    "callgrind": read_callgrind_bytes,
    "perf data": read_perf_data_bytes,
    "collapsed": read_collapsed_bytes,
    "async-profiler": read_async_profiler_bytes,
    "memray": read_memray_bytes,
}


def detect_head(head: bytes) -> Optional[str]:
    """:func:`detect` on the first bytes of a file, gzip- or zstd-compressed
    or not (only the start is inflated), so that a large file that is no
    foreign format is never read or inflated whole."""
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(31).decompress(head, _HEAD)
        except zlib.error:
            return None
    elif head[:4] == _ZSTD:
        try:
            head = _core.unzstd(head, prefix_only=True)
        except _core.DecodeError:
            return None  # a truncated head: its start cannot be judged alone
    return detect(head)


def _sniffed(data, max_size: int) -> Optional[Tuple[str, bytes]]:
    """``(format, bytes)`` of ``data``, decompressed when it is gzip or zstd, or ``None``
    when it is no foreign format pprofcore reads."""
    if detect_head(bytes(data[:_HEAD])) is None:
        return None
    data = bytes(data)
    try:
        if data[:2] == b"\x1f\x8b":
            data = _core.gunzip(data, max_size)
        elif data[:4] == _ZSTD:
            data = _core.unzstd(data, max_size)
    except _core.DecodeError:
        return None
    kind = detect(data)
    return None if kind is None else (kind, _strip_bom(data))


def read(data, max_size: int) -> Optional[Profile]:
    """The profile in ``data`` when it is a foreign format pprofcore reads
    (gzip-compressed or not), else ``None``. Reader errors propagate."""
    got = _sniffed(data, max_size)
    return None if got is None else READERS[got[0]](got[1])


def read_all(data, max_size: int) -> Optional[Dict[str, Profile]]:
    """Every profile of ``data`` by name (a JFR recording: one per event
    kind, see ``_from_jfr``; Massif: one per detailed snapshot; other
    formats: ``{"": profile}``), or ``None``
    when ``data`` is no foreign format pprofcore reads."""
    got = _sniffed(data, max_size)
    if got is None:
        return None
    if got[0] == "massif":
        return read_massif_all(got[1])
    p = READERS[got[0]](got[1])
    return split_kinds(p) if got[0] == "jfr" else {"": p}
