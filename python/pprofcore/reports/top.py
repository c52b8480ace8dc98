"""The top report: flat and cumulative values per node, and its pprof text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Union

import numpy as np

from .. import _units
from .._frames import value_names
from .._report_base import go_div, report_total
from ._nodes import (
    EDGEFRACTION,
    INLINE_TEXT,
    NODEFRACTION,
    header_lines,
    node_inline_labels,
    nodes,
    summary_lines,
    trim_nodes,
    trimmed_inline_labels,
)
from .table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def top(
    profile: "Profile",
    sample_type: Union[int, str, None] = None,
    by: str = "functions",
    n: Optional[int] = None,
    sort: str = "flat",
    mean: bool = False,
    unit: Optional[str] = None,
    inline: bool = True,
    nodefraction: float = NODEFRACTION,
    edgefraction: float = EDGEFRACTION,
    relative_percentages: bool = False,
    divide_by: float = 1.0,
) -> ReportTable:
    """pprof's ``-top``: flat and cum per function (or file, line, address),
    :meth:`Profile.top`, whose parameters it takes.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> t = pprofcore.reports.top(p, n=2)
    >>> t["name"], t["flat"].tolist()
    (['crypto/sha256.block', 'runtime.asyncPreempt'], [1130000000, 510000000])
    """
    if sort not in ("flat", "cum"):
        raise ValueError("sort must be 'flat' or 'cum'")
    if sample_type == "all" or isinstance(sample_type, (list, tuple)):
        return _top_many(profile, sample_type, by, n, sort, mean, inline)
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline)  # the sums of every label type; the labels come apart
    cols = t.columns()
    rows = t.order(profile._core, ti, sort == "cum")
    flat_total = int(cols["flat"][rows, ti].sum(dtype=np.int64))
    rows, dropped = trim_nodes(cols, rows, ti, nodefraction)
    all_rows = rows
    if n is not None and n > 0:
        rows = rows[:n]
    inline_labels = untrimmed = node_inline_labels(profile, by, inline, ti, mean)
    edge_cut = abs(int(flat_total * float(edgefraction))) if edgefraction else 0
    if dropped or len(rows) < len(all_rows) or edge_cut > 0:
        inline_labels = trimmed_inline_labels(profile, t, rows, ti, mean, edge_cut, untrimmed)
    flat_sum = cols["flat"][rows, ti]
    cum_sum = cols["cum"][rows, ti]
    if mean:
        flat = go_div(flat_sum, cols["flat"][rows, 0])
        cum = go_div(cum_sum, cols["cum"][rows, 0])
    else:
        flat, cum = flat_sum.copy(), cum_sum.copy()
    tot = report_total(profile, ti, mean, relative_percentages)
    names_all = t.printable_names()
    names = [names_all[int(r)] for r in rows]
    labels = inline_labels[rows]
    denom = float(tot) if tot else 1.0
    flat_pct = np.abs(flat) / denom * 100 if tot else np.zeros(len(rows))
    sum_pct = np.abs(np.cumsum(flat)) / denom * 100 if tot else np.zeros(len(rows))
    cum_pct = np.abs(cum) / denom * 100 if tot else np.zeros(len(rows))
    sample_unit = profile.sample_types[ti][1]
    # pprof picks the display unit from the nodes it shows (all of them when
    # nodecount is 0, else the kept ones).
    if mean:
        unit_basis = np.where(flat != 0, flat, cum)
    else:
        unit_basis = np.where(flat_sum != 0, flat_sum, cum_sum)
    ratio = _units.display_ratio(divide_by)
    out_unit = _units.select_unit(unit_basis.tolist(), tot, sample_unit, unit, ratio)
    columns = {
        "name": names,
        "flat": flat,
        "flat%": flat_pct,
        "sum%": sum_pct,
        "cum": cum,
        "cum%": cum_pct,
        "inline": [INLINE_TEXT[int(x)] for x in labels],
    }
    meta = {
        "sample_type": profile.sample_types[ti][0],
        "sample_unit": sample_unit,
        "unit": out_unit,
        "total": tot,
        "granularity": by,
        "sort": sort,
        "mean": mean,
        "nodes": len(all_rows),
        "dropped_nodes": dropped,
        "ratio": ratio,
    }
    fmt = lambda v: _units.scaled_label(_units.divided(v, ratio), sample_unit, out_unit)  # noqa: E731
    header = header_lines(profile, ti, mean, tot, out_unit, ratio)
    header += summary_lines(profile, fmt, int(flat.sum()), tot, dropped, nodefraction, len(rows), len(all_rows))
    pct = lambda v: _units.percentage(float(v), 100.0).strip()  # noqa: E731
    meta["html_format"] = {"flat": fmt, "cum": fmt, "flat%": pct, "sum%": pct, "cum%": pct}
    return ReportTable(columns, header, _top_text, meta)


def _top_text(t: ReportTable, n: Optional[int]) -> str:
    m = t.meta
    su, ou, tot, ratio = m["sample_unit"], m["unit"], m["total"], m.get("ratio", 1.0)
    fmt = lambda v: _units.scaled_label(_units.divided(v, ratio), su, ou)  # noqa: E731
    lines = list(t.header)
    lines.append(f"{'flat':>10} {'flat':>5}% {'sum':>5}% {'cum':>10} {'cum':>5}%")
    flat, cum = t["flat"], t["cum"]
    rows = len(t) if n is None else min(n, len(t))
    running = 0
    for i in range(rows):
        running += int(flat[i])
        inl = t["inline"][i]
        lines.append(
            f"{fmt(flat[i]):>10} {_units.percentage(int(flat[i]), tot)} "
            f"{_units.percentage(running, tot)} {fmt(cum[i]):>10} "
            f"{_units.percentage(int(cum[i]), tot)}  {t['name'][i]}{(' ' + inl) if inl else ''}"
        )
    if rows < len(t):
        lines.append(f"... {len(t) - rows} more rows")
    return "\n".join(lines)


def _top_many(profile, sample_types, by, n, sort, mean, inline) -> ReportTable:
    """top over several sample types at once: ``flat:<type>`` and ``cum:<type>``
    columns per type, rows in pprof's order for the first type listed, plus every
    node that is non-zero in any listed type."""
    if sample_types == "all":
        idx = list(range(len(profile.sample_types)))[::-1]
        idx.remove(profile.sample_type_index())
        idx.insert(0, profile.sample_type_index())
    else:
        idx = [profile.sample_type_index(s) for s in sample_types]
    if not idx:
        raise ValueError("no sample types given")
    t = nodes(profile, by, inline, idx[0])
    cols = t.columns()
    first = t.order(profile._core, idx[0], sort == "cum")
    seen = np.zeros(len(t), dtype=bool)
    seen[first] = True
    extra = []
    for ti in idx[1:]:
        o = t.order(profile._core, ti, sort == "cum")
        o = o[~seen[o]]
        seen[o] = True
        extra.append(o)
    rows = np.concatenate([first] + extra) if extra else first
    if n is not None and n > 0:
        rows = rows[:n]
    names_all = t.printable_names()
    out: Dict[str, Any] = {"name": [names_all[int(r)] for r in rows]}
    vnames = value_names(profile)
    for ti in idx:
        f, c = cols["flat"][rows, ti], cols["cum"][rows, ti]
        if mean:
            f, c = go_div(f, cols["flat"][rows, 0]), go_div(c, cols["cum"][rows, 0])
        out[f"flat:{vnames[ti]}"] = np.array(f)
        out[f"cum:{vnames[ti]}"] = np.array(c)
    out["inline"] = [INLINE_TEXT[int(x)] for x in cols["inline_label"][rows]]
    header = [f"Types: {', '.join(vnames[i] for i in idx)} (values in each type's unit; order by {vnames[idx[0]]})"]
    return ReportTable(out, header, meta={"sample_types": [vnames[i] for i in idx], "granularity": by})
