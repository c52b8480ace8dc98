"""Options and output shared by the report subcommands (top, peek, traces, tags, folded)."""

from __future__ import annotations

import csv
import json
import sys

import numpy as np

from .. import _atomic, _fetch, _io, _merge
from ..reports._nodes import EDGEFRACTION, GRANULARITIES, NODECOUNT, NODEFRACTION
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


def add_fractions(parser) -> None:
    """pprof's -nodefraction and -edgefraction, with pprof's defaults."""
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


def load(path, args):
    """Loads `path` and applies, as pprof does, drop_frames/keep_frames and the filter flags."""
    return _filter_args.apply_filter_args(_io.load(path), args)


def read_source(source: str, args, fetched: list):
    """A profile from a file (from ``args.source_cache`` when the shell gave
    one), or fetched when ``source`` is a URL or pprof's ``host:port``
    shorthand (``-seconds``, ``-timeout``); URLs go to ``fetched``."""
    url = _fetch.source_url(source, getattr(args, "seconds", None))
    if url is None:
        cache = getattr(args, "source_cache", None)  # the shell's (cli/_source_cache.py)
        return _io.load(source) if cache is None else cache.load(source, _io.load)
    data = _fetch.fetch(url, getattr(args, "timeout", None), say=lambda line: print(line, file=sys.stderr))
    fetched.append(url)
    return _io.loads(data)


def save_fetched(p):
    """Keeps a copy of a profile read over HTTP where pprof keeps it; its path
    (None when it could not be written)."""
    names = p.mappings["filename"].tolist() if len(p.mappings["filename"]) else []
    binary = p.strings[names[0]] if names else ""
    prefix = _fetch.save_prefix(binary, [t for t, _ in p.sample_types])
    path = _atomic.claim_numbered(_fetch.save_dir(), prefix, ".pb.gz")
    try:
        p.save(path)
    except OSError as e:
        print(f"Could not save profile: {e}", file=sys.stderr)
        return None
    print(f"Saved profile in {path}", file=sys.stderr)
    return path


def load_all(args, before_filters=None):
    """The profile a pprof report reads: every FILE merged, the -base/-diff_base
    profiles applied, then drop_frames/keep_frames and the filter flags. A
    source may be a URL; what was fetched is saved as pprof saves it.
    ``before_filters(p)`` runs on the profile just before the filters."""

    fetched: list = []

    def merged(paths):
        ps = [read_source(p, args, fetched) for p in paths]
        return ps[0] if len(ps) == 1 else _merge.merge(ps, compatible="intersect")

    if args.base and args.diff_base:
        raise ValueError("-base and -diff_base cannot both be given")
    p = merged(args.files)
    if args.base:
        p = p.diff(merged(args.base), mode="base", normalize=args.normalize)
    elif args.diff_base:
        p = p.diff(merged(args.diff_base), mode="diff_base", normalize=args.normalize)
    if args.add_comment:
        p = p.add_comment(args.add_comment)
    p = _pprof_options.symbolized(p, args)
    p = _pprof_options.repaired(p, args)
    if before_filters is not None:  # e.g. -raw: pprof's merge on reading comes before the filters
        p = before_filters(p)
    # The shell reads the saved copy afterwards instead of fetching again.
    args.saved_profile = save_fetched(p) if fetched else None
    return _filter_args.apply_filter_args(p, args)


def node_options(args) -> dict:
    """The options every node report (top, tree, peek, topproto) reads from
    the same flags: granularity, -cum, -mean, -unit, -noinlines and
    -relative_percentages."""
    return dict(
        by=args.granularity,
        sort="cum" if args.cum else "flat",
        mean=args.mean,
        unit=args.unit,
        inline=not args.noinlines,
        relative_percentages=args.relative_percentages,
    )


def listing_options(args, *, source: bool = False, objects: bool = False) -> dict:
    """The options of the listings (list, disasm, weblist) from their flags:
    the sample type, -relative_percentages and -divide_by, with ``source``
    -source_path and -trim_path, with ``objects`` the binaries, their search
    path and -intel_syntax."""
    out = dict(
        sample_type=sample_index(args.sample_index),
        relative_percentages=args.relative_percentages,
        divide_by=args.divide_by,
    )
    if source:
        out.update(source_path=args.source_path, trim_path=args.trim_path)
    if objects:
        out.update(binaries=args.binary or None, search_path=args.search_path, intel_syntax=args.intel_syntax)
    return out


def run_report(args, method: str, *positional, prepare=None, **options) -> int:
    """The body of a report subcommand: the profile of :func:`load_all` (made
    ready by ``prepare(profile, args)`` when given, e.g. symbolized), the
    ``Profile`` report ``method`` for the ``--sample-index`` type, printed in
    ``--format``."""
    p = load_all(args)
    if prepare is not None:
        p = prepare(p, args)
    options.setdefault("sample_type", sample_index(args.sample_index))
    emit(getattr(p, method)(*positional, **options), args.format, args=args)
    return 0


# The first line of a report's own header; the lines before it describe the profile.
_REPORT_HEADER_STARTS = ("Active filters:", "Showing nodes", "Dropped ", "Showing top")


def profile_header(lines) -> list:
    """The profile's lines (File, Type, Time, Duration ...) of a report header."""
    lines = list(lines)
    k = next((i for i, ln in enumerate(lines) if ln.startswith(_REPORT_HEADER_STARTS)), len(lines))
    return lines[:k]


def report_text(table, args) -> str:
    """The table's text, without the profile's header lines for -compact_labels."""
    text = table.to_text()
    if getattr(args, "compact_labels", False):
        lines = text.split("\n")
        k = next((i for i, ln in enumerate(lines) if ln.startswith(_REPORT_HEADER_STARTS)), 0)
        text = "\n".join(lines[k:])
    return text


def emit(table, fmt: str, out=None, title=None, args=None) -> None:
    out = out or sys.stdout
    if fmt == "text":
        if title:
            print(f"==> {title} <==", file=out)
        text = report_text(table, args)
        out.write(text if getattr(table, "prints_as_is", False) else text + "\n")
        return
    cols = table.columns
    data = [table[c] for c in cols]
    if fmt == "csv":
        w = csv.writer(out)
        if title:
            w.writerow(["file"] + cols)
        else:
            w.writerow(cols)
        for i in range(len(table)):
            row = [_plain(d[i]) for d in data]
            w.writerow(([title] if title else []) + row)
        return
    rows = [{c: _plain(d[i]) for c, d in zip(cols, data)} for i in range(len(table))]
    json.dump(
        {"file": title, "header": table.header, "rows": rows} if title else {"header": table.header, "rows": rows},
        out,
        indent=1,
    )
    print(file=out)


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v
