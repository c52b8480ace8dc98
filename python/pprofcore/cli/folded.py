"""Collapsed stacks (Brendan Gregg's folded format) for flamegraph.pl, speedscope
and friends: one line per distinct stack, `root;...;leaf VALUE`."""

from __future__ import annotations

import sys

from . import _filter_args
from . import _report_args as ra

HELP = "collapsed stacks for flame graph tools"


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="profile files (gzip or raw profile.proto)")
    ra.add_sample_index(parser)
    parser.add_argument("--lines", action="store_true", help="frames as 'function file:line'")
    parser.add_argument("--noinlines", action="store_true", help="drop inlined frames")
    parser.add_argument(
        "--label", action="append", default=[], metavar="KEY", help="prefix stacks with KEY=value frames (repeatable)"
    )
    _filter_args.add_filter_arguments(parser)


def run(args) -> int:
    for path in args.files:
        p = ra.load(path, args)
        sys.stdout.write(
            p.to_folded(
                sample_type=ra.sample_index(args.sample_index),
                lines=args.lines,
                labels=args.label or None,
                inline=not args.noinlines,
            )
        )
    return 0
