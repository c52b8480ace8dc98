"""pprof's peek, traces and tags reports and per-label totals, as tables.
Per-sample work is in C++ (nodes, edges) or vectorized NumPy; Python loops only
over distinct names, label values and output lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional

import numpy as np

from .. import _args, _units
from .._report_base import go_div, report_total
from .._report_defaults import EDGEFRACTION, NODECOUNT, NODEFRACTION
from ._nodes import header_lines, nodes, summary_lines, trim_nodes
from .table import ReportTable

if TYPE_CHECKING:
    from .._profile import Profile


def _pct(v: float, tot: float) -> str:
    return _units.percentage(v, tot)


# ------------------------------------------------------------------ peek, tree
def peek(
    profile: "Profile",
    regex: str,
    sample_type=None,
    by: str = "functions",
    mean: bool = False,
    unit: Optional[str] = None,
    inline: bool = True,
    relative_percentages: bool = False,
    divide_by: float = 1.0,
    sort: str = "flat",
) -> ReportTable:
    """pprof's ``-peek``: callers and callees of the nodes whose name matches
    ``regex`` (``re.search``), with edge weights, in ``sort`` order and without
    trimming, as pprof; ``p.peek(...)`` is ``peek(p, ...)``. Returns a table
    with columns ``focus, kind ("caller"/"node"/"callee"), name, flat, cum,
    weight, inline``. Raises ``ValueError`` ("no matches found for regexp:
    ...") when ``regex`` matches no node, as pprof does.
    ``relative_percentages``, ``divide_by``: see :func:`top`.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.peek(p, "sort.partition"))  # doctest: +ELLIPSIS
    File: basic
    ...
    """
    return call_tree(
        profile,
        _args.compile_regex("peek regex", regex),
        sample_type,
        by,
        sort,
        mean,
        unit,
        inline,
        0,
        0.0,
        0.0,
        relative_percentages,
        divide_by,
    )


def tree(
    profile: "Profile",
    sample_type=None,
    by: str = "functions",
    sort: str = "flat",
    mean: bool = False,
    unit: Optional[str] = None,
    inline: bool = True,
    nodecount: int = NODECOUNT,
    nodefraction: float = NODEFRACTION,
    edgefraction: float = EDGEFRACTION,
    relative_percentages: bool = False,
    divide_by: float = 1.0,
) -> ReportTable:
    """pprof's ``-tree``: every node with its callers and callees, the same
    table as :func:`peek`, for the nodes pprof keeps after trimming (defaults
    as pprof's: ``nodecount=80``, ``nodefraction=0.005``,
    ``edgefraction=0.001``; ``0`` turns a limit off); ``p.tree(...)`` is
    ``tree(p, ...)``. ``sort="cum"`` orders nodes as ``-cum``.
    ``relative_percentages``, ``divide_by``: see :func:`top`.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.tree(p))  # doctest: +ELLIPSIS
    File: basic
    Type: cpu
    ...
    Showing top 80 nodes out of 125
    ...
    """
    return call_tree(
        profile,
        None,
        sample_type,
        by,
        sort,
        mean,
        unit,
        inline,
        nodecount,
        nodefraction,
        edgefraction,
        relative_percentages,
        divide_by,
    )


def call_tree(
    profile: "Profile",
    rx,
    sample_type,
    by: str,
    sort: str,
    mean: bool,
    unit: Optional[str],
    inline: bool,
    nodecount: int,
    nodefraction: float,
    edgefraction: float,
    relative_percentages: bool,
    divide_by: float = 1.0,
) -> ReportTable:
    """pprof's printTree: nodes in report order (trimmed as newTrimmedGraph does:
    |cum| below ``nodefraction``, then the first ``nodecount``; edges below
    ``edgefraction`` of the flat total dropped), each with its in/out edges;
    only the nodes matching ``rx`` when given."""
    if sort not in ("flat", "cum"):
        raise ValueError("sort must be 'flat' or 'cum'")
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline, ti, mean)
    cols = t.columns()
    names = t.printable_names()
    order = t.order(profile._core, ti, sort == "cum")
    flat_total = int(cols["flat"][order, ti].sum(dtype=np.int64))
    order, dropped = trim_nodes(cols, order, ti, nodefraction)
    orig = len(order)
    if nodecount and nodecount > 0:
        order = order[:nodecount]
    keep = None
    if dropped or len(order) < orig:
        keep = np.zeros(len(t), dtype=np.uint8)
        keep[order] = 1
    if rx is None:
        matched = [int(r) for r in order]
    else:
        matched_by_name: Dict[str, bool] = {}
        matched = [int(r) for r in order if matched_by_name.setdefault(names[r], rx.search(names[r]) is not None)]
        if not matched:
            raise ValueError(f"no matches found for regexp: {rx.pattern}")
    mask = np.zeros(len(t), dtype=np.uint8)
    mask[matched] = 1
    e = t.edges(profile._core, mask, ti, 0 if mean else -1, keep)
    src, dst, w, einl = e["src"], e["dst"], e["weight"][:, ti] if len(e["src"]) else np.zeros(0, np.int64), e["inline"]
    edge_cut = abs(int(flat_total * float(edgefraction))) if edgefraction else 0
    live = np.abs(w) >= edge_cut
    flat_all = cols["flat"][order, ti]
    cum_all = cols["cum"][order, ti]
    if mean:
        flat_all = go_div(flat_all, cols["flat"][order, 0])
        cum_all = go_div(cum_all, cols["cum"][order, 0])
    tot = report_total(profile, ti, mean, relative_percentages)
    su = profile.sample_types[ti][1]
    basis = np.where(flat_all != 0, flat_all, cum_all)
    ratio = _units.display_ratio(divide_by)
    ou = _units.select_unit(basis.tolist(), tot, su, unit, ratio)
    pos = {int(r): i for i, r in enumerate(order)}
    out: Dict[str, list] = {k: [] for k in ("focus", "kind", "name", "flat", "cum", "weight", "inline")}

    def edge_sort(idx):
        return sorted(idx, key=lambda i: (-abs(int(w[i])), names[src[i]], names[dst[i]]))

    for r in matched:
        i = pos[r]
        ins = edge_sort(np.nonzero((dst == r) & live)[0].tolist())
        outs = edge_sort(np.nonzero((src == r) & live)[0].tolist())
        for k in ins:
            _peek_row(out, names[r], "caller", names[src[k]], 0, 0, int(w[k]), bool(einl[k]))
        _peek_row(out, names[r], "node", names[r], int(flat_all[i]), int(cum_all[i]), 0, False)
        for k in outs:
            _peek_row(out, names[r], "callee", names[dst[k]], 0, 0, int(w[k]), bool(einl[k]))
    fmt = lambda v: _units.scaled_label(_units.divided(v, ratio), su, ou)  # noqa: E731
    header = header_lines(profile, ti, mean, tot, ou, ratio)
    header += summary_lines(profile, fmt, int(flat_all.sum()), tot, dropped, nodefraction, len(order), orig)
    meta = {
        "sample_unit": su,
        "unit": ou,
        "total": tot,
        "sample_type": profile.sample_types[ti][0],
        "dropped_nodes": dropped,
        "nodes": orig,
        "ratio": ratio,
    }
    cols_out = {
        k: (
            np.asarray(v, dtype=np.int64)
            if k in ("flat", "cum", "weight")
            else np.asarray(v, dtype=bool)
            if k == "inline"
            else v
        )
        for k, v in out.items()
    }
    return ReportTable(cols_out, header, _peek_text, meta)


def _peek_row(out, focus, kind, name, flat, cum, weight, inl):
    out["focus"].append(focus)
    out["kind"].append(kind)
    out["name"].append(name)
    out["flat"].append(flat)
    out["cum"].append(cum)
    out["weight"].append(weight)
    out["inline"].append(inl)


def _peek_text(t: ReportTable, n: Optional[int]) -> str:
    sep = "----------------------------------------------------------+-------------"
    m = t.meta
    su, ou, tot, ratio = m["sample_unit"], m["unit"], m["total"], m.get("ratio", 1.0)
    fmt = lambda v: _units.scaled_label(_units.divided(v, ratio), su, ou)  # noqa: E731
    lines = list(t.header)
    lines.append(sep)
    lines.append("      flat  flat%   sum%        cum   cum%   calls calls% + context \t \t ")
    flat_sum = 0
    cum_of = {}
    for i in range(len(t)):
        if t["kind"][i] == "node":
            cum_of[t["focus"][i]] = int(t["cum"][i])
    for i in range(len(t)):
        kind, name = t["kind"][i], t["name"][i]
        if kind == "node":
            flat, cum = int(t["flat"][i]), int(t["cum"][i])
            flat_sum += flat
            lines.append(
                f"{fmt(flat):>10} {_pct(flat, tot)} {_pct(flat_sum, tot)} {fmt(cum):>10} {_pct(cum, tot)}"
                f"                | {name}"
            )
        else:
            if kind == "caller" and (i == 0 or t["kind"][i - 1] == "callee" or t["kind"][i - 1] == "node"):
                lines.append(sep)
            w = int(t["weight"][i])
            inl = " (inline)" if t["inline"][i] else ""
            lines.append(f"{fmt(w):>50} {_pct(w, cum_of[t['focus'][i]])} |   {name}{inl}")
        if kind == "node" and (i == 0 or t["kind"][i - 1] != "caller"):
            # a node without callers still starts a new block
            lines.insert(len(lines) - 1, sep)
    if len(t):
        lines.append(sep)
    return "\n".join(lines)
