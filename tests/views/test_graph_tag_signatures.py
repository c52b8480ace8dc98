"""The label tag signatures a call graph build finds (what each sample adds to
its nodes' tags), handed from cached paths to new ones instead of found
again (``_core.share_tag_signatures``, and the copies inside
``derived_sample_paths`` and ``mapped_sample_paths``): a graph built over
paths given them equals one built over paths that find their own, for every
filter the explorer applies (the name filter's hidden frames included) and
for another granularity of the same profile. Profiles whose labels differ,
or masks that do not fit, are refused. A filter's derived paths share the
parent's node array instead of copying it: renamed to another granularity
or derived again, they read as paths walked anew."""

from __future__ import annotations

import explorer_data
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pprofcore import _core
from pprofcore._filter import samples_kept_from
from pprofcore.display.callgraph import derive_sample_paths, sample_paths
from pprofcore.display.flamegraph import stack_nodes

_frames = st.sampled_from(["main", "a", "b", "c", "leaf"])
_labels = st.sampled_from(
    [
        [],
        [("tenant", "x", "")],
        [("tenant", "y", "")],
        [("bytes", 64, "bytes")],
        [("bytes", 128, "bytes"), ("tenant", "x", "")],
        [("bytes", 64, "bytes"), ("bytes", 32, "bytes")],
    ]
)
_samples = st.lists(
    st.tuples(st.lists(_frames, min_size=1, max_size=6), st.integers(-50, 200), _labels), min_size=1, max_size=25
)
_filters = st.sampled_from(
    [
        {"focus": "b"},
        {"ignore": "leaf"},
        {"hide": "b"},
        {"show": "a|main"},
        {"hide": "c", "ignore": "leaf"},
        {"tagfocus": "tenant=x"},
        {"taghide": "tenant"},
        {"show_from": "b"},
    ]
)


def tag_graphs(p, table, paths) -> list:
    """Every sample type's graph with tags, over all nodes and over a mask."""
    n = len(table.printable_names())
    out = []
    for ti in range(len(p.sample_types)):
        for mask in (None, (np.arange(n) % 3 != 1).astype(np.uint8)):
            for cutoff in (0, 2):
                out.append(_core.call_graph(p._core, table, ti, mask, cutoff, paths=paths))
    return out


def assert_same_graphs(got: list, want: list, what) -> None:
    for g, w in zip(got, want):
        for key in w:
            assert np.array_equal(g[key], w[key]), (what, key)


def parent_with_signatures(samples):
    parent = explorer_data.build(
        [(names, (v, 3 * v)) for names, v, _ in samples], labels=[lab for _, _, lab in samples]
    )
    paths = sample_paths(parent, "functions")
    _core.call_graph(parent._core, stack_nodes(parent, "functions"), 0, None, 0, paths=paths)  # finds them
    return parent


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples, _filters, st.sampled_from(["functions", "lines", "files"]))
def test_filtered_graphs_with_the_parents_signatures_equal_graphs_anew(samples, filters, by):
    parent = parent_with_signatures(samples)
    child = parent.filter(warn=False, **filters)
    derive_sample_paths(child, parent)
    table = stack_nodes(child, by)
    got = sample_paths(child, by)  # copied, renamed or walked, signatures handed over where they fit
    want = _core.sample_paths(child._core, table)  # finds its own
    assert got == want
    if set(filters) <= {"focus", "ignore", "hide", "show"}:  # the name filter's children are handed them
        assert got.nbytes > want.nbytes
    assert_same_graphs(tag_graphs(child, table, got), tag_graphs(child, table, want), (filters, by))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples)
def test_another_granularity_of_the_same_profile_shares_them(samples):
    p = parent_with_signatures(samples)
    for by in ("lines", "files", "filefunctions", "addresses"):
        table = stack_nodes(p, by)
        got = sample_paths(p, by)
        want = _core.sample_paths(p._core, table)
        assert got.nbytes > want.nbytes  # handed over, not found yet
        assert_same_graphs(tag_graphs(p, table, got), tag_graphs(p, table, want), by)


def test_share_refuses_what_does_not_fit():
    p = explorer_data.plain()
    table = stack_nodes(p, "functions")
    paths = _core.sample_paths(p._core, table)
    fresh = _core.sample_paths(p._core, table)
    assert not _core.share_tag_signatures(p._core, fresh, p._core, paths)  # none found yet
    _core.call_graph(p._core, table, 0, None, 0, paths=paths)
    assert _core.share_tag_signatures(p._core, fresh, p._core, paths)
    child = p.filter(ignore="hash")
    child_table = stack_nodes(child, "functions")
    kept = child._derived.filter_origin[1]
    assert not _core.share_tag_signatures(child._core, _core.sample_paths(child._core, child_table), p._core, paths)
    assert _core.share_tag_signatures(child._core, _core.sample_paths(child._core, child_table), p._core, paths, kept)
    assert not _core.share_tag_signatures(
        child._core, _core.sample_paths(child._core, child_table), p._core, paths, kept[1:]
    )
    # the same samples with other labels: the signatures would be another's
    relabelled = child.filter(taghide="endpoint")
    assert len(relabelled.values) == len(child.values)
    other = _core.sample_paths(relabelled._core, stack_nodes(relabelled, "functions"))
    assert not _core.share_tag_signatures(relabelled._core, other, p._core, paths, kept)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples, st.sampled_from([{"focus": "b"}, {"ignore": "leaf"}, {"focus": "main", "ignore": "c"}]))
def test_paths_sharing_the_parents_nodes_read_as_paths_walked_anew(samples, filters):
    """A name filter's child keeps its parent's node array (each kept path
    where it lies there); renaming those paths to another granularity and
    deriving a grandchild's from them read the same paths as walks anew."""
    parent = parent_with_signatures(samples)
    child = parent.filter(warn=False, **filters)
    derive_sample_paths(child, parent)
    shared = sample_paths(child, "functions")
    assert shared == _core.sample_paths(child._core, stack_nodes(child, "functions"))
    assert len(shared) == len(child.stack_locations)  # one node per frame: no inlined frames here
    for by in ("files", "filefunctions", "lines"):
        table = stack_nodes(child, by)
        renamed = _core.mapped_sample_paths(child._core, table, stack_nodes(child, "functions"), shared)
        if renamed is not None:
            assert renamed == _core.sample_paths(child._core, table), by
    grandchild = child.filter(warn=False, ignore="^a$")
    kept = samples_kept_from(grandchild, child)
    table = stack_nodes(grandchild, "functions")
    again = _core.derived_sample_paths(
        grandchild._core, table, child._core, stack_nodes(child, "functions"), shared, kept
    )
    want = _core.sample_paths(grandchild._core, table)
    assert again is None or again == want
    if again is not None:
        assert_same_graphs(tag_graphs(grandchild, table, again), tag_graphs(grandchild, table, want), filters)
