"""Every node with its callers and callees, like `go tool pprof -tree`."""

from __future__ import annotations

from .._report_defaults import NODECOUNT
from . import _report_args as ra

HELP = "call tree: each node with callers and callees (like pprof -tree)"


def add_arguments(parser) -> None:
    ra.add_common(parser, trim=True)


def run(args) -> int:
    return ra.run_report(
        args,
        "tree",
        nodecount=NODECOUNT if args.nodecount is None else args.nodecount,
        nodefraction=args.nodefraction,
        edgefraction=args.edgefraction,
        divide_by=args.divide_by,
        **ra.node_options(args),
    )
