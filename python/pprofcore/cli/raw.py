"""The profile as text, as ``go tool pprof -raw`` prints it (google/pprof's
``Profile.String``): sample types, samples with their location ids and labels,
locations with their lines, mappings. The text is :mod:`..reports.raw`'s."""

from __future__ import annotations

import sys

from ..reports.raw import raw_text
from . import _report_args as ra
from ._report_flags import add_ignored

HELP = "the profile as text: samples, locations, mappings (like pprof -raw)"


def add_arguments(parser) -> None:
    ra.add_common(parser, nodecount=False, fmt=False)
    add_ignored(parser, "nodecount", "fractions", "sort")  # pprof writes the profile untrimmed


def run(args) -> int:
    # pprof merges the profile on reading (equal samples summed, unused mappings gone), then filters
    sys.stdout.write(raw_text(ra.load_all(args, before_filters=lambda p: p.compact())))
    return 0
