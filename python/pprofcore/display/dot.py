"""pprof's own DOT text of a call graph, byte for byte what ``go tool pprof -dot``
prints: the legend cluster, node labels split at package and class separators,
font sizes, colours, tooltips, tag sub-nodes and edges.

The graph itself (nodes, edges, trimming) is :mod:`.callgraph`'s; this module
only writes it. Every string from the profile goes through
:func:`._escape.pprof_dot_string` (pprof leaves the legend's first line and
tag names unescaped; for names without quotes or backslashes that is the same
text). ``-call_tree`` graphs are written from :mod:`.calltree_graph`'s
tree. A ``-mean`` graph is trimmed and ordered by its sums, as pprof's is, and
shows each node's, edge's and tag's sum divided by its count sum.
"""

from __future__ import annotations

import math
import os
import re
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Union

from .. import _units
from .._report_base import active_filters, report_total
from ..reports._nodes import header_lines
from ._escape import pprof_dot_string as esc
from .dot_tags import NodeTags, Tag, go_quo, node_tags, sort_tags

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile
    from .callgraph import CallGraph
    from .calltree_graph import CallTreeGraph

    AnyGraph = Union[CallGraph, CallTreeGraph]

MAX_NODELETS = 4
LEGEND_HELP = "\nSee https://git.io/JfYMW for how to read the graph"

# pprof's ShortenFunctionName patterns (RE2's \w is ASCII).
_CPP_ANON = re.compile(r"^\(anonymous namespace\)::", re.ASCII)
_GO_VER = re.compile(r"^(.*?)/v(?:[2-9]|[1-9][0-9]+)([./].*)$", re.ASCII | re.DOTALL)
_NAME_BREAKS = re.compile(r"::|\.")  # where a node's label breaks its short name
_SHORTEN = [
    re.compile(r"^(?:[\w\-\.]+\/)+(.+)", re.ASCII | re.DOTALL),
    re.compile(r"^(?:[a-z]\w*\.)*([A-Z][\w\$]*\.(?:<init>|[a-z][\w\$]*(?:\$\d+)?))(?:(?:\()|$)", re.ASCII),
    re.compile(r"^(?:[_a-zA-Z]\w*::)+(_*[A-Z]\w*::~?[_a-zA-Z]\w*(?:<.*>)?)", re.ASCII | re.DOTALL),
]


def shorten_function_name(name: str) -> str:
    """pprof's short name of a function: package paths, Java packages and C++
    namespaces dropped."""
    name = _CPP_ANON.sub("", name, count=1)
    name = _GO_VER.sub(r"\1\2", name, count=1)
    for rx in _SHORTEN:
        m = rx.match(name)
        if m:
            return "".join(g or "" for g in m.groups())
    return name


def label_lines(address: int, name: str, file: str, lineno: int, objfile: str) -> List[str]:
    """A node's label lines as plain text: address, the short name split at
    ``::`` and ``.`` (Go's ``[...]`` shown as ``[…]``), then file:line, file or
    ``[binary]``."""
    # Go prints a generic function's type parameters as "[...]"; pprof keeps
    # them as one "[…]" rather than breaking the label at its dots
    short = shorten_function_name(name).replace("[...]", "[\u2026]")
    parts = []
    if address:
        parts.append(f"{address:016x}")
    if short:
        parts.extend(_NAME_BREAKS.split(short))
    base = os.path.basename(file) if file else ""
    if lineno:
        parts.append(f"{base}:{lineno}")
    elif base:
        parts.append(base)
    elif not name:  # a named function needs no more; else the binary, or pprof's <unknown>
        parts.append("[" + os.path.basename(objfile) + "]" if objfile else "<unknown>")
    return parts


def multiline_name(address: int, name: str, file: str, lineno: int, objfile: str) -> str:
    """:func:`label_lines` escaped for DOT, each line ending in ``\\n``."""
    return "".join(esc(x) + "\\n" for x in label_lines(address, name, file, lineno, objfile))


def dot_color(score: float, background: bool) -> str:
    """pprof's colour for a share of the total: red for positive, green for
    negative, greyer when small."""
    shift = 0.7
    saturation, value = (0.1, 0.93) if background else (1.0, 0.7)
    if math.isnan(score):  # a share of a zero total (0/0): Go's NaN green byte is 0
        return "#%02x00%02x" % (int(value * 255.0) & 0xFF, int(value * (1 - saturation) * 255.0) & 0xFF)
    score = max(-1.0, min(1.0, score))
    if abs(score) < 0.2:
        saturation *= abs(score) / 0.2
    if score > 0.0:
        score = math.pow(score, 1.0 - shift)
    if score < 0.0:
        score = -math.pow(-score, 1.0 - shift)
    if score < 0.0:
        g = value
        r = value * (1 + saturation * score)
    else:
        r = value
        g = value * (1 - saturation * score)
    b = value * (1 - saturation)
    return "#%02x%02x%02x" % (int(r * 255.0) & 0xFF, int(g * 255.0) & 0xFF, int(b * 255.0) & 0xFF)


def go_share_of_zero(v: int) -> float:
    """Go's ``float64(v) / 0``: a -mean graph's total can be 0 while its nodes are not."""
    return math.copysign(math.inf, v) if v else math.nan


def _pct(v: int, total: int) -> str:
    return _units.percentage(v, total).strip()


class _Writer:
    """Collects the DOT lines; ``fmt`` formats a value as pprof's report does."""

    def __init__(self, fmt: Callable[[int], str], total: int) -> None:
        self.fmt = fmt
        self.total = total
        self.lines: List[str] = []

    def nodelets(self, nid: int, tags: NodeTags, flat_tags: bool) -> bool:
        out: List[str] = []
        ts = sort_tags(tags.labels.values(), flat_tags)[:MAX_NODELETS]
        for i, t in enumerate(ts):
            w = t.flat_value() if flat_tags else t.cum_value()
            if w == 0:
                continue
            weight = self.fmt(w)
            name = esc(t.name).replace("\\\\n", "\\n")  # pprof joins labels with a literal \n
            out.append(f'N{nid}_{i} [label = "{name}" id="N{nid}_{i}" fontsize=8 shape=box3d tooltip="{weight}"]')
            out.append(
                f'N{nid} -> N{nid}_{i} [label=" {weight}" weight=100 tooltip="{weight}" labeltooltip="{weight}"]'
            )
            nts = tags.numeric.get(t.name)
            if nts:
                out += self.numeric(list(nts.values()), flat_tags, f"N{nid}_{i}")
        nts = tags.numeric.get("")
        if nts:
            out += self.numeric(list(nts.values()), flat_tags, f"N{nid}")
        self.lines += out
        return bool(out)

    def numeric(self, ts: List[Tag], flat_tags: bool, source: str) -> List[str]:
        out = []
        for j, t in enumerate(_collapsed(ts, MAX_NODELETS, flat_tags)):
            w, attr = t.cum_value(), ' style="dotted"'
            if flat_tags or t.flat_value() == t.cum_value():
                w, attr = t.flat_value(), ""
            if w == 0:
                continue
            weight = self.fmt(w)
            out.append(
                f'N{source}_{j} [label = "{esc(t.name)}" id="N{source}_{j}" fontsize=8 shape=box3d tooltip="{weight}"]'
            )
            out.append(
                f'{source} -> N{source}_{j} [label=" {weight}" weight=100 tooltip="{weight}" '
                f'labeltooltip="{weight}"{attr}]'
            )
        return out


def _distance(t: Tag, u: Tag) -> float:
    v, _ = _units.scale(u.value, u.unit, t.unit)
    return float(t.value) - v if v < float(t.value) else v - float(t.value)


def _collapsed(ts: List[Tag], count: int, flat_tags: bool) -> List[Tag]:
    """pprof's grouping of numeric tags into at most ``count`` ranges, each
    grown around one of the ``count`` heaviest."""
    ts = sort_tags(ts, flat_tags)
    if len(ts) <= count:
        return ts
    groups = [[t] for t in ts[:count]]
    # a range's tag holds shown values (divided for -mean), as pprof's does
    for t in ts[count:]:
        best, d = 0, _distance(t, groups[0][0])
        for i in range(1, count):
            nd = _distance(t, groups[i][0])
            if nd < d:
                best, d = i, nd
        groups[best].append(t)
    out = []
    for g in groups:
        if len(g) == 1:
            t = g[0]
            nt = Tag(_units.scaled_label(t.value, t.unit, "auto"))
            nt.flat, nt.cum = t.flat_value(), t.cum_value()
        else:
            lo = hi = g[0]
            for t in g[1:]:
                if int(_units.scale(t.value, t.unit, lo.unit)[0]) < lo.value:
                    lo = t
                if int(_units.scale(t.value, t.unit, hi.unit)[0]) > hi.value:
                    hi = t
            nt = Tag(
                _units.scaled_label(lo.value, lo.unit, "auto") + ".." + _units.scaled_label(hi.value, hi.unit, "auto")
            )
            nt.flat, nt.flat_div = sum(t.flat for t in g), sum(t.flat_div for t in g)
            nt.cum, nt.cum_div = sum(t.cum for t in g), sum(t.cum_div for t in g)
            nt.flat, nt.cum, nt.flat_div, nt.cum_div = nt.flat_value(), nt.cum_value(), 0, 0
        out.append(nt)
    return sort_tags(out, flat_tags)


def legend_lines(
    profile: "Profile",
    ti: int,
    tot: int,
    out_unit: str,
    fmt: Callable[[int], str],
    graph: "AnyGraph",
    shown: int,
    flat_sum: int,
    nodefraction: float,
    edgefraction: float,
) -> List[str]:
    """pprof's legend of a graph: the profile's lines, active filters, what is
    shown and dropped, and the help line."""
    out = header_lines(profile, ti, getattr(graph, "mean", False), tot, out_unit)
    # header_lines formats the total unscaled; -divide_by shows it divided, as every value
    unscaled = "Total samples = " + _units.scaled_label(tot, profile.sample_types[ti][1], out_unit) + " "
    out = [ln.replace(unscaled, f"Total samples = {fmt(tot)} ", 1) if ln.startswith("Duration:") else ln for ln in out]
    out += active_filters(profile)
    out.append(f"Showing nodes accounting for {fmt(flat_sum)}, {_pct(flat_sum, tot)} of {fmt(tot)} total")
    if tot != 0:
        if graph.dropped_nodes > 0:
            n = graph.dropped_nodes
            out.append(f"Dropped {n} node{'s' if n > 1 else ''} (cum <= {fmt(abs(int(float(tot) * nodefraction)))})")
        if graph.dropped_edges > 0:
            n = graph.dropped_edges
            out.append(f"Dropped {n} edge{'s' if n > 1 else ''} (freq <= {fmt(abs(int(float(tot) * edgefraction)))})")
        if 0 < shown < graph.orig_count:
            out.append(f"Showing top {shown} nodes out of {graph.orig_count}")
    out.append(LEGEND_HELP)
    return out


def pprof_dot(
    graph: "AnyGraph",
    *,
    nodefraction: float,
    edgefraction: float,
    unit: Optional[str] = None,
    relative_percentages: bool = False,
    ratio: float = 1.0,
    drop_negative: bool = False,
) -> str:
    """The text ``go tool pprof -dot`` prints for ``graph`` (built by
    :func:`.callgraph.callgraph` with the same trimming fractions). ``ratio``
    multiplies displayed values (pprof's ``1/-divide_by``); ``drop_negative``
    leaves out nodes whose flat (or, at flat 0, cum) is negative, and their edges.
    A ``-mean`` graph (``graph.mean``) shows means against the mean total."""
    p, ti, g, order, cols = graph._profile, graph._ti, graph._g, graph._order, graph._table.columns()
    if drop_negative:
        order = [n for n in order if not (g["flat"][n] < 0 or (g["flat"][n] == 0 and g["cum"][n] < 0))]
    sample_unit = p.sample_types[ti][1]
    mean = getattr(graph, "mean", False)
    tot = report_total(p, ti, mean, relative_percentages)
    flat = [shown_value(g, "flat", n) for n in order]
    cum = [shown_value(g, "cum", n) for n in order]
    basis = [f if f != 0 else c for f, c in zip(flat, cum)]
    scaled = (lambda v: int(float(v) * ratio)) if ratio > 0 and ratio != 1 else (lambda v: v)  # noqa: E731
    out_unit = unit or "minimum"
    if order:
        out_unit = _units.select_unit([scaled(v) for v in basis], scaled(tot), sample_unit, unit)

    def fmt(v: int) -> str:
        return _units.scaled_label(scaled(int(v)), sample_unit, out_unit)

    mapping_file = p.strings[int(p.mappings.filename[0])] if len(p.mappings) else ""
    title = os.path.basename(mapping_file) if mapping_file else ""
    w = _Writer(fmt, tot)
    w.lines.append(f'digraph "{esc(title) if title else "unnamed"}" {{')
    w.lines.append('node [style=filled fillcolor="#f8f8f8"]')
    labels = legend_lines(p, ti, tot, out_unit, fmt, graph, len(order), sum(flat), nodefraction, edgefraction)
    text = "\\l".join(esc(x) for x in labels) + "\\l"
    legend = f'subgraph cluster_L {{ "{esc(labels[0])}" [shape=box fontsize=16 label="{text}"'
    if title:
        legend += f' tooltip="{esc(title)}"'
    w.lines.append(legend + "] }")
    if order:
        _nodes_and_edges(w, graph, cols, order, flat, cum, tot, unit or "minimum")
    w.lines.append("}")
    return "\n".join(w.lines) + "\n"


def shown_value(g: dict, column: str, i: int) -> int:
    """``g[column][i]``, divided by its count sum ``g[column + "_div"][i]`` when
    the graph has one (a ``-mean`` graph) and it is not 0, as pprof shows it."""
    v = int(g[column][i])
    div = g.get(column + "_div")
    d = 0 if div is None else int(div[i])
    return go_quo(v, d) if d else v


def _nodes_and_edges(
    w: _Writer,
    graph: "AnyGraph",
    cols: dict,
    order: List[int],
    flat: List[int],
    cum: List[int],
    tot: int,
    tag_unit: str,
) -> None:
    p, g = graph._profile, graph._g
    # a call tree's nodes are not table rows: _rows maps them (a call graph's are the rows)
    rows = getattr(graph, "_rows", None)
    node_id = {n: i + 1 for i, n in enumerate(order)}
    names = graph._table.printable_names()
    files = graph._table.files()
    # pprof writes the out-edges of the graph's nodes; one into a node outside
    # the graph (a -mean graph's zero sum, -drop_negative) points at N0
    live = [int(e) for e in range(len(g["src"])) if g["keep_edge"][e] and int(g["src"][e]) in node_id]
    has_out = {int(g["src"][e]) for e in live}
    cutoff = graph.node_cutoff
    if rows is not None:
        tags: Dict[int, NodeTags] = getattr(graph, "_tags")
    else:
        tags = node_tags(p, graph._ti, cols, order, cutoff, tag_unit, getattr(graph, "mean", False))
    max_flat = float(abs(flat[0]))
    for f in flat:
        max_flat = max(max_flat, float(abs(f)))
    has_nodelets = {}
    for i, n in enumerate(order):
        nid = i + 1
        f, c = flat[i], cum[i]
        r = n if rows is None else rows[n]
        label = multiline_name(
            int(cols["address"][r]),
            p._core.string(int(cols["name"][r])),
            files[r] if files else "",
            int(cols["lineno"][r]),
            p._core.string(int(cols["objfile"][r])),
        )
        flat_text = w.fmt(f)
        label += f"{flat_text} ({_pct(f, tot)})" if f != 0 else "0"
        cum_text = flat_text
        if c != f:
            label += "\\n" if f != 0 else " "
            cum_text = w.fmt(c)
            label += f"of {cum_text} ({_pct(c, tot)})"
        size = 8
        if max_flat != 0 and f != 0 and float(abs(f)) <= max_flat:
            size += int(math.ceil(16.0 * math.sqrt(float(abs(f)) / max_flat)))
        share = float(c) / float(abs(tot)) if tot else go_share_of_zero(c)
        w.lines.append(
            f'N{nid} [label="{label}" id="node{nid}" fontsize={size} shape=box '
            f'tooltip="{esc(names[r])} ({cum_text})" color="{dot_color(share, False)}" '
            f'fillcolor="{dot_color(share, True)}"]'
        )
        has_nodelets[n] = w.nodelets(nid, tags[n], n in has_out)
    weight = g["weight"]

    def name(n: int) -> str:
        return names[n if rows is None else rows[n]]

    live.sort(key=lambda e: (-abs(int(weight[e])), name(int(g["src"][e])), name(int(g["dst"][e]))))
    for e in live:
        s, d, wt = int(g["src"][e]), int(g["dst"][e]), shown_value(g, "weight", e)
        text = w.fmt(wt)
        attr = f'label=" {text}{chr(92) + "n (inline)" if g["inline"][e] else ""}"'
        if tot != 0:
            k = 1 + min(abs(go_quo(wt * 100, tot)), 100)
            if k > 1:
                attr += f" weight={k}"
            k = 1 + min(abs(go_quo(wt * 5, tot)), 5)
            if k > 1:
                attr += f" penwidth={k}"
            attr += f' color="{dot_color(float(wt) / float(abs(tot)), False)}"'
        arrow = "..." if g["residual"][e] else "->"
        tip = f'"{esc(name(s))} {arrow} {esc(name(d))} ({text})"'
        attr += f" tooltip={tip} labeltooltip={tip}"
        if g["residual"][e]:
            attr += ' style="dotted"'
        if has_nodelets[s]:
            attr += " minlen=2"
        w.lines.append(f"N{node_id[s]} -> N{node_id.get(d, 0)} [{attr}]")
