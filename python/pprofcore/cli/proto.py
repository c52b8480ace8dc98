"""The profile itself, as ``go tool pprof -proto`` writes it: the sources merged,
``-base``/``-diff_base`` applied, the filter flags applied, then gzipped
profile.proto on stdout or ``-output`` (an output named ``.otlp``,
``.trace.json`` or ``.firefox.json``, optionally ``.gz``, gets OpenTelemetry's
OTLP, a Chrome trace or a Firefox Profiler profile instead)."""

from __future__ import annotations

import os

from . import _output, _profile_output
from . import _report_args as ra
from ._report_flags import add_ignored

HELP = "write the (merged, filtered) profile as gzipped profile.proto (like pprof -proto)"


def add_arguments(parser) -> None:
    ra.add_common(parser, nodecount=False, fmt=False)
    add_ignored(parser, "nodecount", "fractions", "sort")  # pprof writes the profile untrimmed


def run(args) -> int:
    # merged on reading, as pprof's, then filtered
    p = ra.load_all(args, before_filters=lambda p: p.compact())
    out = getattr(args, "output", None)
    fmt = _profile_output.output_format(out, None) if out else "pprof"
    if fmt == "pprof":
        data = p.to_bytes()
    else:
        data = _profile_output.profile_bytes(p, fmt, os.fsdecode(out or "").lower().endswith(".gz"))
    _output.report_bytes(data, "proto")
    return 0
