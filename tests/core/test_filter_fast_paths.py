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

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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


def scan(units, unit: str):
    """pprof's unit sniffing as a scan of one table (what the dict lookup replaced)."""
    unit = unit.lower()
    if len(unit) > 2 and unit.endswith("s"):
        unit = unit[:-1]
    return next((u for u in units if unit in u[1]), None)


UNIT_NAMES = sorted({a for units, _, _ in _units._TYPES for u in units for a in u[1] + (u[0],)})
units = st.one_of(st.sampled_from(UNIT_NAMES), st.sampled_from(UNIT_NAMES).map(str.upper), st.text(max_size=6))


@settings(max_examples=150, deadline=None)
@given(unit=units)
def test_unit_lookups_equal_a_scan_of_the_tables(unit):
    for table, _, _ in _units._TYPES:
        assert _units._sniff(table, unit) == scan(table, unit)
    first = [(table, (name, factor), scan(table, unit)) for table, name, factor in _units._TYPES]
    assert _units._family(unit) == next((f for f in first if f[2] is not None), None)
