"""Every sample with its labels and stack, like `go tool pprof -traces`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "print every sample's stack (like pprof -traces)"


def add_arguments(parser) -> None:
    ra.add_common(parser, nodecount=False)


def run(args) -> int:
    p = ra.load_all(args)
    t = p.traces(sample_type=ra.sample_index(args.sample_index), mean=args.mean, unit=args.unit, by=args.granularity)
    ra.emit(t, args.format, args=args)
    return 0
