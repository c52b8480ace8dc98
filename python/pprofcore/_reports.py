"""pprof's text reports as data: top (flat/cum per node), and the helpers they
share. Aggregation runs in C++ (``_core.aggregate``); this module picks the sample
type, applies pprof's mean and unit rules and builds :class:`ReportTable` objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Union

import numpy as np

from . import _core, _units
from ._report_base import active_filters, report_total
from ._report_table import ReportTable

if TYPE_CHECKING:
    from ._profile import Profile

GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses")
_INLINE_TEXT = ("", "(inline)", "(partial-inline)")


def go_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Go's int64 division (truncating toward zero); ``a`` where ``b == 0``."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    q = np.where((a < 0) != (safe < 0), -q, q)
    return np.where(b == 0, a, q)


def check_granularity(by: str) -> str:
    if by not in GRANULARITIES:
        raise ValueError(f"unknown granularity {by!r}; expected one of {', '.join(GRANULARITIES)}")
    return by


def nodes(profile: "Profile", by: str = "functions", inline: bool = True, label_type: int = -1,
          mean: bool = False):
    """The C++ node table of ``profile`` at granularity ``by`` (cached on the profile).

    ``label_type`` (and with ``mean`` the count type 0) decides which samples
    create the call edges behind the inline labels, as pprof's graph does."""
    check_granularity(by)
    cache = profile._tables
    div = 0 if mean else -1
    key = ("__nodes__", by, bool(inline), int(label_type), div)
    t = cache.get(key)
    if t is None:
        t = _core.aggregate(profile._core, by, bool(inline), int(label_type), div)
        cache[key] = t
    return t


def diff_base_mask(profile: "Profile") -> Optional[np.ndarray]:
    """Samples labelled ``pprof::base=true`` (a ``-diff_base`` profile), or None."""
    lab = profile.labels
    if len(lab.key) == 0:
        return None
    strings = profile.strings
    codes = [i for i, x in enumerate(strings) if x in ("pprof::base", "true")]
    if not codes:
        return None
    keys = [i for i in codes if strings[i] == "pprof::base"]
    vals = [i for i in codes if strings[i] == "true"]
    hit = np.isin(lab.key, keys) & np.isin(lab.str, vals)
    if not hit.any():
        return None
    sample = np.repeat(np.arange(len(profile), dtype=np.int64), np.diff(profile.label_offsets))
    mask = np.zeros(len(profile), dtype=bool)
    mask[sample[hit]] = True
    return mask


def total(profile: "Profile", ti: int, mean: bool = False) -> int:
    """pprof's report total: sum of |value| (divided by the count total for
    ``mean``); for a ``-diff_base`` profile, the total of the base samples."""
    if len(profile) == 0:
        return 0
    v = profile.values
    col = np.abs(v[:, ti])
    div_col = v[:, 0]
    base = diff_base_mask(profile)
    if base is not None and int(col[base].sum(dtype=np.int64)) > 0:
        col, div_col = col[base], div_col[base]
    t = int(col.sum(dtype=np.int64))
    if mean:
        div = int(div_col.sum(dtype=np.int64))
        if div != 0:
            t = int(go_div(np.int64(t), np.int64(div)))
    return t


def type_label(profile: "Profile", ti: int, mean: bool) -> str:
    t = profile.sample_types[ti][0]
    return ("mean_" + t) if mean else t


def header_lines(profile: "Profile", ti: int, mean: bool, tot: int, unit: str) -> List[str]:
    """pprof's ProfileLabels: File, Build ID, comments, Type, Duration lines."""
    out = []
    m = profile.mappings
    if len(m):
        f = profile.strings[int(m.filename[0])]
        if f:
            out.append("File: " + f.rstrip("/").rsplit("/", 1)[-1])
        b = profile.strings[int(m.build_id[0])]
        if b:
            out.append("Build ID: " + b)
    out += [c for c in profile.comments if not c.startswith("#")]
    if profile.sample_types[ti][0]:
        out.append("Type: " + type_label(profile, ti, mean))
    if profile.time_nanos:
        out.append("Time: " + _go_time(profile.time_nanos))
    sample_unit = profile.sample_types[ti][1]
    if profile.duration_nanos:
        dur = _units.scaled_label(profile.duration_nanos, "nanoseconds", "auto")
        ns, u = _units.scale(tot, sample_unit, "nanoseconds")
        ratio = f"({_units.percentage(int(ns), profile.duration_nanos)})" if u == "ns" and ns else ""
        out.append(f"Duration: {dur}, Total samples = {_units.scaled_label(tot, sample_unit, unit)} {ratio}")
    return out


def _go_time(nanos: int) -> str:
    import time as _time

    tm = _time.localtime(nanos // 1_000_000_000)
    hour = tm.tm_hour % 12 or 12
    ampm = "am" if tm.tm_hour < 12 else "pm"
    return f"{_time.strftime('%b', tm)} {tm.tm_mday}, {tm.tm_year} at {hour}:{tm.tm_min:02d}{ampm} ({tm.tm_zone})"


def top(profile: "Profile", sample_type: Union[int, str, None] = None, by: str = "functions",
        n: Optional[int] = None, sort: str = "flat", mean: bool = False, unit: Optional[str] = None,
        inline: bool = True, nodefraction: float = 0.005, edgefraction: float = 0.001,
        relative_percentages: bool = False) -> ReportTable:
    if sort not in ("flat", "cum"):
        raise ValueError("sort must be 'flat' or 'cum'")
    if sample_type == "all" or isinstance(sample_type, (list, tuple)):
        return _top_many(profile, sample_type, by, n, sort, mean, inline)
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline, ti, mean)
    cols = t.columns()
    rows = t.order(profile._core, ti, sort == "cum")
    flat_total = int(cols["flat"][rows, ti].sum(dtype=np.int64))
    rows, dropped = trim_nodes(cols, rows, ti, nodefraction)
    all_rows = rows
    if n is not None and n > 0:
        rows = rows[:n]
    inline_labels = cols["inline_label"]
    edge_cut = abs(int(flat_total * float(edgefraction))) if edgefraction else 0
    if dropped or len(rows) < len(all_rows) or edge_cut > 0:
        inline_labels = trimmed_inline_labels(profile, t, rows, ti, mean, edge_cut)
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
    out_unit = _units.select_unit(unit_basis.tolist(), tot, sample_unit, unit)
    columns = {
        "name": names,
        "flat": flat,
        "flat%": flat_pct,
        "sum%": sum_pct,
        "cum": cum,
        "cum%": cum_pct,
        "inline": [_INLINE_TEXT[int(x)] for x in labels],
    }
    meta = {
        "sample_type": profile.sample_types[ti][0], "sample_unit": sample_unit, "unit": out_unit,
        "total": tot, "granularity": by, "sort": sort, "mean": mean, "nodes": len(all_rows),
        "dropped_nodes": dropped,
    }
    fmt = lambda v: _units.scaled_label(int(v), sample_unit, out_unit)  # noqa: E731
    header = header_lines(profile, ti, mean, tot, out_unit)
    header += summary_lines(profile, fmt, int(flat.sum()), tot, dropped, nodefraction, len(rows), len(all_rows))
    pct = lambda v: _units.percentage(float(v), 100.0).strip()  # noqa: E731
    meta["html_format"] = {"flat": fmt, "cum": fmt, "flat%": pct, "sum%": pct, "cum%": pct}
    return ReportTable(columns, header, _top_text, meta)


def trimmed_inline_labels(profile: "Profile", t, rows: np.ndarray, ti: int, mean: bool, edge_cut: int) -> np.ndarray:
    """Inline label per node (0 none, 1 inline, 2 partial-inline) from the
    in-edges of pprof's final graph: only the nodes in ``rows``, edges that skip
    dropped nodes, and edges lighter than ``edge_cut`` removed."""
    keep = np.zeros(len(t), dtype=np.uint8)
    keep[rows] = 1
    e = t.edges(profile._core, keep, ti, 0 if mean else -1, keep)
    out = np.zeros(len(t), dtype=np.int64)
    if len(e["src"]) == 0:
        return out
    live = np.abs(e["weight"][:, ti]) >= edge_cut
    dst, inl = e["dst"][live], e["inline"][live].astype(bool)
    has_inline = np.zeros(len(t), dtype=bool)
    has_plain = np.zeros(len(t), dtype=bool)
    has_inline[dst[inl]] = True
    has_plain[dst[~inl]] = True
    out[has_inline] = 1
    out[has_inline & has_plain] = 2
    return out


def trim_nodes(cols, rows: np.ndarray, ti: int, nodefraction: float):
    """pprof's first trimming step (``DiscardLowFrequencyNodes``): drops the
    nodes whose |cum| is below ``nodefraction`` of the sum of all nodes' flat
    values. Returns (kept rows in order, number dropped)."""
    if not nodefraction or len(rows) == 0:
        return rows, 0
    flat_total = int(cols["flat"][rows, ti].sum(dtype=np.int64))
    cutoff = abs(int(flat_total * float(nodefraction)))  # Go: int64(float64(total) * fraction)
    if cutoff <= 0:
        return rows, 0
    keep = np.abs(cols["cum"][rows, ti]) >= cutoff
    return rows[keep], int((~keep).sum())


def summary_lines(profile: "Profile", fmt, flat_sum: int, tot: int, dropped: int, nodefraction: float,
                  shown: int, orig: int) -> List[str]:
    """pprof's report labels after the profile's: "Active filters", "Showing
    nodes accounting for ...", "Dropped N nodes (cum <= X)", "Showing top N
    nodes out of M"."""
    out = active_filters(profile)
    out.append(f"Showing nodes accounting for {fmt(flat_sum)}, "
               f"{_units.percentage(flat_sum, tot).strip()} of {fmt(tot)} total")
    if tot != 0:
        if dropped > 0:
            cut = abs(int(tot * float(nodefraction)))
            out.append(f"Dropped {dropped} node{'s' if dropped > 1 else ''} (cum <= {fmt(cut)})")
        if 0 < shown < orig:
            out.append(f"Showing top {shown} nodes out of {orig}")
    return out


def _top_text(t: ReportTable, n: Optional[int]) -> str:
    m = t.meta
    su, ou, tot = m["sample_unit"], m["unit"], m["total"]
    lines = list(t.header)
    lines.append(f"{'flat':>10} {'flat':>5}% {'sum':>5}% {'cum':>10} {'cum':>5}%")
    flat, cum = t["flat"], t["cum"]
    rows = len(t) if n is None else min(n, len(t))
    running = 0
    for i in range(rows):
        running += int(flat[i])
        inl = t["inline"][i]
        lines.append(f"{_units.scaled_label(int(flat[i]), su, ou):>10} {_units.percentage(int(flat[i]), tot)} "
                     f"{_units.percentage(running, tot)} {_units.scaled_label(int(cum[i]), su, ou):>10} "
                     f"{_units.percentage(int(cum[i]), tot)}  {t['name'][i]}{(' ' + inl) if inl else ''}")
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
    out = {"name": [names_all[int(r)] for r in rows]}
    from ._dataframes import _value_names

    vnames = _value_names(profile)
    for ti in idx:
        f, c = cols["flat"][rows, ti], cols["cum"][rows, ti]
        if mean:
            f, c = go_div(f, cols["flat"][rows, 0]), go_div(c, cols["cum"][rows, 0])
        out[f"flat:{vnames[ti]}"] = np.array(f)
        out[f"cum:{vnames[ti]}"] = np.array(c)
    out["inline"] = [_INLINE_TEXT[int(x)] for x in cols["inline_label"][rows]]
    header = [f"Types: {', '.join(vnames[i] for i in idx)} (values in each type's unit; order by {vnames[idx[0]]})"]
    return ReportTable(out, header, meta={"sample_types": [vnames[i] for i in idx], "granularity": by})
