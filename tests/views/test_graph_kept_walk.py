"""The call graph built over a kept mask (``_core.call_graph`` with ``kept``,
over the sample paths and over the locations, its walk in one part or split
over threads) against a plain walk over every frame of every sample
(``graph_reference``): flat, cum and the edges in the order they are first
met (weight, residual, inline). Generated profiles (Hypothesis:
recursion, repeated stacks, zero and negative values, labels splitting equal
stacks) and a profile with inlined frames. A faster build over a kept mask
(projected or deduplicated paths) must keep this test passing."""

from __future__ import annotations

import explorer_data
import numpy as np
from graph_reference import reference_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pprofcore import _core
from pprofcore.display.callgraph import sample_paths
from pprofcore.display.flamegraph import stack_nodes


def check_kept_build(p, by: str, kept_of) -> None:
    table = stack_nodes(p, by)
    paths = sample_paths(p, by)
    kept = np.asarray(kept_of(len(table)), dtype=np.uint8)
    for ti in range(len(p.sample_types)):
        want = reference_graph(p, table, ti, kept)
        for with_paths, walk_parts in ((paths, 0), (paths, 3), (None, 0), (None, 2)):
            got = _core.call_graph(p._core, table, ti, kept, 0, tags=False, paths=with_paths, walk_parts=walk_parts)
            for k, v in want.items():
                assert np.array_equal(got[k], np.asarray(v, dtype=got[k].dtype)), (by, ti, walk_parts, k)


_frames = st.sampled_from(["main", "a", "b", "c", "leaf"])
_samples = st.lists(
    st.tuples(
        st.lists(_frames, min_size=1, max_size=7),
        st.integers(-50, 200),
        st.sampled_from([[], [("tenant", "x", "")], [("bytes", 64, "bytes")]]),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples, st.lists(st.booleans(), min_size=1, max_size=6))
def test_kept_build_equals_the_frame_walk(samples, keep):
    p = explorer_data.build([(names, (v, -v)) for names, v, _ in samples], labels=[lab for _, _, lab in samples])
    check_kept_build(p, "functions", lambda n: [keep[i % len(keep)] for i in range(n)])


def test_kept_build_on_inlined_frames(heap):
    rng = np.random.default_rng(29)
    for by in ("functions", "lines"):
        check_kept_build(heap, by, lambda n: rng.random(n) < 0.3)
