"""Node tables built from per-location sums (``_core.location_sums`` and
``_core.aggregate_from_locations``: each node's cum is its location's when it
sits in one place, the rest walked), which Top at lines and addresses
granularity uses. Held to the table aggregated over every frame, column for
column, on Hypothesis profiles (several sample types, inline frames,
recursion, empty stacks) at every granularity with the walk forced, and
Top's text to Top with the fast path switched off; the bundled examples
and a corpus file take the fast path itself."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import valid_profiles
from testenv import CORPUS

import pprofcore
from pprofcore import _core
from pprofcore.errors import ProfileError
from pprofcore.reports import _nodes

EXAMPLES = [pprofcore.__path__[0] + "/data/example-cpu.pb.gz", pprofcore.__path__[0] + "/data/example-heap.pb.gz"]
GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]
BIG = os.path.join(CORPUS, "go/generated/gen-bigheap-150k.raw.pb")


def table_fields(t) -> dict:
    """Every column of a node table as lists, with its names and files."""
    fields = {name: np.asarray(col).tolist() for name, col in t.columns().items()}
    fields["printable"], fields["files"] = t.printable_names(), t.files()
    return fields


def check_located(p, key, share: float = 1.0) -> bool:
    """The located table of ``key`` (walking up to ``share`` of the frames)
    equals the aggregated one; returns whether it was built."""
    got = _core.aggregate_from_locations(p._core, _core.location_sums(p._core), *key, max_walked_share=share)
    if got is not None:
        assert table_fields(got) == table_fields(_core.aggregate(p._core, *key))
    return got is not None


def top_text(p, ti: int, by: str):
    try:
        return p.top(sample_type=ti, by=by).to_text()
    except ProfileError as e:  # sums past int64: refused alike
        return type(e)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.data())
def test_located_tables_equal_aggregated_ones(msg, data):
    data_bytes = msg.SerializeToString()
    p = pprofcore.loads(data_bytes)
    if not p.sample_types:
        return
    by = data.draw(st.sampled_from(GRANULARITIES))
    key = (by, data.draw(st.booleans()), data.draw(st.sampled_from([-1, 0])), data.draw(st.sampled_from([-1, 0])))
    assert check_located(p, key)
    ti = len(p.sample_types) - 1
    want = top_text(pprofcore.loads(data_bytes), ti, by)
    if by in _nodes.LOCATED_GRANULARITIES:  # Top with the fast path (when it does not decline) against without
        fresh = pprofcore.loads(data_bytes)
        saved = _nodes.LOCATED_GRANULARITIES
        _nodes.LOCATED_GRANULARITIES = ()
        try:
            want = top_text(fresh, ti, by)
        finally:
            _nodes.LOCATED_GRANULARITIES = saved
    assert top_text(p, ti, by) == want


@pytest.mark.parametrize("path", EXAMPLES, ids=["cpu", "heap"])
def test_examples_take_the_located_path(path):
    p = pprofcore.load(path)
    for by in _nodes.LOCATED_GRANULARITIES:
        assert check_located(p, (by, True, -1, -1), share=0.5), by
    p.top(by="lines")
    assert p._derived.location_sums is not None


def test_a_large_profile_takes_the_located_path():
    if not os.path.exists(BIG):
        pytest.skip(f"corpus file {BIG} is absent (the shared corpus is not checked out)")
    p = pprofcore.load(BIG)
    assert check_located(p, ("lines", True, -1, -1), share=0.5)


def test_sums_of_another_profile_are_refused():
    cpu, heap = (pprofcore.load(path) for path in EXAMPLES)
    with pytest.raises(Exception, match="not the profile's"):
        _core.aggregate_from_locations(cpu._core, _core.location_sums(heap._core), "lines")
