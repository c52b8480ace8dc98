"""Callgrind text for KCachegrind/QCachegrind, like `go tool pprof -callgrind`."""

from __future__ import annotations

from . import _output
from . import _report_args as ra

HELP = "callgrind output for KCachegrind (like pprof -callgrind)"


def add_arguments(parser) -> None:
    ra.add_common(parser, granularity=False, nodecount=False, fmt=False)
    parser.add_argument("--noinlines", action="store_true", help="attribute inlined frames to their callers")


def run(args) -> int:
    p = ra.load_all(args)
    text = p.to_callgrind(sample_type=ra.sample_index(args.sample_index), unit=args.unit, inline=not args.noinlines)
    _output.report_bytes(text.encode("utf-8"), "callgrind")  # -output: cli/_output.py writes the file
    return 0
