"""The flame graph's kept trees (``_core.kept_tree``: every sample type's trimmed
tree from one split, what the explorer keeps so a sample type switch reads the
tree off it) and the ones a filtered profile derives from them
(``_core.derive_kept_tree``: the parent's less the dropped samples, for focus,
ignore and label filters), against the tree built from scratch on
``Profile.filter(...)``'s result: every column equal, on generated profiles
(Hypothesis: several sample types, signed values, inline frames, empty
stacks, both directions), a heap profile and the explorer's flame graph view."""

from __future__ import annotations

import re
import warnings
from urllib.parse import parse_qsl

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import valid_profiles

import pprofcore
from pprofcore import _core
from pprofcore.display.flamegraph import derive_call_trees, keep_call_trees, stack_nodes
from pprofcore.errors import FilterWarning, ProfileError

HEAP = pprofcore.__path__[0] + "/data/example-heap.pb.gz"
FRACTIONS = (0.0005, 0.05, 0.3)


def assert_same_tree(a: dict, b: dict, what) -> None:
    assert a.keys() == b.keys(), what
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert np.array_equal(a[k], b[k]), (what, k)
        else:
            assert a[k] == b[k], (what, k)


def assert_trees_read_off(p, kept, by: str, inverted: bool) -> int:
    """Every type's tree with ``kept`` equals the one built from scratch; returns
    how many were read off the kept tree (not split from its sums)."""
    nodes = stack_nodes(p, by)
    covered = 0
    for ti in range(len(p.sample_types)):
        for frac in FRACTIONS:
            kwargs = dict(inverted=inverted, min_fraction=frac)
            want = _core.call_tree(p._core, nodes, ti, **kwargs)
            assert_same_tree(want, _core.call_tree(p._core, nodes, ti, kept=kept, **kwargs), (ti, frac))
            covered += kept.covers(ti, frac)
    return covered


def filtered(p, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FilterWarning)
        return p.filter(**kwargs)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    valid_profiles(),
    st.booleans(),
    st.sampled_from(["functions", "lines"]),
    st.sampled_from(["ignore", "focus", "hide"]),
    st.integers(0, 10),
)
def test_kept_and_derived_trees_equal_trees_built_from_scratch(msg, inverted, by, kind, pick):
    p = pprofcore.loads(msg.SerializeToString())
    try:
        kept = _core.kept_tree(p._core, stack_nodes(p, by), inverted, 0.0005)
    except (ValueError, ProfileError):  # no sample type, or sums past int64: refused alike
        with pytest.raises((ValueError, ProfileError)):
            for ti in range(max(1, len(p.sample_types))):
                _core.call_tree(p._core, stack_nodes(p, by), ti, min_fraction=0.0005)
        return
    assert len(kept) >= 1
    assert_trees_read_off(p, kept, by, inverted)
    names = sorted({n for n in p.functions.name if isinstance(n, str) and n})
    if not names:
        return
    child = filtered(p, **{kind: "^" + re.escape(names[pick % len(names)]) + "$"})
    try:
        sub = _core.derive_kept_tree(child._core, stack_nodes(child, by), kept)
    except ProfileError:
        return
    if sub is not None:  # None: a child that hid frames, or one split anew more cheaply
        assert_trees_read_off(child, sub, by, inverted)


def test_heap_profile_every_type_is_read_off():
    p = pprofcore.load(HEAP)
    kept = _core.kept_tree(p._core, stack_nodes(p, "functions"), False, 0.0005)
    assert assert_trees_read_off(p, kept, "functions", False) == len(p.sample_types) * len(FRACTIONS)


@pytest.mark.parametrize("kwargs", [{"ignore": "compress"}, {"focus": "main"}, {"tagfocus": "bytes=:1MB"}])
def test_filtered_heap_profile_derives_its_trees(kwargs):
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    child = filtered(p, **kwargs)
    assert child._derived is not p._derived and len(child) < len(p)
    derive_call_trees(child, p, "functions")
    sub = child._derived.kept_trees.get(("functions", False))
    fresh = filtered(pprofcore.load(HEAP), **kwargs)  # nothing kept: every tree built from scratch
    for ti in range(len(p.sample_types)):
        assert_same_tree(child.flamegraph(ti)._tree, fresh.flamegraph(ti)._tree, ti)
    assert sub is not None and all(sub.covers(ti, 0.0005) for ti in range(len(p.sample_types)))
    assert_trees_read_off(child, sub, "functions", False)


def test_only_the_first_granularity_is_kept():
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    keep_call_trees(p, "lines")
    assert list(p._derived.kept_trees) == [("functions", False)]
    assert p._derived.kept_trees[("functions", False)].nbytes > 0


def test_a_kept_tree_of_another_profile_or_direction_is_refused():
    p, other = pprofcore.load(HEAP), pprofcore.load(pprofcore.example_path())
    nodes = stack_nodes(p, "functions")
    kept = _core.kept_tree(p._core, nodes, False, 0.0005)
    with pytest.raises(ValueError, match="another profile"):
        _core.call_tree(other._core, stack_nodes(other, "functions"), 0, min_fraction=0.01, kept=kept)
    with pytest.raises(ValueError, match="direction"):
        _core.call_tree(p._core, nodes, 0, inverted=True, min_fraction=0.01, kept=kept)
    with pytest.raises(ProfileError, match="slack"):
        _core.kept_tree(p._core, nodes, False, 0.0005, 0.0)


def test_explorer_flamegraph_after_filters_equals_a_fresh_build():
    pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
    pytest.importorskip("httpx", reason="the Starlette test client needs httpx")
    from pprofcore.display.html import flamegraph_data
    from pprofcore.web import Session, State
    from pprofcore.web._views import view

    p = pprofcore.load(HEAP)
    session = Session([("heap", p)])
    first = view(session, "flamegraph", State())
    assert p._derived.kept_trees  # the first page kept every type's tree
    for query in ["si=alloc_space", "i=compress", "f=main&si=alloc_objects", "h=runtime", "s=main", "tf=bytes%3D:1MB"]:
        state = State.from_query(dict(parse_qsl(query)))
        got = view(session, "flamegraph", state)["flame"]
        want = filtered(pprofcore.load(HEAP), **state.filters()).flamegraph(state.sample_type(), by="functions")
        assert got == flamegraph_data(want), query
        if query.startswith(("i=", "tf=")):  # kept samples unchanged: the tree was derived
            assert session.refined(state)[0]._derived.kept_trees[("functions", False)] is not None
    assert first["flame"]["total"][0] == p.flamegraph().total
