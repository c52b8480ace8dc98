"""pprof's report text from plain values: the profile's header lines (File,
Build ID, comments, Type, Time, Duration), the summary lines ("Showing nodes
accounting for ...") and the rows of ``-top``. No profile and no NumPy: the
reports pass what they computed, and so does the command line's quick
``-top`` (``cli/quick_top.py``), which imports neither."""

from __future__ import annotations

import time
from typing import Callable, List, Optional, Sequence

from . import _units

#: The inline label of a node as the reports print it (0 none, 1, 2).
INLINE_TEXT = ("", "(inline)", "(partial-inline)")


def go_time(nanos: int) -> str:
    """A profile's time as pprof's header prints it: ``Nov 22, 2026 at 2:28am (UTC)``."""
    tm = time.localtime(nanos // 1_000_000_000)
    hour = tm.tm_hour % 12 or 12
    ampm = "am" if tm.tm_hour < 12 else "pm"
    return f"{time.strftime('%b', tm)} {tm.tm_mday}, {tm.tm_year} at {hour}:{tm.tm_min:02d}{ampm} ({tm.tm_zone})"


def profile_lines(
    mapping_file: str,
    build_id: str,
    comments: Sequence[str],
    type_label: str,
    time_nanos: int,
    duration_nanos: int,
    total: int,
    sample_unit: str,
    unit: str,
    ratio: float = 1.0,
) -> List[str]:
    """pprof's ProfileLabels: File (the first mapping's base name), Build ID,
    comments (not those starting with ``#``), Type, Time and Duration with the
    total :func:`~pprofcore._units.divided` by ``ratio``."""
    out = []
    if mapping_file:
        out.append("File: " + mapping_file.rstrip("/").rsplit("/", 1)[-1])
    if build_id:
        out.append("Build ID: " + build_id)
    out += [c for c in comments if not c.startswith("#")]
    if type_label:
        out.append("Type: " + type_label)
    if time_nanos:
        out.append("Time: " + go_time(time_nanos))
    if duration_nanos:
        dur = _units.scaled_label(duration_nanos, "nanoseconds", "auto")
        ns, u = _units.scale(total, sample_unit, "nanoseconds")
        share = f"({_units.percentage(int(ns), duration_nanos)})" if u == "ns" and ns else ""
        shown = _units.scaled_label(_units.divided(total, ratio), sample_unit, unit)
        out.append(f"Duration: {dur}, Total samples = {shown} {share}")
    return out


def summary_lines(
    filter_lines: List[str],
    fmt: Callable[[int], str],
    flat_sum: int,
    tot: int,
    dropped: int,
    nodefraction: float,
    shown: int,
    orig: int,
) -> List[str]:
    """pprof's report labels after the profile's: the "Active filters" lines
    given, "Showing nodes accounting for ...", "Dropped N nodes (cum <= X)",
    "Showing top N nodes out of M"."""
    out = list(filter_lines)
    out.append(
        f"Showing nodes accounting for {fmt(flat_sum)}, {_units.percentage(flat_sum, tot).strip()} of {fmt(tot)} total"
    )
    if tot != 0:
        if dropped > 0:
            cut = abs(int(tot * float(nodefraction)))
            out.append(f"Dropped {dropped} node{'s' if dropped > 1 else ''} (cum <= {fmt(cut)})")
        if 0 < shown < orig:
            out.append(f"Showing top {shown} nodes out of {orig}")
    return out


def top_lines(
    header: Sequence[str],
    names: Sequence[str],
    flat: Sequence[int],
    cum: Sequence[int],
    inline: Sequence[str],
    tot: int,
    fmt: Callable[[int], str],
    n: Optional[int] = None,
) -> List[str]:
    """The lines of pprof's ``-top``: the header, the column titles and one row
    per node (at most ``n``, then "... N more rows")."""
    lines = list(header)
    lines.append(f"{'flat':>10} {'flat':>5}% {'sum':>5}% {'cum':>10} {'cum':>5}%")
    rows = len(names) if n is None else min(n, len(names))
    running = 0
    for i in range(rows):
        running += int(flat[i])
        inl = inline[i]
        lines.append(
            f"{fmt(flat[i]):>10} {_units.percentage(int(flat[i]), tot)} "
            f"{_units.percentage(running, tot)} {fmt(cum[i]):>10} "
            f"{_units.percentage(int(cum[i]), tot)}  {names[i]}{(' ' + inl) if inl else ''}"
        )
    if rows < len(names):
        lines.append(f"... {len(names) - rows} more rows")
    return lines
