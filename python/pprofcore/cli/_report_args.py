"""What the report subcommands (top, peek, traces, tags, folded ...) share:
the profile their flags describe (:func:`load_all`) and their output. Their
flags are ``_report_flags``' (re-exported here)."""

from __future__ import annotations

import csv
import json
import sys

import numpy as np

from .. import _atomic, _fetch, _io, _merge
from .._main_binary import is_object_file, unsourced, with_main_mapping
from . import _filter_args, _pprof_options
from ._report_flags import add_common as add_common
from ._report_flags import add_sample_index as add_sample_index
from ._report_flags import sample_index as sample_index


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


def split_binary(args) -> None:
    """pprof's ``pprof [BINARY] PROFILE...``: with more than one source, a
    first one that is a binary (ELF, Mach-O, PE) moves to ``args.exec_name``
    ("" when there is none) and, for the listings, to the front of their
    ``--binary`` list. Done once per parsed command line."""
    if hasattr(args, "exec_name"):
        return
    args.exec_name = ""
    if len(args.files) > 1 and is_object_file(args.files[0]):
        args.exec_name, args.files = args.files[0], args.files[1:]
        if hasattr(args, "binary"):
            args.binary.insert(0, args.exec_name)


def located(p, exec_name: str):
    """``p`` as pprof's driver reads a source: a placeholder mapping when it has
    none, ``exec_name`` as its first mapping's file (no copy when neither applies)."""
    return with_main_mapping(p, exec_name) if exec_name or not len(p.mappings) else p


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
    split_binary(args)

    def merged(paths):
        ps = [located(read_source(p, args, fetched), args.exec_name) for p in paths]
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
    p = unsourced(p)  # pprof's driver, last: no file for a mapping named by a URL
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
        # a report with nothing to say (-tags of a profile without labels) prints nothing, as pprof's
        out.write(text if getattr(table, "prints_as_is", False) or not text else text + "\n")
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
