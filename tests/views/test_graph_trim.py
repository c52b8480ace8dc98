"""The call graph's trimming steps in C++ (``_core.graph_entropy_order``,
``_core.graph_remove_redundant_edges``) against pprof's EntropyOrder and
RemoveRedundantEdges written here in plain Python (graph.go's steps, one by
one), on random graphs (Hypothesis: negative and zero weights, self-sharing
names, residual edges, cycles) and on the graphs of real profiles."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import load_with_samples, one_per_producer

from pprofcore import _core
from pprofcore.display.callgraph import edge_entropy, go_int64, name_ranks, wrap64
from pprofcore.display.flamegraph import stack_nodes


def reference_entropy_order(g: dict, names: list) -> list:
    flat, cum, w = g["flat"], g["cum"], g["weight"]
    ins: dict = {}
    outs: dict = {}
    for e in np.flatnonzero(g["keep_edge"]):
        outs.setdefault(int(g["src"][e]), []).append(int(w[e]))
        ins.setdefault(int(g["dst"][e]), []).append(int(w[e]))
    scores = {}
    for n in g["nodes"]:
        n = int(n)
        s = 0.0
        s += edge_entropy(ins[n], 0) if n in ins else 1.0
        s += edge_entropy(outs[n], int(flat[n])) if n in outs else 1.0
        scores[n] = wrap64(go_int64(s * float(cum[n])) + int(flat[n]))
    return sorted(scores, key=lambda n: (-wrap64(abs(scores[n])), names[n], -abs(int(flat[n])), n))


def reference_redundant_edges(g: dict, order: list, names: list) -> np.ndarray:
    keep = np.array(g["keep_edge"], dtype=bool)
    src, dst, w, res = g["src"], g["dst"], g["weight"], g["residual"]
    ins: dict = {}
    for e in np.flatnonzero(keep):
        ins.setdefault(int(dst[e]), []).append(int(e))

    def reachable_without(edge: int) -> bool:
        seen = {int(dst[edge])}
        queue = deque(seen)
        while queue:
            for e in ins.get(queue.popleft(), []):
                s = int(src[e])
                if e == edge or s in seen:
                    continue
                if s == int(src[edge]):
                    return True
                seen.add(s)
                queue.append(s)
        return False

    for n in reversed(order):
        edges = sorted(ins.get(n, []), key=lambda e: (-abs(int(w[e])), names[int(src[e])], names[int(dst[e])]))
        for e in reversed(edges):
            if not res[e]:
                break
            if reachable_without(e):
                keep[e] = False
                ins[n].remove(e)
    return keep


def check_against_reference(g: dict, names: list) -> None:
    ranks = name_ranks(g, names)
    order = _core.graph_entropy_order(g, ranks).tolist()
    assert order == reference_entropy_order(g, names)
    keep = _core.graph_remove_redundant_edges(g, np.asarray(order, dtype=np.int32), ranks).astype(bool)
    assert keep.tolist() == reference_redundant_edges(g, order, names).tolist()


@st.composite
def graphs(draw):
    nn = draw(st.integers(1, 12))
    # big values whose sums stay inside int64, as the builds check they do
    value = st.integers(-(10**6), 10**6) | st.sampled_from([0, 1, -1, 2**57, -(2**57)])
    names = [draw(st.sampled_from("abcde")) for _ in range(nn)]  # shared names: ties broken further
    pairs = draw(st.lists(st.tuples(st.integers(0, nn - 1), st.integers(0, nn - 1)), max_size=30, unique=True))
    ne = len(pairs)
    g = {
        "flat": np.array([draw(value) for _ in range(nn)], dtype=np.int64),
        "cum": np.array([draw(value) for _ in range(nn)], dtype=np.int64),
        "src": np.array([a for a, _ in pairs], dtype=np.int32),
        "dst": np.array([b for _, b in pairs], dtype=np.int32),
        "weight": np.array([draw(value) for _ in range(ne)], dtype=np.int64),
        "residual": np.array([draw(st.integers(0, 1)) for _ in range(ne)], dtype=np.uint8),
        "keep_edge": np.array([draw(st.booleans()) for _ in range(ne)], dtype=bool),
    }
    g["nodes"] = np.array(sorted(draw(st.sets(st.integers(0, nn - 1), min_size=1))), dtype=np.int64)
    return g, names


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_trimming_steps_on_random_graphs(graph):
    check_against_reference(*graph)


@pytest.mark.parametrize("by", ["functions", "lines", "files"])
def test_trimming_steps_on_a_generated_profile(cpu, by):
    """The steps as a call graph build meets them: every node of the graph and
    its edges (the first entropy order), then the top nodes (the second)."""
    from_graph(cpu, by)


def _small(row) -> bool:
    return row.get("n_samples", "").isdigit() and 50 <= int(row["n_samples"]) <= 20000


@pytest.mark.parametrize("row", one_per_producer(_small, 6))
def test_trimming_steps_on_corpus_profiles(row):
    from_graph(load_with_samples(row), "functions")


def from_graph(p, by: str) -> None:
    table = stack_nodes(p, by, True)
    names = table.printable_names()
    g = _core.call_graph(p._core, table, len(p.sample_types) - 1, None, 0)
    g["nodes"] = np.flatnonzero((g["flat"] != 0) | (g["cum"] != 0))
    g["keep_edge"] = np.ones(len(g["src"]), dtype=bool)
    check_against_reference(g, names)
    top = np.zeros(len(names), dtype=np.uint8)
    top[reference_entropy_order(g, names)[:20]] = 1
    g = _core.call_graph(p._core, table, 0, top, 0)
    g["nodes"] = np.flatnonzero(top)
    g["keep_edge"] = np.ones(len(g["src"]), dtype=bool)
    check_against_reference(g, names)
