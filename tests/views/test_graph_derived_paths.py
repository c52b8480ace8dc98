"""The sample paths of a filtered profile copied from its parent's
(``_core.derived_sample_paths``, what the explorer does for focus, ignore and
label filters) against the paths built from scratch on the filtered profile:
every build of the call graph over them (each sample type, kept masks, edges,
tags) is the same, whether the kept samples are matched again or named by the
name filter's own record (``samples_kept_from``). Generated profiles (Hypothesis: recursion, zero and
negative values, labels) under every filter kind, including those the copy
must refuse (hide and show change the stacks)."""

from __future__ import annotations

import explorer_data
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import stacks_with_labels

from pprofcore import _core
from pprofcore._filter import samples_kept_from
from pprofcore.display.callgraph import derive_sample_paths, sample_paths
from pprofcore.display.flamegraph import stack_nodes

_samples = stacks_with_labels
_filters = st.sampled_from(
    [
        {"focus": "b"},
        {"ignore": "leaf"},
        {"focus": "a", "ignore": "c"},
        {"tagfocus": "tenant=x"},
        {"ignore": "^main$"},
        {"hide": "b"},
        {"show": "a|main"},
        {"show_from": "b"},
    ]
)


def graphs(p, table, paths) -> list:
    n = len(table.printable_names())
    out = []
    for ti in range(len(p.sample_types)):
        for mask in (None, (np.arange(n) % 3 != 1).astype(np.uint8)):
            out.append(_core.call_graph(p._core, table, ti, mask, 2, paths=paths))
            out.append(_core.call_graph(p._core, table, ti, mask, 0, edges=False, tags=False, paths=paths))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples, _filters, st.booleans())
def test_paths_copied_from_the_parent_equal_paths_built_anew(samples, filters, many_kept):
    parent = explorer_data.build(
        [(names, (v, 3 * v if many_kept else -v)) for names, v, _ in samples],
        labels=[lab for _, _, lab in samples],
    )
    sample_paths(parent, "functions")  # the parent's paths are cached, as after its Graph view
    child = parent.filter(warn=False, **filters)
    derive_sample_paths(child, parent)
    table = stack_nodes(child, "functions")
    got = sample_paths(child, "functions")
    want = _core.sample_paths(child._core, table)
    assert len(got) == len(want)
    big = 2 * len(child.stack_locations) >= len(parent.stack_locations)  # smaller ones are built anew
    if big and not {"hide", "show", "show_from"} & set(filters):  # these keep samples as they are: copied
        parent_table, parent_paths = stack_nodes(parent, "functions"), sample_paths(parent, "functions")
        assert _core.derived_sample_paths(child._core, table, parent._core, parent_table, parent_paths) is not None
    mask = samples_kept_from(child, parent)
    if mask is not None:  # the name filter's record: copied at any size, equal to the paths built anew
        parent_table, parent_paths = stack_nodes(parent, "functions"), sample_paths(parent, "functions")
        by_mask = _core.derived_sample_paths(child._core, table, parent._core, parent_table, parent_paths, mask)
        assert by_mask == want, filters
    for g, w in zip(graphs(child, table, got), graphs(child, table, want)):
        for key in w:
            assert np.array_equal(g[key], w[key]), (filters, key)


def test_paths_of_a_profile_with_other_samples_are_not_copied(cpu):
    """A profile whose samples are not some of the parent's (here: other
    values) gets None, and its paths are built anew; one with the same
    samples gets a copy."""
    table = stack_nodes(cpu, "functions")
    parent_paths = _core.sample_paths(cpu._core, table)

    def copied(p):
        return _core.derived_sample_paths(p._core, stack_nodes(p, "functions"), cpu._core, table, parent_paths)

    same = cpu.filter(focus=".")
    assert copied(same) is not None and len(copied(same)) == len(parent_paths)
    assert copied(cpu.scale(2)) is None
    few = cpu.filter(focus="sha256")  # under half the frames: built anew
    assert 2 * len(few.stack_locations) < len(cpu.stack_locations) and copied(few) is None
    many = cpu.filter(ignore="sha256")
    assert 2 * len(many.stack_locations) >= len(cpu.stack_locations) and copied(many) is not None


def test_paths_copied_by_the_filters_mask_equal_those_matched(cpu):
    """The name filter's kept mask gives the same paths as matching the
    samples again, also for a child too small to be matched (copied anyway);
    a mask that does not fit the parent or the child is refused."""
    table = stack_nodes(cpu, "functions")
    parent_paths = _core.sample_paths(cpu._core, table)
    for kwargs in ({"ignore": "sha256"}, {"focus": "sha256"}, {"focus": "main", "ignore": "runtime"}):
        child = cpu.filter(**kwargs)
        mask = samples_kept_from(child, cpu)
        assert mask is not None
        child_table = stack_nodes(child, "functions")
        got = _core.derived_sample_paths(child._core, child_table, cpu._core, table, parent_paths, mask)
        assert got == _core.sample_paths(child._core, child_table), kwargs
    with pytest.raises(RuntimeError, match="kept mask"):
        _core.derived_sample_paths(child._core, child_table, cpu._core, table, parent_paths, mask[1:])
    wrong = mask.copy()
    wrong[np.flatnonzero(wrong == 0)[0]] = 1
    with pytest.raises(RuntimeError, match="kept mask"):
        _core.derived_sample_paths(child._core, child_table, cpu._core, table, parent_paths, wrong)
