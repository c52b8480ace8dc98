"""Bounds on the share of a profile spent in frames matching a regex.

Owns :func:`assert_share`: pprof's ``cum`` (each sample counted once however
many of its frames match) or ``flat`` (leaf frames only), over the report
total of one sample type. Names are pprof's report names at granularity ``by``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

import numpy as np

from .. import _units
from .._args import compile_regex
from .._report_base import total
from ..reports._nodes import nodes
from . import _format, _keys

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


MAX_FRAMES = 5  # matching frames listed by assert_share


def _segment_any(hit: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment ``offsets[i]:offsets[i+1]``: is any element of ``hit`` set?"""
    c = np.concatenate([[0], np.cumsum(hit, dtype=np.int64)])
    return c[offsets[1:]] > c[offsets[:-1]]


def assert_share(
    profile: "Profile",
    regex,
    *,
    max: Optional[float] = None,
    min: Optional[float] = None,
    sample_type: Union[int, str, None] = None,
    by: str = "functions",
    cum: bool = True,
) -> float:
    """Assert bounds on the share of the total spent in frames matching ``regex``.

    The share is the value of the samples with at least one frame whose name
    (pprof's report name at granularity ``by``, searched with :func:`re.search`)
    matches, over the report total (sum of ``|value|``) of ``sample_type`` --
    each sample counted once however many frames match, as pprof's ``cum``.
    With ``cum=False`` only the leaf frame counts (the sum of ``flat``).
    ``max`` and ``min`` are fractions (0.2 = 20%); give at least one.

    Returns the share. The failure message gives the share, the bound and the
    top matching frames.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> round(pprofcore.testing.assert_share(p, "sha256", max=0.5), 3)
    0.229
    >>> pprofcore.testing.assert_share(p, "sha256", max=0.1)
    Traceback (most recent call last):
        ...
    AssertionError: ...
    """
    __tracebackhide__ = True
    if max is None and min is None:
        raise ValueError("assert_share needs max=, min= or both")
    for name, v in (("max", max), ("min", min)):
        if v is not None and not 0 <= v <= 1:
            raise ValueError(f"{name}={v} is not a fraction between 0 and 1")
    rx = compile_regex("regex", regex)
    ti = _keys.type_index(profile, sample_type)
    t = nodes(profile, _keys.check_by(by))
    cols = t.columns()
    names = t.printable_names()
    match = np.fromiter((rx.search(n) is not None for n in names), dtype=bool, count=len(names))
    tot = total(profile, ti)
    column = "cum" if cum else "flat"
    node_values = cols[column][:, ti]
    if cum:
        loc_hit = _segment_any(match[cols["loc_nodes"]], cols["loc_node_offsets"])
        sample_hit = _segment_any(loc_hit[profile.stack_locations], profile.stack_offsets)
        part = int(np.abs(profile.values[sample_hit, ti]).sum(dtype=np.int64))
    else:
        part = int(np.abs(node_values[match]).sum(dtype=np.int64))
    share = part / tot if tot else 0.0
    low = min is not None and share < min
    high = max is not None and share > max
    if low or high:
        type_name, unit = profile.sample_types[ti]
        bound = (
            f"above max {_format.fmt_share(max)}"
            if max is not None and high
            else f"below min {_format.fmt_share(min or 0.0)}"
        )
        lines = [
            f"share of {rx.pattern!r} ({by}, {column}) is {_format.fmt_share(share)} of {type_name}, {bound}"
            f" ({_units.scaled_label(part, unit)} of {_units.scaled_label(tot, unit)})"
        ]
        rows = np.flatnonzero(match & (node_values != 0))
        if len(rows) == 0:
            lines.append(f"no {by} with {column} > 0 match {rx.pattern!r}")
        else:
            rows = rows[np.lexsort((rows, -np.abs(node_values[rows])))]
            lines.append(f"top matching {by} by {column}:")
            for r in rows[:MAX_FRAMES].tolist():
                v = int(node_values[r])
                lines.append(
                    f"  {_units.scaled_label(v, unit):>10} {_format.fmt_share(v / tot if tot else 0):>8}  {names[r]}"
                )
            if len(rows) > MAX_FRAMES:
                lines.append(f"  ... and {len(rows) - MAX_FRAMES} more")
        _format.raise_assertion_error(lines[0], lines[1:])
    return share
