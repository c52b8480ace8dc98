"""The explorer: pprof's web UI for the profiles given, in the browser
(``pprofcore -http=:8080 FILE`` or ``pprofcore serve FILE``). Several files
are merged into one profile, as every report does; sources separated by
``--`` (``pprofcore -http=: a.pb.gz -- b.pb.gz``) or the files of a directory
become separate profiles to pick from and compare. Every filter flag sets the
initial view."""

from __future__ import annotations

import argparse
import gc
import os
from typing import Dict, List

from .. import _merge
from .._main_binary import unsourced
from ..web._serve import serve_loading
from ..web._session import Session
from ..web._state import State
from . import _pprof_options
from . import _report_args as ra

HELP = "explore profiles in the browser (pprof's -http web UI)"


def add_arguments(parser) -> None:
    ra.add_common(parser, trim=True, fmt=False)
    parser.add_argument(
        "--http",
        default="127.0.0.1:0",
        metavar="[HOST]:PORT",
        help="address to serve on (pprof's -http; no host: 127.0.0.1, no port: a free one)",
    )
    parser.add_argument("--no-browser", "--no_browser", dest="no_browser", action="store_true")
    parser.add_argument("--source_path", "--source-path", dest="source_path", default=None)
    parser.add_argument("--trim_path", "--trim-path", dest="trim_path", default="")
    parser.add_argument("--source-group", dest="source_group", action="append", default=[], help=argparse.SUPPRESS)


def _expand(paths: List[str]) -> List[List[str]]:
    """One group per directory file, or the paths as one group."""
    if len(paths) == 1 and os.path.isdir(paths[0]):
        d = paths[0]
        return [[os.path.join(d, f)] for f in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, f))]
    return [paths]


def session_of(args):
    """The explorer's session for the parsed command line."""
    groups: Dict[int, List[str]] = {0: list(args.files)}
    for item in args.source_group:
        n, _, path = item.partition(":")
        groups.setdefault(int(n), []).append(path)
    sources: List[List[str]] = []
    for k in sorted(groups):
        sources += _expand(groups[k])
    if not sources:
        raise ValueError("no profiles to serve")

    fetched: list = []

    def merged(paths):
        before = len(fetched)
        ps = [ra.read_source(p, args, fetched) for p in paths]  # files, or URLs as pprof fetches them
        p = ps[0] if len(ps) == 1 else _merge.merge(ps, compatible="intersect")
        if len(fetched) > before:
            ra.save_fetched(p)  # what was fetched is kept, as pprof keeps it
        p = unsourced(_pprof_options.symbolized(p, args))  # pprof's symbolization step, then no URL for a file
        p = p.remove_uninteresting() if getattr(args, "remove_uninteresting", True) else p
        # tagroot/tagleaf come first in pprof's filter order and have no URL parameter: applied on load
        roots = {k: getattr(args, k) for k in ("tagroot", "tagleaf") if getattr(args, k, None)}
        return p.filter(**roots) if roots else p

    if args.base and args.diff_base:
        raise ValueError("-base and -diff_base cannot both be given")
    base_paths = args.base or args.diff_base
    profiles = [(", ".join(os.path.basename(x) for x in g), merged(g)) for g in sources]
    if args.add_comment:
        profiles = [(n, p.add_comment(args.add_comment)) for n, p in profiles]
    return Session(
        profiles,
        base=merged(base_paths) if base_paths else None,
        base_mode="base" if args.base else "diff_base",
        normalize=args.normalize,
        source_path=args.source_path,
        trim_path=args.trim_path,
        initial=State.from_args(args),
    )


def started() -> None:
    """Once the server answers: the cyclic GC, off while the command started
    (``pprofcore.cli.main``), runs again; what start-up made (modules, the
    loaded profiles) is kept out of its passes."""
    gc.freeze()
    gc.enable()


def run(args) -> int:
    try:  # the profiles load on a thread while the web server's modules are imported
        serve_loading(lambda: session_of(args), args.http, open_browser=not args.no_browser, answering=started)
    except KeyboardInterrupt:
        return 0
    return 0
