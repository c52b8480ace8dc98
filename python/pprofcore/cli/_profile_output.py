"""Where a command writes a profile, and in which format: ``--format`` or the
output's name (``.otlp``, ``.otlp.gz``: OpenTelemetry OTLP ProfilesData;
``.trace.json``: the Chrome trace event format; ``.firefox.json``: the Firefox
Profiler's processed format, each optionally ``.gz``; anything else
profile.proto). Shared by the commands that write profiles."""

from __future__ import annotations

import os

from .. import _core, _to_chrome_trace, _to_firefox

#: Output name endings (lower case, before an optional ``.gz``) -> format.
SUFFIXES = {".otlp": "otlp", ".trace.json": "chrome-trace", ".firefox.json": "firefox"}
FORMATS = ("pprof", "otlp", "chrome-trace", "firefox")


def add_format_argument(parser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="output format (default by the output's name: .otlp[.gz] otlp, .trace.json[.gz] chrome-trace, "
        ".firefox.json[.gz] firefox, else pprof); chrome-trace and firefox need per-sample timestamps",
    )


def output_format(path, fmt) -> str:
    if fmt:
        return fmt
    name = os.fsdecode(path).lower()
    name = name[:-3] if name.endswith(".gz") else name
    return next((f for suffix, f in SUFFIXES.items() if name.endswith(suffix)), "pprof")


def save_profile(p, path, fmt=None, uncompressed: bool = False) -> None:
    """``p.save`` in the chosen format: profile.proto is gzipped unless
    ``uncompressed``; the others are raw unless the name ends in ``.gz``."""
    chosen = output_format(path, fmt)
    if chosen == "pprof":
        p.save(path, compress=not uncompressed)
    else:
        p.save(path, compress=os.fsdecode(path).lower().endswith(".gz") and not uncompressed, format=chosen)


def profile_bytes(p, fmt: str, gz: bool) -> bytes:
    """The bytes of ``p`` in a format other than pprof (gzip-compressed when ``gz``)."""
    if fmt == "otlp":
        return p.to_otlp(compress=gz)
    write = _to_chrome_trace.chrome_trace_bytes if fmt == "chrome-trace" else _to_firefox.firefox_profiler_bytes
    data = write(p)
    return _core.gzip(data) if gz else data
