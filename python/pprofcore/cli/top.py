"""Flat and cum per function (or file, line, address), like `go tool pprof -top`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "top functions by flat or cum value (like pprof -top)"


def add_arguments(parser) -> None:
    ra.add_common(parser)
    parser.add_argument("--cum", action="store_true", help="sort by cum instead of flat")


def run(args) -> int:
    many = len(args.files) > 1
    for path in args.files:
        p = ra.load(path, args)
        t = p.top(sample_type=ra.sample_index(args.sample_index), by=args.granularity, n=args.nodecount,
                  sort="cum" if args.cum else "flat", mean=args.mean, unit=args.unit, inline=not args.noinlines)
        ra.emit(t, args.format, title=path if many else None)
    return 0
