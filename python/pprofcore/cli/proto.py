"""The profile itself, as ``go tool pprof -proto`` writes it: the sources merged,
``-base``/``-diff_base`` applied, the filter flags applied, then gzipped
profile.proto on stdout or ``-output``."""

from __future__ import annotations

from . import _output
from . import _report_args as ra

HELP = "write the (merged, filtered) profile as gzipped profile.proto (like pprof -proto)"


def add_arguments(parser) -> None:
    ra.add_common(parser, nodecount=False, fmt=False)


def run(args) -> int:
    # merged on reading, as pprof's, then filtered
    _output.report_bytes(ra.load_all(args, before_filters=lambda p: p.compact()).to_bytes(), "proto")
    return 0
