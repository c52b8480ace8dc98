"""The profile itself, as ``go tool pprof -proto`` writes it: the sources merged,
``-base``/``-diff_base`` applied, the filter flags applied, then gzipped
profile.proto on stdout or ``-output`` (an output named ``.otlp`` or
``.otlp.gz`` gets OpenTelemetry's OTLP instead)."""

from __future__ import annotations

import os

from . import _output, _profile_output
from . import _report_args as ra

HELP = "write the (merged, filtered) profile as gzipped profile.proto (like pprof -proto)"


def add_arguments(parser) -> None:
    ra.add_common(parser, nodecount=False, fmt=False)


def run(args) -> int:
    # merged on reading, as pprof's, then filtered
    p = ra.load_all(args, before_filters=lambda p: p.compact())
    out = getattr(args, "output", None)
    if out and _profile_output.output_format(out, None) == "otlp":
        data = p.to_otlp(compress=os.fsdecode(out).lower().endswith(".gz"))
    else:
        data = p.to_bytes()
    _output.report_bytes(data, "proto")
    return 0
