"""The sample paths built in parts on threads (``_core.sample_paths`` with
``parts``, what a profile of 100,000 samples or more gets while a core is
idle) against the same paths walked in one part and against the plain frame
walk (``graph_reference``): the paths, their repeat marks and every sample
type's sums are the same whatever the split, and so is the graph over them.
Generated profiles (Hypothesis: recursion, zero and negative values, one to
five sample types, more parts than samples) and a profile with inlined
frames."""

from __future__ import annotations

import explorer_data
import numpy as np
from graph_reference import reference_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pprofcore import _core
from pprofcore.display.flamegraph import stack_nodes

_frames = st.sampled_from(["main", "a", "b", "c", "leaf"])
_stacks = st.lists(st.tuples(st.lists(_frames, min_size=0, max_size=7), st.integers(-50, 200)), min_size=1, max_size=30)


def check_split_paths(p, by: str) -> None:
    table = stack_nodes(p, by)
    whole = _core.sample_paths(p._core, table, 1)
    kept = np.ones(len(table), dtype=np.uint8)
    for parts in (0, 2, 3, 7):
        split = _core.sample_paths(p._core, table, parts)
        assert split == whole, (by, parts)
        for ti in range(len(p.sample_types)):
            got = _core.call_graph(p._core, table, ti, None, 0, tags=False, paths=split)
            for k, v in reference_graph(p, table, ti, kept).items():
                assert np.array_equal(got[k], np.asarray(v, dtype=got[k].dtype)), (by, parts, ti, k)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_stacks, st.integers(1, 5))
def test_paths_split_over_threads_equal_one_walk(stacks, num_types):
    types = [(f"t{k}", "count") for k in range(num_types)]
    p = explorer_data.build(
        [(names, [v * (k + 1) * (-1) ** k for k in range(num_types)]) for names, v in stacks], sample_types=types
    )
    check_split_paths(p, "functions")


def test_paths_split_on_inlined_frames(heap):
    for by in ("functions", "lines", "files"):
        check_split_paths(heap, by)
