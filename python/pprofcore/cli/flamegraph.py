"""Writes a profile's flame graph: an interactive, self-contained HTML page
(.html), a static SVG (.svg) or a speedscope file (.json); with --base, a diff
flame graph (widths from FILE, red where it grew against BASE, blue where it
shrank)."""

from __future__ import annotations

import sys

from .. import _io
from .._report_defaults import GRANULARITIES
from . import _filter_args
from . import _report_args as ra
from ._report_args import sample_index

HELP = "write a flame graph (interactive HTML, SVG or speedscope JSON)"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="profile file (gzip or raw profile.proto)")
    parser.add_argument("--base", metavar="BASE", default=None, help="base profile: draw a diff flame graph")
    parser.add_argument(
        "-o",
        "--output",
        default="flamegraph.html",
        help="output file; .html, .svg or .json (speedscope) picks the format; - writes HTML "
        "to stdout (default: flamegraph.html)",
    )
    ra.add_sample_index(parser)
    parser.add_argument("--granularity", default="functions", choices=GRANULARITIES)
    parser.add_argument("--inverted", action="store_true", help="leaf functions under the root (callers below them)")
    parser.add_argument(
        "--min-fraction",
        type=float,
        default=None,
        help="merge nodes narrower than this share of the root into '...' (0 keeps every node)",
    )
    parser.add_argument(
        "--no-normalize",
        dest="normalize",
        action="store_false",
        help="with --base: compare raw values instead of scaling the base to FILE's total",
    )
    parser.add_argument("--title", default=None, help="title shown above the graph")
    _filter_args.add_filter_arguments(parser)


def run(args) -> int:
    p = _filter_args.apply_filter_args(_io.load(args.file), args)
    base = _filter_args.apply_filter_args(_io.load(args.base), args) if args.base else None
    fg = p.flamegraph(
        sample_index(args.sample_index),
        by=args.granularity,
        inverted=args.inverted,
        base=base,
        normalize=args.normalize,
        min_fraction=args.min_fraction,
        title=args.title,
    )
    if args.output == "-":
        sys.stdout.write(fg.to_html())
        return 0
    fg.save(args.output)
    print(f"wrote {args.output}: {len(fg)} nodes", file=sys.stderr)
    return 0
