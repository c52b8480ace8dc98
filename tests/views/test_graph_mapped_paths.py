"""The sample paths of one granularity renamed from another's cached paths
(``_core.mapped_sample_paths``, what the explorer does when the granularity
changes and the nodes map one for one, e.g. files from lines) against the
paths walked anew: the paths, repeat marks and every sample type's sums are
the same, in one part or several. Pairs whose nodes do not map (functions
from lines) are refused. Generated profiles (Hypothesis: recursion, zero and
negative values, functions sharing a file) and the bundled profiles (inlined
frames)."""

from __future__ import annotations

import itertools

import explorer_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore import _core
from pprofcore.display.callgraph import sample_paths
from pprofcore.display.flamegraph import stack_nodes

GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses")
_frames = st.sampled_from(["main", "a", "b", "c", "leaf"])
_stacks = st.lists(st.tuples(st.lists(_frames, min_size=0, max_size=7), st.integers(-50, 200)), min_size=1, max_size=30)
_files = st.dictionaries(_frames, st.sampled_from(["x.go", "y.go", ""]))


def check_mapped_paths(p) -> int:
    """Every pair of granularities: renamed paths equal those walked anew;
    returns how many pairs mapped."""
    mapped = 0
    for by, from_by in itertools.permutations(GRANULARITIES, 2):
        table, from_table = stack_nodes(p, by), stack_nodes(p, from_by)
        from_paths = _core.sample_paths(p._core, from_table)
        want = _core.sample_paths(p._core, table)
        for parts in (1, 3):
            got = _core.mapped_sample_paths(p._core, table, from_table, from_paths, parts)
            if got is not None:
                assert got == want, (by, from_by, parts)
                mapped += 1
    return mapped


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_stacks, _files)
def test_renamed_paths_equal_paths_walked_anew(stacks, files):
    p = explorer_data.build([(names, (v, -v)) for names, v in stacks], files=files)
    assert check_mapped_paths(p) > 0


def test_renamed_paths_on_inlined_frames(heap, cpu):
    for p in (heap, cpu):
        assert check_mapped_paths(p) > 0
        lines, files = stack_nodes(p, "lines"), stack_nodes(p, "files")
        from_lines = _core.mapped_sample_paths(p._core, files, lines, _core.sample_paths(p._core, lines))
        assert from_lines is not None  # a line's node always names one file


def test_functions_are_not_renamed_from_lines(cpu):
    lines, functions = stack_nodes(cpu, "lines"), stack_nodes(cpu, "functions")
    paths = _core.sample_paths(cpu._core, lines)
    assert _core.mapped_sample_paths(cpu._core, functions, lines, paths) is not None
    assert _core.mapped_sample_paths(cpu._core, lines, functions, _core.sample_paths(cpu._core, functions)) is None


def test_the_explorer_renames_a_cached_granularity():
    """sample_paths of a new granularity on a profile with another's cached:
    equal to a walk anew."""
    p = pprofcore.load(pprofcore.example_path("heap"))  # a profile of its own, nothing cached yet
    sample_paths(p, "lines")
    got = sample_paths(p, "files")
    assert got == _core.sample_paths(p._core, stack_nodes(p, "files"))
