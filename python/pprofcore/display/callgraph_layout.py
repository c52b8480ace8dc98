"""A call graph laid out without Graphviz, for the explorer: the boxes, labels,
colours and edge styles of pprof's graph (``go tool pprof -http``'s Graph
view) with positions from the C++ layered layout (``_core.graph_layout``).
The page draws the result as SVG (``web/assets/explorer.js``, ``draw_graph``).
Graphviz stays the drawer of ``CallGraph.to_svg`` and the CLI's ``-svg``.

Box sizes are estimated from the text (no font metrics on the server): each
character is taken as 0.6 of the font size wide, which holds for the page's
sans-serif faces; a name longer than :data:`MAX_LABEL_CHARS` is cut.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List

import numpy as np

from .. import _core, _units
from .dot import dot_color, label_lines

if TYPE_CHECKING:  # pragma: no cover
    from .callgraph import CallGraph

CHAR_WIDTH = 0.6  # of the font size: a sans-serif character's mean advance
LINE_HEIGHT = 1.2  # of the font size
PAD = 4.0  # inside a box, around its text
MAX_LABEL_CHARS = 60  # a longer label line ends in "…" (the hover text has it all)


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LABEL_CHARS else line[: MAX_LABEL_CHARS - 1] + "\u2026"


def callgraph_layout(graph: "CallGraph") -> Dict[str, Any]:
    """JSON-ready drawing of ``graph``: ``nodes`` (name, label lines, font size,
    colours, box centre ``x, y`` and size ``w, h``, flat, cum), ``edges`` (node
    indices, label, pen width, colour, ``style`` solid, dashed for an inlined
    call or dotted for a residual one, ``points``: the route from the caller's
    box to the callee's), ``legend`` lines and the drawing's ``width`` and
    ``height``. Deterministic."""
    nodes_t, edges_t = graph.nodes(), graph.edges()
    cols, files = graph._table.columns(), graph._table.files()
    unit, tot = graph.unit, abs(int(graph.total)) or 1
    flat, cum = nodes_t["flat"], nodes_t["cum"]
    max_flat = float(max((abs(int(f)) for f in flat), default=0))

    def fmt(v: int) -> str:
        return _units.scaled_label(int(v), unit, "auto")

    def pct(v: int) -> str:
        return f"{100 * abs(int(v)) / tot:.2f}%"

    nodes: List[Dict[str, Any]] = []
    for i, r in enumerate(graph._order):
        f, c = int(flat[i]), int(cum[i])
        lines = [
            _cut(x)
            for x in label_lines(
                int(cols["address"][r]),
                graph._profile._tables_core.string(int(cols["name"][r])),
                files[r] if files else "",
                int(cols["lineno"][r]),
                graph._profile._tables_core.string(int(cols["objfile"][r])),
            )
        ]
        # pprof's value lines: "flat (x%)" over "of cum (y%)", or "0 of cum (y%)"
        if f == 0:
            lines.append("0" if c == 0 else f"0 of {fmt(c)} ({pct(c)})")
        else:
            lines.append(f"{fmt(f)} ({pct(f)})")
            if c != f:
                lines.append(f"of {fmt(c)} ({pct(c)})")
        size = 8 + (int(math.ceil(16.0 * math.sqrt(abs(f) / max_flat))) if max_flat and f else 0)
        share = c / tot
        nodes.append(
            {
                "name": nodes_t["name"][i],
                "lines": lines,
                "fontsize": size,
                "color": dot_color(share, False),
                "fill": dot_color(share, True),
                "flat": f,
                "cum": c,
                "w": max(len(x) for x in lines) * size * CHAR_WIDTH + 2 * PAD,
                "h": len(lines) * size * LINE_HEIGHT + 2 * PAD,
            }
        )
    src = np.asarray(edges_t["src"], dtype=np.int32)
    dst = np.asarray(edges_t["dst"], dtype=np.int32)
    placed = _core.graph_layout(
        np.array([n["w"] for n in nodes], dtype=np.float64),
        np.array([n["h"] for n in nodes], dtype=np.float64),
        src,
        dst,
    )
    for i, n in enumerate(nodes):
        n["x"], n["y"] = round(float(placed["x"][i]), 1), round(float(placed["y"][i]), 1)
        n["w"], n["h"] = round(n["w"], 1), round(n["h"], 1)
    offsets, px, py = placed["point_offsets"], placed["px"], placed["py"]
    edges = []
    for e in range(len(src)):
        w = int(edges_t["weight"][e])
        inline, residual = bool(edges_t["inline"][e]), bool(edges_t["residual"][e])
        edges.append(
            {
                "src": int(src[e]),
                "dst": int(dst[e]),
                "weight": w,
                "label": fmt(w) + (" (inline)" if inline else ""),
                "penwidth": 1 + min(abs(w) * 5 // tot, 5),
                "color": dot_color(w / tot, False),
                "style": "dotted" if residual else "dashed" if inline else "solid",
                "points": [
                    [round(float(px[k]), 1), round(float(py[k]), 1)]
                    for k in range(int(offsets[e]), int(offsets[e + 1]))
                ],
            }
        )
    legend = [graph.title, f"Total: {fmt(graph.total)}", f"Showing {len(nodes)} nodes out of {graph.orig_count}"]
    if graph.dropped_nodes:
        legend.append(f"Dropped {graph.dropped_nodes} nodes (cum <= {fmt(graph.node_cutoff)})")
    if graph.dropped_edges:
        legend.append(f"Dropped {graph.dropped_edges} edges (freq <= {fmt(graph.edge_cutoff)})")
    return {
        "nodes": nodes,
        "edges": edges,
        "legend": legend,
        "width": round(float(placed["width"]), 1),
        "height": round(float(placed["height"]), 1),
    }
