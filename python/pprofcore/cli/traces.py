"""Every sample with its labels and stack, like `go tool pprof -traces`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "print every sample's stack (like pprof -traces)"


def add_arguments(parser) -> None:
    # pprof takes the trimming and sort flags here and ignores them
    ra.add_common(parser, trim=True)


def run(args) -> int:
    # merged on reading, as pprof's driver, then filtered: samples that -hide
    # made equal stay apart, as in pprof's -traces
    p = ra.load_all(args, before_filters=lambda p: p.compact())
    table = p.traces(
        sample_type=ra.sample_index(args.sample_index),
        mean=args.mean,
        unit=args.unit,
        by=args.granularity,
        divide_by=args.divide_by,
        inline=not args.noinlines,
        relative_percentages=args.relative_percentages,
        merge=False,
    )
    ra.emit(table, args.format, args=args)
    return 0
