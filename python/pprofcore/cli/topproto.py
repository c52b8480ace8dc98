"""The top report as a profile, like `go tool pprof -topproto` (gzipped profile.proto on stdout or ``-output``)."""

from __future__ import annotations

from . import _output
from . import _report_args as ra

HELP = "write the top report as a profile (like pprof -topproto)"


def add_arguments(parser) -> None:
    ra.add_common(parser, fmt=False, trim=True)


def run(args) -> int:
    p = ra.load_all(args)
    q = p.top_profile(
        sample_type=ra.sample_index(args.sample_index),
        nodefraction=args.nodefraction,
        n=args.nodecount,
        **ra.node_options(args),
    )
    _output.report_bytes(q.to_bytes(), "topproto")  # to stdout, or the -output file
    return 0
