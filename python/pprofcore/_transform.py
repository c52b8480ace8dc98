"""Transforms that keep a profile's shape: compact, scale, normalize, diff,
drop_negative, select_sample_types, and the unit and sample-type alignment
pprof applies before merging (``measurement.ScaleProfiles``,
``CompatibilizeSampleTypes``). Per-sample work runs in C++ with the GIL
released; results are derived from the input profile."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Sequence, Union

import numpy as np

from . import _core
from ._units import same_unit_family, unit_ratio
from .errors import ProfileError

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile


def harmonize_units(profiles: Sequence["Profile"]) -> List["Profile"]:
    """Bring every sample type (and the period) to the finest unit used by any
    profile, as ``go tool pprof`` does before merging (``measurement.ScaleProfiles``):
    e.g. one profile in ``milliseconds`` and one in ``nanoseconds`` both end up in
    ``nanoseconds``. Types must have the same count and names (a trailing ``s``
    is ignored, as pprof does).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> a, b = pprofcore.harmonize_units([p, p.scale(0.5)])
    >>> a.sample_types == b.sample_types
    True
    """
    if len(profiles) <= 1:
        return list(profiles)
    types = [p.sample_types for p in profiles]  # built once: there may be thousands
    n = len(types[0])
    for t in types[1:]:
        if len(t) != n:
            raise ProfileError(f"inconsistent sample type count: {n} != {len(t)}")
    target: List[str] = []
    for i in range(n):
        best = types[0][i]
        for pt in types[1:]:
            vt = pt[i]
            if vt[0].removesuffix("s") != best[0].removesuffix("s") or (
                vt[1] != best[1] and not same_unit_family(vt[1], best[1])
            ):
                raise ProfileError(f"sample types: incompatible types: {best} {vt}")
            if unit_ratio(vt[1], best[1]) < 1:
                best = vt
        target.append(best[1])
    periods = [p.period_type for p in profiles if p.period_type is not None]
    period_unit = ""
    if len(periods) > 1:
        best_period = periods[0]
        for period_type in periods[1:]:
            if unit_ratio(period_type[1], best_period[1]) < 1:
                best_period = period_type
        period_unit = best_period[1]
    out = []
    for p, pt in zip(profiles, types):
        units = [u for _, u in pt]
        ratios = [unit_ratio(u, target[i]) for i, u in enumerate(units)]
        period = p.period
        pu = ""
        if period_unit and p.period_type is not None:
            period = int(p.period * unit_ratio(p.period_type[1], period_unit))
            pu = period_unit
        if units == target and (not pu or (p.period_type is not None and pu == p.period_type[1])):
            out.append(p)
            continue
        q = p.scale_n(ratios)
        out.append(p._derive(_core.rename_units(q._core, target, pu, period)))
    return out


def intersect_sample_types(profiles: Sequence["Profile"]) -> List["Profile"]:
    # pprof's CompatibilizeSampleTypes: keep the types (by name) common to all, in
    # the first profile's order.
    names = [[t for t, _ in p.sample_types] for p in profiles]
    # First index of each name, as list.index would give; dicts keep this linear.
    firsts: List[Dict[str, int]] = [{} for _ in profiles]
    for first, have in zip(firsts, names):
        for i, t in enumerate(have):
            first.setdefault(t, i)
    common = [t for t in names[0] if all(t in first for first in firsts[1:])]
    if not common:
        raise ProfileError("profiles have empty common sample type list")
    out = []
    for p, have, first in zip(profiles, names, firsts):
        idx = [first[t] for t in common]
        out.append(p if idx == list(range(len(have))) else p._derive(_core.select_sample_types(p._core, idx)))
    return out


# --------------------------------------------------------- Profile methods
def compact(p: "Profile") -> "Profile":
    return p._derive(_core.compact(p._core))


def scale_n(p: "Profile", ratios: Sequence[float]) -> "Profile":
    return p._derive(_core.scale_n(p._core, [float(r) for r in ratios]))


def scale(p: "Profile", ratio: float) -> "Profile":
    if ratio == 1:
        return p
    return scale_n(p, [float(ratio)] * len(p.sample_types))


def _check_base(base) -> None:
    if not isinstance(getattr(base, "_core", None), _core.Profile):
        raise TypeError(f"base must be a pprofcore.Profile, not {type(base).__name__}")


def normalize(p: "Profile", base: "Profile") -> "Profile":
    _check_base(base)
    return _scaled_like(p, base)


def _scaled_like(p: "Profile", base: "Profile") -> "Profile":
    """``p`` scaled so that each sample type's total equals ``base``'s."""
    if p.sample_types != base.sample_types or p.period_type != base.period_type:
        raise _core.ProfileError(f"incompatible sample types {p.sample_types} and {base.sample_types}")
    bv = base.values.sum(axis=0, dtype=np.int64) if len(base) else np.zeros(len(p.sample_types), np.int64)
    sv = p.values.sum(axis=0, dtype=np.int64) if len(p) else np.zeros(len(p.sample_types), np.int64)
    ratios = [0.0 if s == 0 else float(b) / float(s) for b, s in zip(bv.tolist(), sv.tolist())]
    return scale_n(p, ratios)


def diff(p: "Profile", base: "Profile", mode: str = "diff_base", normalize: bool = False) -> "Profile":
    _check_base(base)
    if mode not in ("diff_base", "base"):
        raise ValueError("mode must be 'diff_base' or 'base'")
    # go tool pprof merges each side on its own first (fetch.go chunkedGrab), so
    # duplicates are summed before -normalize rounds them.
    p, base = compact(p), compact(base)
    if mode == "diff_base":
        base = p._derive(_core.set_label(base._core, "pprof::base", ["true"]))
    if normalize:
        p = _scaled_like(p, base)
    base = scale(base, -1)
    p, base = harmonize_units([p, base])
    return p._derive(_core.merge([p._core, base._core]))


def drop_negative(p: "Profile", sample_type=None) -> "Profile":
    v = p.values
    if len(p) == 0:
        return p
    if sample_type is None:
        keep = ~(v < 0).any(axis=1)
    else:
        keep = v[:, p.sample_type_index(sample_type)] >= 0
    return p._derive(_core.keep_samples(p._core, keep.astype(np.uint8)))


def select_sample_types(p: "Profile", types: Sequence[Union[int, str]]) -> "Profile":
    if isinstance(types, (str, int)):
        types = [types]
    return p._derive(_core.select_sample_types(p._core, [p.sample_type_index(t) for t in types]))
