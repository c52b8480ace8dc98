"""What a filtered profile remembers for its reports: the totals percentages
are measured against, and the "Active filters" lines.

pprof computes a report's total *before* it applies focus, ignore, hide, show,
show_from, tagfocus, tagignore, tagshow, taghide and prune_from, so "1.11s,
99.11% of 1.12s total" after ``-hide``; ``-relative_percentages`` measures
against what is left instead. A Profile made by those filters carries the
totals of the profile it was filtered from (the first one of a chain of
filters) in ``Profile._report_base``; every other transform returns a profile
without it, whose reports use its own total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Tuple

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

# pprof's order of the "Active filters" lines (internal/driver reportOptions).
FILTER_ORDER = ("focus", "ignore", "hide", "show", "show_from", "tagfocus", "tagignore", "tagshow", "taghide")


@dataclass(frozen=True)
class ReportBase:
    """Totals of the unfiltered profile and the filters applied since."""

    #: per sample type: (report total, report total for ``mean``)
    totals: Tuple[Tuple[int, int], ...]
    #: (option, expression) in the order applied
    filters: Tuple[Tuple[str, str], ...] = ()


def _totals(p: "Profile") -> Tuple[Tuple[int, int], ...]:
    # kept on the profile: the explorer filters one profile many times
    if p._derived.report_totals is None:
        p._derived.report_totals = tuple((total(p, ti, False), total(p, ti, True)) for ti in range(len(p.sample_types)))
    return p._derived.report_totals


def carry(src: "Profile", dst: "Profile", options) -> "Profile":
    """Marks ``dst`` as ``src`` filtered by ``options`` (``(option, expression)``
    pairs): it keeps src's base (or src's own totals when src is unfiltered)
    and adds the filters. With no options dst is src less its samples with
    empty stacks (pprof's name filter always runs): still filtered, as pprof
    totals the profile before that drop."""
    if dst is src or (not options and src._report_base is None and len(dst) == len(src)):
        return dst
    base = src._report_base or ReportBase(_totals(src))
    added = tuple((name, _text(expr)) for name, expr in options)
    dst._report_base = ReportBase(base.totals, base.filters + added)
    return dst


def _text(expr) -> str:
    for attr in ("pattern", "text"):  # re.Pattern, tag filter
        v = getattr(expr, attr, None)
        if isinstance(v, str):
            return v
    return str(expr)


def report_total(p: "Profile", ti: int, mean: bool, relative_percentages: bool) -> int:
    """The total a report's percentages use: the unfiltered profile's unless
    ``relative_percentages`` (or the profile was not filtered)."""
    base: Optional[ReportBase] = p._report_base
    if base is not None and not relative_percentages and ti < len(base.totals):
        return base.totals[ti][1 if mean else 0]
    return total(p, ti, mean)


def active_filters(p: "Profile") -> list:
    """pprof's "Active filters:" header lines ([] when none), one line per
    option in pprof's order; an option applied twice shows both expressions."""
    base: Optional[ReportBase] = p._report_base
    if base is None or not base.filters:
        return []
    out = ["Active filters:"]
    for name in FILTER_ORDER:
        for opt, text in base.filters:
            if opt == name:
                s = f"{name}={text}"
                out.append("   " + (s[:80] + "…" if len(s) > 80 else s))
    return out if len(out) > 1 else []


def go_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Go's int64 division (truncating toward zero); ``a`` where ``b == 0``."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    q = np.where((a < 0) != (safe < 0), -q, q)
    return np.where(b == 0, a, q)


def diff_base_mask(profile: "Profile") -> Optional[np.ndarray]:
    """Samples labelled ``pprof::base=true`` (a ``-diff_base`` profile), or None."""
    lab = profile.labels
    if len(lab.key) == 0:
        return None
    strings = profile.strings
    codes = [i for i, x in enumerate(strings) if x in ("pprof::base", "true")]
    if not codes:
        return None
    keys = [i for i in codes if strings[i] == "pprof::base"]
    vals = [i for i in codes if strings[i] == "true"]
    hit = np.isin(lab.key, keys) & np.isin(lab.str, vals)
    if not hit.any():
        return None
    sample = np.repeat(np.arange(len(profile), dtype=np.int64), np.diff(profile.label_offsets))
    mask = np.zeros(len(profile), dtype=bool)
    mask[sample[hit]] = True
    return mask


def total(profile: "Profile", ti: int, mean: bool = False) -> int:
    """pprof's report total: sum of |value| (divided by the count total for
    ``mean``); for a ``-diff_base`` profile, the total of the base samples."""
    if len(profile) == 0:
        return 0
    v = profile.values
    col = np.abs(v[:, ti])
    div_col = v[:, 0]
    base = diff_base_mask(profile)
    if base is not None and int(col[base].sum(dtype=np.int64)) > 0:
        col, div_col = col[base], div_col[base]
    t = int(col.sum(dtype=np.int64))
    if mean:
        div = int(div_col.sum(dtype=np.int64))
        if div != 0:
            t = int(go_div(np.array(t, dtype=np.int64), np.array(div, dtype=np.int64)))
    return t
