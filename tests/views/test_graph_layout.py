"""The explorer's graph layout (``_core.graph_layout``, C++ layered layout) as
properties on generated graphs: boxes never overlap, every route starts on its
caller's box and ends on its callee's, a DAG's edges all point down the page
(each route's points go down), a cycle is drawn with edges marked upward, and
the same input gives the same output. Then ``display/callgraph_layout`` on
real call graphs: one drawn node per graph node with its numbers, one route
per edge, pprof's edge styles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pprofcore import _core
from pprofcore.display.callgraph_layout import callgraph_layout
from pprofcore.errors import ProfileError

EPS = 1e-6


@st.composite
def graphs(draw, dag: bool):
    n = draw(st.integers(1, 24))
    width = draw(st.lists(st.floats(0, 200, allow_nan=False), min_size=n, max_size=n))
    height = draw(st.lists(st.floats(0, 80, allow_nan=False), min_size=n, max_size=n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n, unique=True))
    if dag:  # edges from a lower index to a higher one: no cycle
        pairs = [(a, b) for a, b in pairs if a < b]
    src = np.array([a for a, _ in pairs], dtype=np.int32)
    dst = np.array([b for _, b in pairs], dtype=np.int32)
    return np.array(width), np.array(height), src, dst


def _route(lay, e):
    lo, hi = int(lay["point_offsets"][e]), int(lay["point_offsets"][e + 1])
    return list(zip(lay["px"][lo:hi].tolist(), lay["py"][lo:hi].tolist()))


def _on_box(point, x, y, w, h, eps=EPS) -> bool:
    px, py = point
    inside = x - w / 2 - eps <= px <= x + w / 2 + eps and y - h / 2 - eps <= py <= y + h / 2 + eps
    on_side = min(abs(px - (x - w / 2)), abs(px - (x + w / 2)), abs(py - (y - h / 2)), abs(py - (y + h / 2))) <= eps
    return inside and on_side


def _check_invariants(width, height, src, dst, lay):
    x, y, n = lay["x"], lay["y"], len(width)
    for i in range(n):  # boxes apart (touching allowed only for empty boxes)
        for j in range(i + 1, n):
            apart_x = abs(x[i] - x[j]) >= (width[i] + width[j]) / 2 - EPS
            apart_y = abs(y[i] - y[j]) >= (height[i] + height[j]) / 2 - EPS
            assert apart_x or apart_y, f"boxes {i} and {j} overlap"
        assert x[i] - width[i] / 2 >= -EPS and x[i] + width[i] / 2 <= lay["width"] + EPS
        assert y[i] - height[i] / 2 >= -EPS and y[i] + height[i] / 2 <= lay["height"] + EPS
    assert len(lay["point_offsets"]) == len(src) + 1
    for e, (s, d) in enumerate(zip(src.tolist(), dst.tolist())):
        route = _route(lay, e)
        assert len(route) >= 2
        assert _on_box(route[0], x[s], y[s], width[s], height[s]), f"edge {e} does not start on node {s}"
        assert _on_box(route[-1], x[d], y[d], width[d], height[d]), f"edge {e} does not end on node {d}"
        if s != d:
            ys = [p[1] for p in route]
            step = np.diff(ys)
            assert (step > 0).all() if not lay["upward"][e] else (step < 0).all(), f"edge {e} zigzags"


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _laid_out(g):
    """The layout of generated graph ``g``, its invariants checked."""
    width, height, src, dst = g
    lay = _core.graph_layout(width, height, src, dst)
    _check_invariants(width, height, src, dst, lay)
    return lay


@PROPERTY
@given(graphs(dag=True))
def test_dag_layout_invariants(g):
    lay, src, dst = _laid_out(g), g[2], g[3]
    assert not lay["upward"].any(), "a DAG's edges all point down"
    assert all(lay["rank"][s] < lay["rank"][d] for s, d in zip(src, dst))


@PROPERTY
@given(graphs(dag=False))
def test_layout_invariants_with_cycles_and_loops(g):
    lay, src, dst = _laid_out(g), g[2], g[3]
    again = _core.graph_layout(*g)
    for key in ("x", "y", "rank", "upward", "point_offsets", "px", "py"):
        assert np.array_equal(lay[key], again[key]), f"{key} differs between two runs"
    # edges not marked upward form a DAG that the ranks follow
    for e, (s, d) in enumerate(zip(src.tolist(), dst.tolist())):
        if s != d:
            a, b = (d, s) if lay["upward"][e] else (s, d)
            assert lay["rank"][a] < lay["rank"][b]


def test_bad_input_is_refused():
    with pytest.raises(ProfileError, match="out of range"):
        _core.graph_layout(np.ones(2), np.ones(2), np.array([0], dtype=np.int32), np.array([5], dtype=np.int32))
    with pytest.raises(ProfileError, match="non-finite"):
        _core.graph_layout(np.array([np.nan]), np.ones(1), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))


@pytest.mark.parametrize("by", ["functions", "lines", "files"])
def test_callgraph_layout_draws_the_call_graph(cpu, by):
    g = cpu.callgraph(by=by)
    lay = callgraph_layout(g)
    nodes, edges = g.nodes(), g.edges()
    assert [n["name"] for n in lay["nodes"]] == list(nodes["name"])
    assert [n["flat"] for n in lay["nodes"]] == nodes["flat"].tolist()
    assert [n["cum"] for n in lay["nodes"]] == nodes["cum"].tolist()
    assert [(e["src"], e["dst"], e["weight"]) for e in lay["edges"]] == list(
        zip(edges["src"].tolist(), edges["dst"].tolist(), edges["weight"].tolist())
    )
    styles = ["dotted" if r else "dashed" if i else "solid" for i, r in zip(edges["inline"], edges["residual"])]
    assert [e["style"] for e in lay["edges"]] == styles
    boxes = lay["nodes"]
    for e in lay["edges"]:
        s, d = boxes[e["src"]], boxes[e["dst"]]
        # the drawing's numbers are rounded to 0.1
        assert _on_box(e["points"][0], s["x"], s["y"], s["w"], s["h"], eps=0.2)
        assert _on_box(e["points"][-1], d["x"], d["y"], d["w"], d["h"], eps=0.2)
    assert callgraph_layout(g) == lay  # deterministic
