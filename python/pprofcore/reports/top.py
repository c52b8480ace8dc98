"""The top report: flat and cumulative values per node, and its pprof text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Union

import numpy as np

from .. import _units
from .._frames import value_names
from .._report_base import go_div, report_total
from .._report_defaults import EDGEFRACTION, NODEFRACTION
from .._report_text import INLINE_TEXT, top_lines
from ._nodes import (
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
    """pprof's ``-top``: flat and cum per function (or file, line, address);
    ``p.top(...)`` is ``top(p, ...)``.

    Parameters
    ----------
    sample_type : int, str, list or "all", optional
        Sample type index or name; default follows pprof (``default_sample_type``,
        else the last type). A list (or ``"all"``) gives ``flat:<type>`` and
        ``cum:<type>`` columns for each type, ordered by the first.
    by : {"functions", "filefunctions", "files", "lines", "addresses", "packages", "binaries"}
        pprof's granularity, or ours: ``"packages"`` groups functions by
        package (Go import path, Java package, C++/Rust namespace, Python
        module: :func:`pprofcore.reports.package_of`; functions without
        one fall under their binary), ``"binaries"`` by the mapping's file.
    n : int, optional
        Keep only the first ``n`` rows (pprof's ``-nodecount``).
    sort : {"flat", "cum"}
        Order by flat (pprof's default) or cum (``-cum``).
    mean : bool
        Divide by the first (count) sample type, like ``-mean``.
    unit : str, optional
        Display unit (``"minimum"`` default, ``"auto"``, ``"ms"``, ``"MB"`` ...);
        table values stay in the sample type's own unit.
    inline : bool
        Show inlined functions as their own rows (``False`` = ``-noinlines``).
    nodefraction : float
        pprof's ``-nodefraction`` (default 0.005, as pprof): nodes whose cum is
        below this fraction of the total are dropped ("Dropped N nodes" in the
        header). ``0`` keeps every node.
    edgefraction : float
        pprof's ``-edgefraction`` (default 0.001): call edges lighter than this
        fraction are dropped before the ``(inline)`` labels are decided, as pprof does.
    relative_percentages : bool
        Percentages of what is left after filtering (``-relative_percentages``).
        By default, as pprof, a profile made by :meth:`Profile.filter` and the other
        sample filters measures percentages against the total *before*
        filtering, and its header lists the "Active filters".
    divide_by : float
        pprof's ``-divide_by``: the text shows every value divided by this
        (truncated as pprof does); percentages and table values are unchanged.

    Returns
    -------
    ReportTable
        Columns ``name, flat, flat%, sum%, cum, cum%, inline``; ``repr`` is pprof's text.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> t = pprofcore.reports.top(p, n=2)  # or p.top(n=2)
    >>> t["name"], t["flat"].tolist()
    (['crypto/sha256.block', 'runtime.asyncPreempt'], [1130000000, 510000000])
    >>> p.top(sort="cum", n=2)["name"]
    ['main.cpuPhase.func1', 'main.cpuPhase.func1.1']
    >>> p.top(by="files", n=1)["name"]
    ['crypto/sha256/sha256block_amd64.s']
    """
    if sort not in ("flat", "cum"):
        raise ValueError("sort must be 'flat' or 'cum'")
    if sample_type == "all" or isinstance(sample_type, (list, tuple)):
        return _top_many(profile, sample_type, by, n, sort, mean, inline)
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline)  # the sums of every label type; the labels come apart
    cols = t.columns()
    rows = t.order(profile._tables_core, ti, sort == "cum")
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
    su, ou, ratio = m["sample_unit"], m["unit"], m.get("ratio", 1.0)
    fmt = lambda v: _units.scaled_label(_units.divided(v, ratio), su, ou)  # noqa: E731
    return "\n".join(top_lines(t.header, t["name"], t["flat"], t["cum"], t["inline"], m["total"], fmt, n))


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
    first = t.order(profile._tables_core, idx[0], sort == "cum")
    seen = np.zeros(len(t), dtype=bool)
    seen[first] = True
    extra = []
    for ti in idx[1:]:
        o = t.order(profile._tables_core, ti, sort == "cum")
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
