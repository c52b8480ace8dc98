"""Options and output shared by the report subcommands (top, peek, traces, tags, folded)."""

from __future__ import annotations

import csv
import json
import sys

import numpy as np

from .. import _io
from . import _filter_args


def add_common(parser, *, granularity: bool = True, nodecount: bool = True, fmt: bool = True) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="profile files (gzip or raw profile.proto)")
    parser.add_argument("--sample-index", "--sample_index", dest="sample_index", default=None,
                        help="sample type by index or name (default: pprof's default type)")
    parser.add_argument("--unit", default=None, help="display unit: minimum (default), auto, ms, MB, ...")
    if granularity:
        parser.add_argument("--granularity", default="functions",
                            choices=("functions", "filefunctions", "files", "lines", "addresses"))
        parser.add_argument("--noinlines", action="store_true", help="attribute inlined frames to their callers")
        parser.add_argument("--mean", action="store_true", help="divide by the first (count) sample type")
    if nodecount:
        parser.add_argument("--nodecount", type=int, default=None, help="show at most N rows")
    if fmt:
        parser.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format")
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


def emit(table, fmt: str, out=None, title=None) -> None:
    out = out or sys.stdout
    if fmt == "text":
        if title:
            print(f"==> {title} <==", file=out)
        print(table.to_text(), file=out)
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
    json.dump({"file": title, "header": table.header, "rows": rows} if title else {"header": table.header, "rows": rows},
              out, indent=1)
    print(file=out)


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v
