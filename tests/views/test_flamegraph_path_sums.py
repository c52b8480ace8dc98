"""The flame graph's call tree built from kept path sums (every sample type's frame
sums from one pass, ``_core.path_sums``, what the explorer keeps so a sample type
switch only re-splits) against the tree built from scratch for that sample
type: every column equal, on generated profiles (Hypothesis, several sample
types, inline frames, empty stacks, both directions) and on a heap profile."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import valid_profiles

import pprofcore
from pprofcore import _core
from pprofcore.display.flamegraph import keep_call_trees, stack_nodes

HEAP = pprofcore.load(pprofcore.__path__[0] + "/data/example-heap.pb.gz")


def assert_same_trees(p, by: str, inverted: bool, min_fraction: float) -> None:
    """Each sample type's tree with the kept sums equals the one built without."""
    nodes = stack_nodes(p, by)
    sums = _core.path_sums(p._core, nodes, inverted)
    for ti in range(len(p.sample_types)):
        kwargs = dict(inverted=inverted, min_fraction=min_fraction)
        a = _core.call_tree(p._core, nodes, ti, **kwargs)
        b = _core.call_tree(p._core, nodes, ti, sums=sums, **kwargs)
        assert a.keys() == b.keys()
        for k in a:
            if isinstance(a[k], np.ndarray):
                assert np.array_equal(a[k], b[k]), (ti, k)
            else:
                assert a[k] == b[k], (ti, k)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.sampled_from([0.0005, 0.05, 0.3]), st.booleans(), st.sampled_from(["functions", "lines"]))
def test_kept_sums_give_the_tree_built_from_scratch(msg, frac, inverted, by):
    p = pprofcore.loads(msg.SerializeToString())
    try:
        _core.path_sums(p._core, stack_nodes(p, by), inverted)
    except (ValueError, pprofcore.errors.ProfileError):  # no sample type, or sums past int64: refused alike
        with pytest.raises((ValueError, pprofcore.errors.ProfileError)):
            for ti in range(max(1, len(p.sample_types))):
                _core.call_tree(p._core, stack_nodes(p, by), ti, min_fraction=frac)
        return
    assert_same_trees(p, by, inverted, frac)


@pytest.mark.parametrize("inverted", [False, True])
def test_kept_sums_on_a_heap_profile(inverted):
    assert len(HEAP.sample_types) > 1
    assert_same_trees(HEAP, "functions", inverted, 0.0005)


def test_flamegraph_is_unchanged_by_kept_sums():
    p = pprofcore.load(pprofcore.__path__[0] + "/data/example-heap.pb.gz")
    before = [p.flamegraph(ti).nodes().to_pandas() for ti in range(len(p.sample_types))]
    keep_call_trees(p, "functions")
    assert p._derived.kept_trees[("functions", False)].nbytes > 0
    for ti, want in enumerate(before):
        assert p.flamegraph(ti).nodes().to_pandas().equals(want)


def test_sums_of_another_profile_or_direction_are_refused():
    other = pprofcore.load(pprofcore.__path__[0] + "/data/example-cpu.pb.gz")
    nodes = stack_nodes(HEAP, "functions")
    sums = _core.path_sums(HEAP._core, nodes, False)
    with pytest.raises(ValueError, match="another profile"):
        _core.call_tree(other._core, stack_nodes(other, "functions"), 0, min_fraction=0.01, sums=sums)
    with pytest.raises(ValueError, match="direction"):
        _core.call_tree(HEAP._core, nodes, 0, inverted=True, min_fraction=0.01, sums=sums)
