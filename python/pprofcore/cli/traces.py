"""Every sample with its labels and stack, like `go tool pprof -traces`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "print every sample's stack (like pprof -traces)"


def add_arguments(parser) -> None:
    ra.add_common(parser, granularity=False, nodecount=False)
    parser.add_argument("--mean", action="store_true", help="divide by the first (count) sample type")


def run(args) -> int:
    p = ra.load_all(args)
    t = p.traces(sample_type=ra.sample_index(args.sample_index), mean=args.mean, unit=args.unit)
    ra.emit(t, args.format, args=args)
    return 0
