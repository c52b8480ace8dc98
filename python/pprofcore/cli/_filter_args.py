"""Filter flags shared by subcommands (``filter`` now; ``top``, ``folded``,
``traces`` can attach the same group).

Usage in a subcommand module::

    from . import _filter_args

    def add_arguments(parser):
        ...
        _filter_args.add_filter_arguments(parser)

    def run(args):
        p = _filter_args.apply_filter_args(pprofcore.load(path), args)

The flags mirror ``go tool pprof`` (``--show-from`` for ``-show_from`` etc.)
and are applied in pprof's order by :meth:`pprofcore.Profile.filter`; warnings
for expressions that matched nothing go to stderr, as pprof prints them.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Dict, Optional

from ..errors import FilterWarning

# (flag, Profile.filter keyword, help)
FILTER_FLAGS = (
    ("--focus", "focus", "keep samples with a frame matching REGEX (function, file or mapping)"),
    ("--ignore", "ignore", "drop samples with a frame matching REGEX"),
    ("--hide", "hide", "remove frames matching REGEX from stacks"),
    ("--show", "show", "keep only frames matching REGEX in stacks"),
    ("--show-from", "show_from", "drop frames above the root-most frame matching REGEX"),
    ("--tagfocus", "tagfocus", "keep samples whose labels match EXPR (key=rx1,rx2 | rx1,rx2 | [key=]lo:hi with units)"),
    ("--tagignore", "tagignore", "drop samples whose labels match EXPR (same syntax as --tagfocus)"),
    ("--tagshow", "tagshow", "keep only labels whose key matches REGEX"),
    ("--taghide", "taghide", "remove labels whose key matches REGEX"),
    ("--tagroot", "tagroot", "comma-separated label keys added as root pseudo-frames"),
    ("--tagleaf", "tagleaf", "comma-separated label keys added as leaf pseudo-frames"),
    ("--prune-from", "prune_from", "drop frames beneath the leaf-most frame matching REGEX"),
)


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the filter flags (an argument group ``filters``) to ``parser``."""
    group = parser.add_argument_group("filters (applied in pprof's order)")
    for flag, dest, help_text in FILTER_FLAGS:
        metavar = (
            "EXPR"
            if dest.startswith("tagf") or dest.startswith("tagi")
            else ("KEYS" if dest in ("tagroot", "tagleaf") else "REGEX")
        )
        group.add_argument(flag, dest=dest, metavar=metavar, default=None, help=help_text)
    group.add_argument(
        "--no-remove-uninteresting",
        dest="remove_uninteresting",
        action="store_false",
        help="do not apply the profile's drop_frames/keep_frames (pprof always does on load)",
    )


def filter_kwargs(args: argparse.Namespace) -> Dict[str, Optional[str]]:
    """The :meth:`Profile.filter` keywords set on the command line."""
    return {dest: getattr(args, dest) for _, dest, _ in FILTER_FLAGS if getattr(args, dest, None)}


def apply_filter_args(profile, args: argparse.Namespace, prog: str = "pprofcore"):
    """Applies pprof's load-time pruning and the filter flags to ``profile``,
    printing "... matched no samples" warnings to stderr."""
    if getattr(args, "remove_uninteresting", True):
        profile = profile.remove_uninteresting()
    kwargs = filter_kwargs(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FilterWarning)
        # pprof runs its name filter even without expressions: samples with
        # empty stacks leave every report (its totals are taken before)
        profile = profile.filter(**kwargs)
    for w in caught:
        if issubclass(w.category, FilterWarning):
            print(f"{prog}: {w.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return profile
