"""Call graphs with pprof's semantics (``go tool pprof -dot``): the graph is built
in C++ (``_core.call_graph``) over the report nodes of ``by``; this module runs
pprof's trimming steps (node fraction, top-N selection with its entropy order,
edge fraction, redundant residual edges; the entropy order and the redundant
edge search in C++, ``_core.graph_entropy_order`` and
``_core.graph_remove_redundant_edges``) and writes DOT or, through Graphviz's
``dot``, SVG."""

from __future__ import annotations

import math
import shutil
import subprocess
from typing import TYPE_CHECKING, List, Optional

import numpy as np

from .. import _core, _report_base, _units
from .._args import check_str
from .._filter import filter_masks_from, hidden_locations_from, samples_kept_from
from .._report_defaults import EDGEFRACTION, NODECOUNT, NODEFRACTION
from ..reports._nodes import check_granularity
from ..reports.table import ReportTable
from ._escape import dot_string
from ._files import save_by_extension
from .dot import pprof_dot
from .dot_tags import BASE_LABEL, node_tags
from .flamegraph import stack_nodes
from .html import callgraph_html

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

MAX_NODELETS = 4  # pprof counts at most this many tags per node toward nodecount
# Graphviz refuses a quoted string past 16 kB; longer names are cut (with "...")
# in the drawing, which could not show them anyway.
MAX_DOT_NAME = 2000


def callgraph(
    profile: "Profile",
    sample_type=None,
    *,
    by: str = "functions",
    nodecount: int = NODECOUNT,
    nodefraction: float = NODEFRACTION,
    edgefraction: float = EDGEFRACTION,
    title: Optional[str] = None,
    inline: bool = True,
    drop_negative: bool = False,
    mean: bool = False,
) -> "CallGraph":
    """pprof's call graph (``go tool pprof -dot``): a :class:`CallGraph`;
    ``p.callgraph(...)`` is ``callgraph(p, ...)``.

    Nodes are report nodes at granularity ``by`` with flat and cum; nodes whose
    cum is below ``nodefraction`` of the total are dropped, then the top
    ``nodecount`` in pprof's entropy order are kept (0 = no limit), edges
    lighter than ``edgefraction`` are dropped, and calls through dropped
    nodes become residual edges. ``to_dot()``, ``to_svg()`` (needs Graphviz),
    and an SVG in notebooks; ``to_pprof_dot()`` is the text ``go tool pprof
    -dot`` prints. ``inline=False`` folds inlined frames into their callers
    (pprof's ``-noinlines``); ``drop_negative`` leaves out nodes with a
    negative flat (or cum, at flat 0); ``mean`` shows each node's, edge's and
    tag's value divided by the sum of the first sample type over the same
    samples (pprof's ``-mean``; trimming still uses the sums). See
    ``docs/flamegraphs.md``.
    """
    check_granularity(by)
    check_str("title", title, optional=True)
    if nodecount < 0:
        raise ValueError(f"nodecount must be >= 0, got {nodecount}")
    for name, v in (("nodefraction", nodefraction), ("edgefraction", edgefraction)):
        if not 0.0 <= float(v) <= 1.0:
            raise ValueError(f"{name} must be between 0 and 1, got {v}")
    ti = profile.sample_type_index(sample_type)
    table = graph_nodes(profile, by, inline)  # keys and names; the graph sums its own values
    names = table.printable_names()
    paths = sample_paths(profile, by, inline)
    # The builds read the samples the paths stand for: paths derived for a
    # filter output left in its input read the input's (a copy is never made).
    samples = profile._tables_core

    def build(kept: Optional[np.ndarray], tag_cutoff: int, edges: bool = True, tags: bool = False) -> dict:
        mask = None if kept is None else kept.astype(np.uint8)
        g = _core.call_graph(samples, table, ti, mask, tag_cutoff, edges=edges, tags=tags, paths=paths)
        if mean:  # the same graph over the counts: the divisors (its tags are summed in dot_tags)
            counts = _core.call_graph(samples, table, 0, mask, tag_cutoff, edges=edges, tags=False, paths=paths)
            add_divisors(g, counts)
        shown = (g["flat"] != 0) | (g["cum"] != 0)
        if drop_negative:  # pprof's -drop_negative: such nodes never enter the graph
            shown &= ~((g["flat"] < 0) | ((g["flat"] == 0) & (g["cum"] < 0)))
        g["nodes"] = np.flatnonzero(shown)
        g["keep_edge"] = np.ones(len(g["src"]), dtype=bool)
        return g

    g = build(None, 0, edges=False)  # only flat and cum: the total and the node cutoff
    total = int(g["flat"][g["nodes"]].sum())
    node_cutoff = abs(int(float(total) * nodefraction))
    edge_cutoff = abs(int(float(total) * edgefraction))
    dropped_nodes = 0
    if node_cutoff > 0:
        kept = np.zeros(len(names), dtype=bool)
        kept[g["nodes"][np.abs(g["cum"][g["nodes"]]) >= node_cutoff]] = True
        dropped_nodes = len(g["nodes"]) - int(kept.sum())
        # pprof rebuilds only when nodes were dropped: otherwise the edges into
        # nodes outside the graph (-mean's zero sums, -drop_negative) stay
        g = build(kept if dropped_nodes else None, node_cutoff, tags=nodecount > 0)
    else:
        g = build(None, node_cutoff, tags=nodecount > 0)
    orig_count = len(g["nodes"])
    order = _entropy_order(g, names)
    if nodecount > 0:
        _trim_edges(g, edge_cutoff)
        top = _select_top(order, _tag_counts(profile, ti, table, g, node_cutoff), nodecount)
        if len(top) != len(order):
            kept = np.zeros(len(names), dtype=bool)
            kept[top] = True
            g = build(kept, node_cutoff)
            order = _entropy_order(g, names)
    dropped_edges = _trim_edges(g, edge_cutoff)
    _remove_redundant_edges(g, order, names)
    return CallGraph(
        profile,
        ti,
        table,
        names,
        g,
        order,
        total=_report_base.total(profile, ti, True) if mean else total,
        node_cutoff=node_cutoff,
        edge_cutoff=edge_cutoff,
        dropped_nodes=dropped_nodes,
        dropped_edges=dropped_edges,
        orig_count=orig_count,
        by=by,
        title=title,
        fractions=(nodefraction, edgefraction),
        mean=mean,
    )


def sample_paths(profile: "Profile", by: str, inline: bool = True):
    """Each sample's report nodes of ``by``, root first (``_core.sample_paths``),
    cached on the profile: every build of its graphs (each sample type, each
    trimming step) walks them instead of the locations. Copied from the
    parent's paths after a filter, or renamed from another granularity's
    cached paths when its nodes map one for one (files from lines), before
    they are walked anew. A filter output whose samples were left in its
    parent takes the parent's paths at any granularity and renames them, so
    its samples are never copied while the parent has paths to rename."""
    cache = profile._derived.sample_paths
    key = (by, inline)
    paths = cache.get(key)
    if paths is None:
        table = graph_nodes(profile, by, inline)
        parent = profile._derived.paths_parent
        parent_paths = None if parent is None else parent._derived.sample_paths.get(key)
        if parent_paths is not None:  # copied from the parent's when its samples hold these
            paths = derived_paths(profile, parent, by, inline, parent_paths)
        if paths is None and parent is not None and samples_left_in(profile, parent) is not None:
            for (other_by, other_inline), other in list(parent._derived.sample_paths.items()):
                if other_inline == inline and (other_by, inline) not in cache:
                    derived = derived_paths(profile, parent, other_by, inline, other)
                    if derived is not None:
                        cache[(other_by, inline)] = derived
        for (other_by, other_inline), other in list(cache.items()):  # another granularity's, renamed
            if paths is None and other_inline == inline:
                # paths that read the input's samples are renamed over those (no copy)
                paths = _core.mapped_sample_paths(
                    profile._tables_core, table, graph_nodes(profile, other_by, inline), other
                )
        if paths is None:
            paths = _core.sample_paths(profile._core, table)
            share_tag_signatures(profile, paths, parent)
        cache[key] = paths
    return paths


def derived_paths(profile: "Profile", parent: "Profile", by: str, inline: bool, parent_paths):
    """``profile``'s paths of ``by`` from ``parent_paths`` (``parent``'s),
    when ``profile`` holds some of ``parent``'s samples unchanged: read in
    ``parent`` while the output's samples were left there, else copied from
    the output's own (kept samples named by the filter's record or matched
    again), or, after hide or show, ``parent``'s read with the hidden
    locations' nodes skipped; None when it does not hold them so."""
    table, parent_table = graph_nodes(profile, by, inline), stack_nodes(parent, by, inline)
    masks = hidden_locations_from(profile, parent)
    if masks is not None:  # hide, show: the parent's paths read with the hidden frames skipped
        child = None if profile._uncopied_in(parent) else profile._core  # left in the parent: read there
        return _core.hidden_sample_paths(child, table, parent._core, parent_table, parent_paths, *masks)
    left = samples_left_in(profile, parent)
    if left is not None:  # the output's samples are still the parent's: read there
        return _core.derived_sample_paths(None, table, parent._core, parent_table, parent_paths, left)
    kept = samples_kept_from(profile, parent)  # the name filter's record, else matched in C++
    return _core.derived_sample_paths(profile._core, table, parent._core, parent_table, parent_paths, kept)


def graph_nodes(profile: "Profile", by: str, inline: bool = True):
    """The report nodes of ``by`` (:func:`.flamegraph.stack_nodes`), without
    copying the samples of a filter output left in its input: over the same
    C++ tables as its parent (a focus or ignore), its nodes are the parent's."""
    parent = profile._derived.paths_parent
    if parent is not None and samples_left_in(profile, parent) is not None:
        return stack_nodes(parent, by, inline)
    return stack_nodes(profile, by, inline)


def samples_left_in(profile: "Profile", parent: "Profile") -> Optional[np.ndarray]:
    """The kept mask (one byte per ``parent`` sample) when ``profile`` is a
    name filter's output whose samples were left in ``parent``, not copied yet,
    and which hid no location and took no line out of one (so its stacks and
    tables are ``parent``'s); None otherwise."""
    pending = profile._pending
    if pending is None or pending.hidden is not None or not profile._uncopied_in(parent):
        return None
    if pending.tables is not pending.source:  # a hide or show took some lines out of a location
        return None
    return pending.kept if samples_kept_from(profile, parent) is not None else None


def share_tag_signatures(profile: "Profile", paths, parent: Optional["Profile"]) -> None:
    """Gives ``paths``, walked anew, the label tag signatures (what each sample
    adds to the nodes' tags) that other cached paths found: those of another
    granularity of ``profile``, or those of ``parent`` when a name filter made
    ``profile`` from it (hidden frames included: the labels are the same).
    Finding them reads every sample's labels, about a tenth of a graph."""
    for other in profile._derived.sample_paths.values():
        if _core.share_tag_signatures(profile._core, paths, profile._core, other):
            return
    masks = None if parent is None else filter_masks_from(profile, parent)  # the name filter's (kept, hidden)
    if parent is None or masks is None:
        return
    for other in list(parent._derived.sample_paths.values()):
        if _core.share_tag_signatures(profile._core, paths, parent._core, other, masks[0]):
            return


def derive_sample_paths(profile: "Profile", parent: "Profile") -> None:
    """Lets ``profile``, made from ``parent`` by a filter that keeps some of its
    samples as they are (focus, ignore, a label filter), copy its sample paths
    from ``parent``'s when those are cached: a copy of the kept samples' paths
    instead of a walk of every frame. Other filters are found out by
    ``_core.derived_sample_paths``, and the paths are built as usual."""
    if profile._derived is not parent._derived:  # a filter that kept everything shares them already
        profile._derived.paths_parent = parent


def sample_paths_nbytes(profile: "Profile") -> int:
    """Bytes held by the sample paths cached on ``profile`` (every granularity)."""
    return sum(paths.nbytes for paths in profile._derived.sample_paths.values())


def drop_sample_paths(profile: "Profile") -> None:
    """Forgets the sample paths cached on ``profile``: its next graph builds
    them again. A build already running keeps the paths it holds."""
    profile._derived.sample_paths.clear()


def add_divisors(g: dict, counts: dict) -> None:
    """Adds to ``g`` the divisors of a ``-mean`` graph from ``counts``, the same
    graph over the first sample type: ``flat_div``, ``cum_div`` per node and
    ``weight_div`` per edge. pprof's graph takes every sample whose value or
    count is non-zero, so an edge only the counts have joins ``g`` with weight 0,
    and an edge's residual and inline flags combine both graphs' samples."""
    g["flat_div"], g["cum_div"] = counts["flat"], counts["cum"]
    width = np.int64(len(counts["flat"]) + 1)
    keys = g["src"].astype(np.int64) * width + g["dst"]
    count_keys = counts["src"].astype(np.int64) * width + counts["dst"]
    order = np.argsort(keys, kind="stable")
    at = np.searchsorted(keys[order], count_keys)
    found = at < len(keys)
    found[found] = keys[order][at[found]] == count_keys[found]
    mine = order[at[found]]
    weight_div = np.zeros(len(keys), dtype=np.int64)
    weight_div[mine] = counts["weight"][found]
    g["residual"] = g["residual"].copy()
    g["residual"][mine] |= counts["residual"][found]
    g["inline"] = g["inline"].copy()
    g["inline"][mine] &= counts["inline"][found]
    extra = ~found
    for column in ("src", "dst", "residual", "inline"):
        g[column] = np.concatenate([g[column], counts[column][extra]])
    g["weight"] = np.concatenate([g["weight"], np.zeros(int(extra.sum()), dtype=g["weight"].dtype)])
    g["weight_div"] = np.concatenate([weight_div, counts["weight"][extra]])


def _shown(g: dict, column: str) -> np.ndarray:
    """A column of values as the graph shows them: divided by the counts in a
    ``-mean`` graph."""
    div = g.get(column + "_div")
    return g[column] if div is None else _report_base.go_div(g[column], div)


def name_ranks(g: dict, names: List[str]) -> np.ndarray:
    """Per node row, the rank of its name among the graph's nodes and live
    edges' ends (equal names share one; other rows -1): how the C++ trimming
    steps compare names."""
    live = np.flatnonzero(g["keep_edge"])
    # A set, not np.union1d: NumPy 2's unique imports numpy.ma (about 10 ms on
    # the explorer's first page); equal names share a rank, so order is free.
    ends = set(g["nodes"].tolist()).union(g["src"][live].tolist(), g["dst"][live].tolist())
    rows = sorted(ends, key=names.__getitem__)
    ranks = np.full(len(names), -1, dtype=np.int32)
    rank, last = -1, None
    for n in rows:
        if names[n] != last:
            rank, last = rank + 1, names[n]
        ranks[n] = rank
    return ranks


def _entropy_order(g: dict, names: List[str]) -> List[int]:
    """pprof's EntropyOrder: |entropy score| desc, printable name, |flat| desc."""
    return _core.graph_entropy_order(g, name_ranks(g, names)).tolist()


def edge_entropy(weights, self_: int) -> float:
    """pprof's entropy of a node's edge weights (and its own value): how evenly
    its callers or callees share it, for the order nodes are kept in."""
    total = self_ + sum(abs(x) for x in weights if x > 0)
    score = 0.0
    if total != 0:
        for x in weights:
            score += entropy_term(abs(x) / total)
        if self_ > 0:
            score += entropy_term(abs(self_) / total)
    return score


def entropy_term(frac: float) -> float:
    """-frac*log2(frac) with IEEE results: NaN for 0 (0 * -Inf) and for the
    negative fractions a diff profile's negative flat gives, as in pprof."""
    return -frac * math.log2(frac) if frac > 0 else math.nan


def go_int64(x: float) -> int:
    """Go's int64(x) on amd64: NaN and out-of-range values become the minimum int64."""
    if math.isnan(x) or not -(2.0**63) <= x < 2.0**63:
        return -(2**63)
    return int(x)


def wrap64(v: int) -> int:
    """``v`` as a wrapping int64 (Go's overflow)."""
    return (v + 2**63) % 2**64 - 2**63


def _tag_counts(profile: "Profile", ti: int, table, g: dict, cutoff: int) -> np.ndarray:
    """Tags per node with a non-zero flat, as pprof counts them toward nodecount.
    The C++ count also counts the ``pprof::base`` label of a diff profile, which
    pprof removes first; such profiles are counted here from the samples."""
    source = profile._stack_source()[0]  # a filter output's labels are some of its input's: no copy to look
    keys = source.columns()["labels.key"]
    # the distinct key codes by bincount, not np.unique (which imports numpy.ma, see name_ranks)
    if not len(keys) or BASE_LABEL not in {source.string(k) for k in np.flatnonzero(np.bincount(keys)).tolist()}:
        return g["tag_count"]
    tags = node_tags(profile, ti, table.columns(), [int(n) for n in g["nodes"]], cutoff)
    counts = np.zeros(len(g["tag_count"]), dtype=np.int64)
    for n, t in tags.items():
        counts[n] = sum(1 for x in t.labels.values() if x.flat != 0)
        counts[n] += sum(1 for m in t.numeric.values() for x in m.values() if x.flat != 0)
    return counts


def _select_top(order: List[int], tag_count: np.ndarray, nodecount: int) -> List[int]:
    """pprof's selectTopNodes in visual mode: tags (at most 4 per node) count as nodes."""
    count = 0
    limit = nodecount
    for i, n in enumerate(order):
        count += min(int(tag_count[n]), MAX_NODELETS) + 1
        if count >= nodecount:
            limit = i + 1
            break
    return order[: min(limit, len(order))]


def _trim_edges(g: dict, cutoff: int) -> int:
    """pprof's TrimLowFrequencyEdges: drops the edges into graph nodes lighter
    than ``cutoff`` (pprof never visits an edge into a node outside the graph)."""
    in_graph = np.zeros(len(g["flat"]), dtype=bool)
    in_graph[g["nodes"]] = True
    low = g["keep_edge"] & (np.abs(g["weight"]) < cutoff) & in_graph[g["dst"]]
    g["keep_edge"] &= ~low
    return int(low.sum())


def _remove_redundant_edges(g: dict, order: List[int], names: List[str]) -> None:
    """pprof's RemoveRedundantEdges: drop a residual edge, lightest first, when its
    destination is still reachable from its source another way."""
    keep = _core.graph_remove_redundant_edges(g, np.asarray(order, dtype=np.int32), name_ranks(g, names))
    g["keep_edge"] = keep.astype(bool)


class CallGraph:
    """pprof's call graph of one sample type: nodes at the chosen granularity with
    flat and cum values, call edges with weights (``inline``: the call was
    inlined; ``residual``: it passes through nodes that were trimmed away).

    Build with :meth:`pprofcore.Profile.callgraph`. :meth:`nodes` and
    :meth:`edges` are tables; :meth:`to_dot` is Graphviz input; :meth:`to_svg`
    (and notebooks' ``_repr_svg_``) runs Graphviz's ``dot``.
    """

    def __init__(
        self,
        profile,
        ti,
        table,
        names,
        g,
        order,
        *,
        total,
        node_cutoff,
        edge_cutoff,
        dropped_nodes,
        dropped_edges,
        orig_count,
        by,
        title,
        fractions=(0.005, 0.001),
        mean=False,
    ):
        self.sample_type, self.unit = profile.sample_types[ti]
        self.by = by
        # What pprof's own DOT (display/dot.py) needs beyond the tables: the
        # report nodes, the sample type, the kept nodes in order and the graph.
        self._profile, self._ti, self._table, self._g, self._order = profile, ti, table, g, list(order)
        self._fractions = fractions
        #: pprof's -mean: nodes, edges and tags show sums divided by count sums
        self.mean = mean
        self.total = total
        self.node_cutoff, self.edge_cutoff = node_cutoff, edge_cutoff
        self.dropped_nodes, self.dropped_edges, self.orig_count = dropped_nodes, dropped_edges, orig_count
        self.title = title if title is not None else f"{self.sample_type} ({self.unit})"
        self._names = [names[n] for n in order]
        self._flat = _shown(g, "flat")[order]
        self._cum = _shown(g, "cum")[order]
        pos = {n: i for i, n in enumerate(order)}
        live = [int(e) for e in np.flatnonzero(g["keep_edge"]) if int(g["src"][e]) in pos and int(g["dst"][e]) in pos]
        live.sort(key=lambda e: (-abs(int(g["weight"][e])), names[int(g["src"][e])], names[int(g["dst"][e])]))
        self._src = np.array([pos[int(g["src"][e])] for e in live], dtype=np.int32)
        self._dst = np.array([pos[int(g["dst"][e])] for e in live], dtype=np.int32)
        self._weight = _shown(g, "weight")[live] if live else np.zeros(0, dtype=np.int64)
        self._inline = g["inline"][live].astype(bool) if live else np.zeros(0, dtype=bool)
        self._residual = g["residual"][live].astype(bool) if live else np.zeros(0, dtype=bool)

    def __repr__(self) -> str:
        return (
            f"<pprofcore.CallGraph of {self.sample_type}: {len(self._names)} nodes, {len(self._src)} edges, "
            f"by {self.by}>"
        )

    def nodes(self) -> ReportTable:
        """Nodes in pprof's order: ``id`` (0-based; DOT names them N<id+1>), ``name, flat, cum``."""
        return ReportTable(
            {
                "id": np.arange(len(self._names), dtype=np.int32),
                "name": list(self._names),
                "flat": self._flat.copy(),
                "cum": self._cum.copy(),
            },
            meta={"unit": self.unit},
        )

    def edges(self) -> ReportTable:
        """Edges, heaviest first: ``src, dst`` (node ids), ``caller, callee`` (names),
        ``weight``, ``inline``, ``residual``."""
        return ReportTable(
            {
                "src": self._src.copy(),
                "dst": self._dst.copy(),
                "caller": [self._names[i] for i in self._src],
                "callee": [self._names[i] for i in self._dst],
                "weight": self._weight.copy(),
                "inline": self._inline.copy(),
                "residual": self._residual.copy(),
            },
            meta={"unit": self.unit},
        )

    def _fmt(self, v: int) -> str:
        return _units.scaled_label(int(v), self.unit, "auto")

    def to_dot(self) -> str:
        """Graphviz DOT text: boxes sized by flat, labels with flat and cum and
        their share of the total, edges weighted by their value; inline calls are
        labelled "(inline)", residual edges dotted. Deterministic."""
        tot = abs(self.total) or 1
        max_flat = max((abs(int(f)) for f in self._flat), default=0) or 1

        def esc(s: str) -> str:
            return dot_string(s if len(s) <= MAX_DOT_NAME else s[:MAX_DOT_NAME] + "...")

        lines = [f'digraph "{esc(self.title)}" {{', 'node [style=filled fillcolor="#f8f8f8" shape=box]']
        legend = [
            self.title,
            f"Total: {self._fmt(self.total)}",
            f"Showing {len(self._names)} nodes out of {self.orig_count}",
        ]
        if self.dropped_nodes:
            legend.append(f"Dropped {self.dropped_nodes} nodes (cum <= {self._fmt(self.node_cutoff)})")
        if self.dropped_edges:
            legend.append(f"Dropped {self.dropped_edges} edges (freq <= {self._fmt(self.edge_cutoff)})")
        lines.append(
            'subgraph cluster_L { "legend" [shape=box fontsize=14 label="'
            + "".join(esc(x) + "\\l" for x in legend)
            + '"] }'
        )
        for i, (name, flat, cum) in enumerate(zip(self._names, self._flat, self._cum)):
            flat, cum = int(flat), int(cum)
            label = esc(name)
            if flat == cum:
                label += f"\\n{self._fmt(flat)} ({100 * abs(flat) / tot:.2f}%)"
            elif flat == 0:
                label += f"\\n0 of {self._fmt(cum)} ({100 * abs(cum) / tot:.2f}%)"
            else:
                label += f"\\n{self._fmt(flat)} ({100 * abs(flat) / tot:.2f}%)\\nof {self._fmt(cum)} ({100 * abs(cum) / tot:.2f}%)"  # noqa: E501
            size = 8 + int(16 * abs(flat) / max_flat)
            shade = int(255 - 90 * min(1.0, abs(cum) / tot))
            lines.append(
                f'N{i + 1} [label="{label}" fontsize={size} tooltip="{esc(name)} ({self._fmt(cum)})" '
                f'fillcolor="#ff{shade:02x}{shade:02x}"]'
            )
        for s, d, w, inl, res in zip(self._src, self._dst, self._weight, self._inline, self._residual):
            w = int(w)
            inline_note = "\\n (inline)" if inl else ""
            attrs = [
                f'label=" {self._fmt(w)}{inline_note}"',
                f"weight={1 + min(100, abs(w) * 100 // tot)}",
                f"penwidth={1 + min(5, abs(w) * 5 // tot)}",
                f'tooltip="{esc(self._names[s])} {"..." if res else "->"} {esc(self._names[d])} ({self._fmt(w)})"',
            ]
            if res:
                attrs.append('style="dotted"')
            lines.append(f"N{s + 1} -> N{d + 1} [{' '.join(attrs)}]")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_pprof_dot(self, *, unit: Optional[str] = None, relative_percentages: bool = False) -> str:
        """The DOT text ``go tool pprof -dot`` prints for this graph, byte for
        byte (legend, labels, colours, tag sub-nodes); see :mod:`.dot`."""
        nodefraction, edgefraction = self._fractions
        return pprof_dot(
            self,
            nodefraction=nodefraction,
            edgefraction=edgefraction,
            unit=unit,
            relative_percentages=relative_percentages,
        )

    def to_svg(self) -> str:
        """SVG drawn by Graphviz's ``dot`` (raises ``RuntimeError`` naming the Debian
        package ``graphviz`` when ``dot`` is not installed)."""
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError(
                "Graphviz's `dot` was not found on PATH; install it (Debian/Ubuntu: "
                "apt-get install graphviz) or use to_dot()"
            )
        r = subprocess.run([dot, "-Tsvg"], input=self.to_dot().encode("utf-8"), capture_output=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"dot failed: {r.stderr.decode('utf-8', 'replace').strip()}")
        return r.stdout.decode("utf-8")

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def _repr_html_(self) -> str:
        return callgraph_html(self)

    def save(self, path) -> None:
        """Writes :meth:`to_dot` (``.dot``/``.gv``) or :meth:`to_svg` (``.svg``), by extension."""
        save_by_extension(path, {".dot": self.to_dot, ".gv": self.to_dot, ".svg": self.to_svg}, ".dot, .gv or .svg")
