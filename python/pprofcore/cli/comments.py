"""The profile's comments, one per line, like `go tool pprof -comments`."""

from __future__ import annotations

from . import _report_args as ra
from ._report_flags import add_ignored

HELP = "print the profile's comments (like pprof -comments)"


def add_arguments(parser) -> None:
    ra.add_common(parser, granularity=False, nodecount=False, fmt=False)
    add_ignored(parser, "granularity", "noinlines", "mean", "nodecount", "fractions", "sort")


def run(args) -> int:
    p = ra.load_all(args)
    for c in p.comments:
        print(c)
    return 0
