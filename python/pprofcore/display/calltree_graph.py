"""pprof's ``-call_tree`` graph: a node per calling context (a report node under
one parent path) instead of one per function, trimmed as pprof trims trees.

Built here from the samples (the call graph of :mod:`.callgraph` merges every
context of a function, so its C++ sums do not apply): each sample adds its cum
to every node of its path and its flat to the last; a dropped node hands its
children to its parent over a residual edge. The result offers what
:func:`.dot.pprof_dot` reads from a :class:`.callgraph.CallGraph`, with
``_rows`` naming the report node (table row) of each tree node. With ``mean``
(pprof's ``-mean``) every node, edge and tag also sums the samples' counts
(the first sample type) as divisors; trimming and order still use the sums.
``order="flat"`` or ``"cum"`` sorts as pprof's text-like outputs (callgrind)
instead of by entropy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Set

import numpy as np

from .callgraph import MAX_NODELETS, edge_entropy, go_int64, wrap64
from .dot_tags import NodeTags, add_sample, sample_tags, trim_tags
from .flamegraph import stack_nodes

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


class CallTreeGraph:
    """The trimmed call tree; attributes as :class:`.callgraph.CallGraph`'s that
    the DOT writer reads."""

    def __init__(
        self,
        profile: "Profile",
        sample_type=None,
        *,
        by: str = "functions",
        nodecount: int = 80,
        nodefraction: float = 0.005,
        edgefraction: float = 0.001,
        inline: bool = True,
        drop_negative: bool = False,
        unit: Optional[str] = None,
        mean: bool = False,
        order: str = "entropy",
    ) -> None:
        self._profile = profile
        #: pprof's -mean: nodes, edges and tags show sums divided by count sums
        self.mean = mean
        self._order_by = order
        self._ti = ti = profile.sample_type_index(sample_type)
        self._table = stack_nodes(profile, by, inline)
        self._names = self._table.printable_names()
        self._unit = unit or "minimum"  # pprof's -unit: how numeric tags are keyed
        self._build(profile, ti, drop_negative, mean)
        self._trim(nodecount, nodefraction, edgefraction)

    # ------------------------------------------------------------------ building
    def _build(self, p: "Profile", ti: int, drop_negative: bool, mean: bool) -> None:
        cols = self._table.columns()
        loc_off, loc_nodes = cols["loc_node_offsets"], cols["loc_nodes"]
        labels, numeric = sample_tags(p) if len(p.labels.key) else ([""] * len(p), [[] for _ in range(len(p))])
        with_tags = len(p.labels.key) > 0
        rows: List[int] = []
        flat: List[int] = []
        cum: List[int] = []
        flat_div: List[int] = []
        cum_div: List[int] = []
        #: the node each tree node was created under (-1: a root)
        self.parents: List[int] = []
        tags: List[NodeTags] = []
        children: Dict[tuple, int] = {}
        self._src: List[int] = []
        self._dst: List[int] = []
        self._weight: List[int] = []
        self._weight_div: List[int] = []
        self._inline: List[bool] = []
        self._residual: List[bool] = []
        self._in: Dict[int, int] = {}  # node -> its one in-edge
        self._out: Dict[int, Dict[int, int]] = {}  # node -> child -> edge
        values = p.values[:, ti]
        counts = p.values[:, 0] if mean else np.zeros(len(p), dtype=np.int64)
        st_off, st_loc = p.stack_offsets, p.stack_locations
        for i in range(len(p)):
            w, dw = int(values[i]), int(counts[i])
            if w == 0 and dw == 0:
                continue
            parent = -1
            for loc in st_loc[int(st_off[i]) : int(st_off[i + 1])][::-1]:
                frames = loc_nodes[int(loc_off[loc]) : int(loc_off[loc + 1])][::-1]
                for j, row in enumerate(frames):
                    row = int(row)
                    if row < 0:
                        continue
                    key = (parent, row)
                    n = children.get(key)
                    if n is None:
                        n = children[key] = len(rows)
                        rows.append(row)
                        self.parents.append(parent)
                        for column in (flat, cum, flat_div, cum_div):
                            column.append(0)
                        tags.append(NodeTags())
                    cum[n] += w
                    cum_div[n] += dw
                    if with_tags:
                        add_sample(tags[n], labels[i], numeric[i], w, False, self._unit, dw)
                    if parent >= 0:
                        self._edge(parent, n, w, dw, j != 0)
                    parent = n
            if parent >= 0:
                flat[parent] += w
                flat_div[parent] += dw
                if with_tags:
                    add_sample(tags[parent], labels[i], numeric[i], w, True, self._unit, dw)
        self._rows = rows
        self._flat, self._cum, self._tag_list = flat, cum, tags
        self._flat_div, self._cum_div = flat_div, cum_div
        self.nodes: List[int] = [n for n in range(len(rows)) if flat[n] != 0 or cum[n] != 0]
        if drop_negative:  # pprof's -drop_negative: such nodes never enter the graph
            self.nodes = [n for n in self.nodes if not (flat[n] < 0 or (flat[n] == 0 and cum[n] < 0))]

    def _edge(self, src: int, dst: int, w: int, dw: int, inline: bool) -> None:
        e = self._out.setdefault(src, {}).get(dst)
        if e is None:
            e = len(self._src)
            self._src.append(src)
            self._dst.append(dst)
            self._weight.append(0)
            self._weight_div.append(0)
            self._inline.append(inline)
            self._residual.append(False)
            self._out[src][dst] = e
            self._in[dst] = e
        self._weight[e] += w
        self._weight_div[e] += dw
        self._inline[e] = self._inline[e] and inline  # pprof: one call not inlined makes the edge a call

    # ------------------------------------------------------------------ trimming
    def _trim(self, nodecount: int, nodefraction: float, edgefraction: float) -> None:
        total = sum(self._flat[n] for n in self.nodes)
        self.total = total
        node_cutoff = abs(int(float(total) * nodefraction))
        edge_cutoff = abs(int(float(total) * edgefraction))
        self.node_cutoff = node_cutoff
        self.dropped_nodes = 0
        if node_cutoff > 0:
            kept = {n for n in self.nodes if abs(self._cum[n]) >= node_cutoff}
            if len(kept) != len(self.nodes):
                self.dropped_nodes = len(self.nodes) - len(kept)
                self._trim_tree(kept)
        self.orig_count = len(self.nodes)
        self._sort()
        if nodecount > 0:
            self._trim_tags(node_cutoff)
            self._trim_edges(edge_cutoff)
            top = self._select_top(nodecount)
            if len(top) != len(self.nodes):
                self._trim_tree(top)
                self._sort()
        self._trim_tags(node_cutoff)
        self.dropped_edges = self._trim_edges(edge_cutoff)
        self._order = list(self.nodes)
        self._tags = {n: self._tag_list[n] for n in self.nodes}
        live = np.zeros(len(self._src), dtype=bool)
        for outs in self._out.values():
            for e in outs.values():
                live[e] = True
        self._g = {
            "flat": np.array(self._flat, dtype=np.int64),
            "cum": np.array(self._cum, dtype=np.int64),
            "src": np.array(self._src, dtype=np.int64),
            "dst": np.array(self._dst, dtype=np.int64),
            "weight": np.array(self._weight, dtype=np.int64),
            "inline": np.array(self._inline, dtype=bool),
            "residual": np.array(self._residual, dtype=bool),
            "keep_edge": live,
        }
        if self.mean:  # what dot.shown_value divides by
            self._g["flat_div"] = np.array(self._flat_div, dtype=np.int64)
            self._g["cum_div"] = np.array(self._cum_div, dtype=np.int64)
            self._g["weight_div"] = np.array(self._weight_div, dtype=np.int64)

    def _trim_tree(self, kept: Set[int]) -> None:
        """pprof's TrimTree: dropped nodes give their children to their parent."""
        old = self.nodes
        self.nodes = []
        for cur in old:
            if cur in kept:
                self.nodes.append(cur)
                continue
            outs = self._out.pop(cur, {})
            e_in = self._in.pop(cur, None)
            if e_in is None:
                for child in outs:
                    self._in.pop(child, None)
                continue
            parent = self._src[e_in]
            self._out.get(parent, {}).pop(cur, None)
            for child, e in outs.items():
                self._in[child] = e
                self._out.setdefault(parent, {})[child] = e
                self._src[e] = parent
                self._residual[e] = True
                self._inline[e] = self._inline[e] and self._inline[e_in]

    def _trim_edges(self, cutoff: int) -> int:
        dropped = 0
        for n in self.nodes:
            e = self._in.get(n)
            if e is not None and abs(self._weight[e]) < cutoff:
                del self._in[n]
                self._out.get(self._src[e], {}).pop(n, None)
                dropped += 1
        return dropped

    def _trim_tags(self, cutoff: int) -> None:
        for n in self.nodes:
            t = self._tag_list[n]
            t.labels = trim_tags(t.labels, cutoff)
            t.numeric = {k: trim_tags(v, cutoff) for k, v in t.numeric.items()}

    def _count_tags(self, n: int) -> int:
        t = self._tag_list[n]
        count = sum(1 for x in t.labels.values() if x.flat != 0)
        return count + sum(1 for m in t.numeric.values() for x in m.values() if x.flat != 0)

    def _select_top(self, nodecount: int) -> Set[int]:
        limit = nodecount
        count = 0
        for i, n in enumerate(self.nodes):
            count += min(self._count_tags(n), MAX_NODELETS) + 1
            if count >= nodecount:
                limit = i + 1
                break
        return set(self.nodes[: min(limit, len(self.nodes))])

    def _sort(self) -> None:
        """pprof's entropy order (ties: name, |flat|, then creation order), or
        with ``order`` "flat"/"cum" its flat (cum) then name order. pprof breaks
        the remaining ties as its maps happen to give the nodes."""
        names = [self._names[r] for r in self._rows]
        if self._order_by != "entropy":
            first, second = (self._cum, self._flat) if self._order_by == "cum" else (self._flat, self._cum)
            self.nodes.sort(key=lambda n: (-abs(first[n]), names[n], -abs(second[n]), n))
            return
        scores = {n: self._score(n) for n in self.nodes}
        self.nodes.sort(key=lambda n: (-wrap64(abs(scores[n])), names[n], -abs(self._flat[n]), n))

    def _score(self, n: int) -> int:
        e_in: Optional[int] = self._in.get(n)
        outs = self._out.get(n, {})
        s = edge_entropy([self._weight[e_in]], 0) if e_in is not None else 1.0
        s += edge_entropy([self._weight[e] for e in outs.values()], self._flat[n]) if outs else 1.0
        return wrap64(go_int64(s * float(self._cum[n])) + self._flat[n])
