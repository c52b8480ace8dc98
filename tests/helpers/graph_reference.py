"""pprof's call graph walk written plainly in Python (every frame of every
sample, root first): the reference the C++ builds over kept masks, sample
paths and their sums are held to."""

from __future__ import annotations

import numpy as np


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
