"""The flags every report subcommand takes (pprof's, spelled ``--name``), and
``--sample-index``'s value. Imports no profile code: the command line's quick
``-top`` (``quick_top``) parses with it before deciding to load anything."""

from __future__ import annotations

from .._report_defaults import EDGEFRACTION, GRANULARITIES, NODECOUNT, NODEFRACTION
from . import _filter_args, _pprof_options


def add_sample_index(parser) -> None:
    """``--sample-index`` (pprof's ``-sample_index``), spelled one way in every subcommand."""
    parser.add_argument(
        "--sample-index",
        "--sample_index",
        dest="sample_index",
        default=None,
        help="sample type by index or name (default: pprof's default type)",
    )


def add_common(
    parser, *, granularity: bool = True, nodecount: bool = True, fmt: bool = True, trim: bool = False
) -> None:
    """The options every report takes, spelled as pprof's flags (single-dash
    pprof spellings are rewritten to these by ``_pprof_flags``)."""
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="profile files or URLs (http://host:port/debug/pprof/heap, host:port); several are merged, as pprof does",
    )
    add_sample_index(parser)
    parser.add_argument("--unit", default=None, help="display unit: minimum (default), auto, ms, MB, ...")
    parser.add_argument(
        "--relative_percentages",
        "--relative-percentages",
        dest="relative_percentages",
        action="store_true",
        help="percentages of what is left after filtering (pprof's default: of the total before filtering)",
    )
    parser.add_argument(
        "--base",
        action="append",
        default=[],
        metavar="FILE",
        help="subtract this profile (pprof -base; repeatable, merged)",
    )
    parser.add_argument(
        "--diff_base",
        "--diff-base",
        dest="diff_base",
        action="append",
        default=[],
        metavar="FILE",
        help="compare against this profile (pprof -diff_base; repeatable, merged)",
    )
    parser.add_argument("--normalize", action="store_true", help="scale the profile to the base's totals first")
    parser.add_argument(
        "--seconds", type=float, default=None, help="for URL sources: the profile's duration (seconds= of the request)"
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="for URL sources: seconds to wait (default 1.5 x -seconds, or 60)"
    )
    parser.add_argument(
        "--add_comment",
        "--add-comment",
        dest="add_comment",
        action="append",
        default=[],
        metavar="TEXT",
        help="add a comment to the profile (pprof -add_comment)",
    )
    parser.add_argument(
        "--compact_labels",
        "--compact-labels",
        dest="compact_labels",
        action="store_true",
        help="leave out the profile's header lines (File, Type, Time, Duration)",
    )
    if granularity:
        parser.add_argument("--granularity", default="functions", choices=GRANULARITIES)
        parser.add_argument("--noinlines", action="store_true", help="attribute inlined frames to their callers")
        parser.add_argument("--mean", action="store_true", help="divide by the first (count) sample type")
    if nodecount:
        parser.add_argument(
            "--nodecount",
            type=int,
            default=None,
            help=f"show at most N nodes (pprof's default: all for top, {NODECOUNT} for tree)",
        )
    if trim:
        add_fractions(parser)
        parser.add_argument("--cum", action="store_true", help="sort by cum instead of flat")
        parser.add_argument("--flat", action="store_true", help="sort by flat (the default)")
    if fmt:
        parser.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format")
    _pprof_options.add_arguments(parser)
    _filter_args.add_filter_arguments(parser)


def sample_index(value):
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return value


def add_fractions(parser) -> None:
    """``--nodefraction`` and ``--edgefraction`` with pprof's defaults."""
    parser.add_argument(
        "--nodefraction",
        type=float,
        default=NODEFRACTION,
        help=f"drop nodes whose cum is below this fraction of the total (pprof's default {NODEFRACTION})",
    )
    parser.add_argument(
        "--edgefraction",
        type=float,
        default=EDGEFRACTION,
        help=f"drop edges below this fraction of the total (pprof's default {EDGEFRACTION})",
    )


IGNORED = "accepted and ignored, as pprof does with this report"


def add_ignored(parser, *groups: str) -> None:
    """pprof's report-shaping flags that ``go tool pprof`` takes with this
    report but does not act on (its flags are global to every report), so a
    pprof command line runs here unchanged. ``groups``: ``granularity`` (-lines,
    -files, ...), ``noinlines``, ``mean``, ``nodecount``, ``fractions``
    (-nodefraction, -edgefraction) and ``sort`` (-cum, -flat)."""
    for group in groups:
        if group == "granularity":
            parser.add_argument("--granularity", default="functions", choices=GRANULARITIES, help=IGNORED)
        elif group == "nodecount":
            parser.add_argument("--nodecount", type=int, default=None, help=IGNORED)
        elif group == "fractions":
            parser.add_argument("--nodefraction", type=float, default=None, help=IGNORED)
            parser.add_argument("--edgefraction", type=float, default=None, help=IGNORED)
        elif group == "sort":
            parser.add_argument("--cum", action="store_true", help=IGNORED)
            parser.add_argument("--flat", action="store_true", help=IGNORED)
        elif group in ("noinlines", "mean"):
            parser.add_argument(f"--{group}", action="store_true", help=IGNORED)
        else:
            raise ValueError(f"unknown group of ignored flags: {group!r}")
