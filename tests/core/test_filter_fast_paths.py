"""The explorer's fast paths give what the computations they skip would give:
the name filter without an expression (no copy) against the C++ pass, the
used-location mask against a count per location, the numeric label units
against a sort of the label keys, and the unit lookups against a scan of
pprof's unit tables; on random valid profiles (Hypothesis) and the examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import valid_profiles

import pprofcore
from pprofcore import _core, _filter, _units
from pprofcore._frames import num_label_units
from pprofcore._labels import filter_by_tag

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_units(p) -> dict:
    """num_label_units as it was computed before the cache: sorted unique keys."""
    lab = p.labels
    numeric = lab.str < 0
    with_unit = numeric & (lab.num_unit != 0)
    k, first = np.unique(lab.key[with_unit], return_index=True)
    units = dict(zip(k.tolist(), lab.num_unit[with_unit][first].tolist()))
    out = {}
    for key in np.unique(lab.key[numeric]).tolist():
        name = p._core.string(key)
        out[name] = (
            p._core.string(units[key]) if key in units else ("bytes" if name in ("alignment", "request") else name)
        )
    return out


def check_fast_paths(p) -> None:
    reference = p._derive(_core.filter_by_name(p._core, None, None, None, None)[0])
    assert _filter.filter_by_name(p, warn=False) == reference
    counts = np.bincount(p.stack_locations, minlength=len(p.locations))
    assert np.array_equal(_filter.used_locations(p), (counts > 0).astype(np.uint8))
    assert num_label_units(p) == reference_units(p)
    assert num_label_units(p) == reference_units(p)  # the kept copy


@SETTINGS
@given(valid_profiles())
def test_fast_paths_on_random_profiles(msg):
    check_fast_paths(pprofcore.loads(msg.SerializeToString()))


@pytest.mark.parametrize("kind", ["cpu", "heap"])
def test_fast_paths_on_the_examples(kind):
    p = pprofcore.load(pprofcore.example_path(kind))
    check_fast_paths(p)
    # A label filter alone: the tag filter runs on the shared profile, not a copy.
    expr = "bytes=16b:512b" if kind == "heap" else "worker=."
    fast = p.filter(tagfocus=expr)
    slow = filter_by_tag(p._derive(_core.filter_by_name(p._core, None, None, None, None)[0]), expr)
    assert 0 < len(fast) < len(p)
    assert fast == slow
    assert fast.top().to_text() == slow.top().to_text()  # the same totals and "Active filters"


def reference_scale(value: float, from_unit: str, to_unit: str):
    """pprof's measurement.Scale as a scan of the unit tables for every value."""

    def sniff(units, unit):
        unit = unit.lower()
        if len(unit) > 2 and unit.endswith("s"):
            unit = unit[:-1]
        return next((u for u in units if unit in u[1]), None)

    if value < 0:
        v, u = reference_scale(-value, from_unit, to_unit)
        return -v, u
    for units, dname, dfactor in _units._TYPES:
        f = sniff(units, from_unit)
        if f is None:
            continue
        v = value * f[2]
        if to_unit in ("minimum", "auto"):
            best, name = 0.0, ""
            for u in units:
                if u[2] >= best and v / u[2] >= 1.0:
                    best, name = u[2], u[0]
            return (v / dfactor, dname) if best == 0 else (v / best, name)
        t = sniff(units, to_unit)
        return (v / dfactor, dname) if t is None else (v / t[2], t[0])
    if to_unit in ("count", "sample", "unit", "minimum", "auto"):
        return float(value), ""
    return float(value), to_unit


UNIT_NAMES = sorted({a for units, _, _ in _units._TYPES for u in units for a in u[1] + (u[0],)})
units = st.one_of(st.sampled_from(UNIT_NAMES), st.sampled_from(UNIT_NAMES).map(str.upper), st.text(max_size=6))


@settings(max_examples=300, deadline=None)
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-(1 << 62), 1 << 62),
    from_unit=units,
    to_unit=units | st.sampled_from(["minimum", "auto", "count"]),
)
def test_scale_equals_a_scan_of_the_tables(value, from_unit, to_unit):
    assert _units.scale(value, from_unit, to_unit) == reference_scale(value, from_unit, to_unit)
