"""The profile's comments, one per line, like `go tool pprof -comments`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "print the profile's comments (like pprof -comments)"


def add_arguments(parser) -> None:
    ra.add_common(parser, granularity=False, nodecount=False, fmt=False)


def run(args) -> int:
    p = ra.load_all(args)
    for c in p.comments:
        print(c)
    return 0
