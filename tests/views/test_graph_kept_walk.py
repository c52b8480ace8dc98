"""The call graph built over a kept mask (``_core.call_graph`` with ``kept``,
over the sample paths and over the locations) against a plain walk over every
frame of every sample written here: flat, cum and the edges in the order they
are first met (weight, residual, inline). Generated profiles (Hypothesis:
recursion, repeated stacks, zero and negative values, labels splitting equal
stacks) and a profile with inlined frames. A faster build over a kept mask
(projected or deduplicated paths) must keep this test passing."""

from __future__ import annotations

import explorer_data
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pprofcore import _core
from pprofcore.display.callgraph import sample_paths
from pprofcore.display.flamegraph import stack_nodes


def reference_graph(p, table, ti: int, kept) -> dict:
    """pprof's graph walk over every frame, root first, each node and edge
    counted once per sample, calls over left-out nodes marked residual."""
    cols = table.columns()
    loc_off, loc_nodes = cols["loc_node_offsets"], cols["loc_nodes"]
    flat, cum = np.zeros(len(table), dtype=np.int64), np.zeros(len(table), dtype=np.int64)
    edges: dict = {}  # (caller, callee) -> [weight, residual, inline], in first-met order
    for s in range(len(p)):
        w = int(p.values[s, ti])
        if w == 0:
            continue
        seen, edges_seen, parent, residual = set(), set(), -1, False
        for loc in p.stack_locations[int(p.stack_offsets[s]) : int(p.stack_offsets[s + 1])][::-1]:
            for j, n in enumerate(loc_nodes[int(loc_off[loc]) : int(loc_off[loc + 1])][::-1]):
                n, is_inline = int(n), j > 0
                if not kept[n]:
                    residual = True
                    continue
                if n not in seen:
                    seen.add(n)
                    cum[n] += w
                if parent >= 0 and parent != n:
                    edge = edges.setdefault((parent, n), [0, False, is_inline])
                    if (parent, n) not in edges_seen:
                        edges_seen.add((parent, n))
                        edge[0] += w
                        edge[1] |= residual
                        edge[2] &= is_inline
                parent, residual = n, False
        if parent >= 0 and not residual:
            flat[parent] += w
    return {
        "flat": flat,
        "cum": cum,
        "src": [a for a, _ in edges],
        "dst": [b for _, b in edges],
        "weight": [e[0] for e in edges.values()],
        "residual": [int(e[1]) for e in edges.values()],
        "inline": [int(e[2]) for e in edges.values()],
    }


def check_kept_build(p, by: str, kept_of) -> None:
    table = stack_nodes(p, by)
    paths = sample_paths(p, by)
    kept = np.asarray(kept_of(len(table)), dtype=np.uint8)
    for ti in range(len(p.sample_types)):
        want = reference_graph(p, table, ti, kept)
        for with_paths in (paths, None):
            got = _core.call_graph(p._core, table, ti, kept, 0, tags=False, paths=with_paths)
            for k, v in want.items():
                assert np.array_equal(got[k], np.asarray(v, dtype=got[k].dtype)), (by, ti, k)


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
