"""The top report as a profile, like `go tool pprof -topproto -output=OUT`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "write the top report as a profile (like pprof -topproto)"


def add_arguments(parser) -> None:
    ra.add_common(parser, nodecount=False, fmt=False, trim=True)
    parser.add_argument("-o", "--output", required=True, help="where to write the profile (gzip)")


def run(args) -> int:
    p = ra.load_all(args)
    q = p.top_profile(
        sample_type=ra.sample_index(args.sample_index),
        by=args.granularity,
        sort="cum" if args.cum else "flat",
        mean=args.mean,
        unit=args.unit,
        inline=not args.noinlines,
        nodefraction=args.nodefraction,
        relative_percentages=args.relative_percentages,
    )
    q.save(args.output)
    return 0
