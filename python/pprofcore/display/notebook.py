"""What a notebook shows of a profile, a report table, a source listing and a
repair report: their ``__repr__`` text and ``_repr_html_`` HTML.

The data classes (``Profile``, ``ReportTable``, ``RepairReport``) call these
functions, so this module imports only helpers and leaves: importing it never
loads the flame or call graph modules (``display/__init__`` imports nothing)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from .._summary import format_duration, format_time, producer_hints, totals
from .._units import percentage, scaled_label

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile
    from .._repair import RepairReport
    from ..reports.table import ReportTable


def profile_repr(p: "Profile") -> str:
    types = ",".join(f"{t}/{u}" for t, u in p.sample_types) or "no sample types"
    dur = f", duration {format_duration(p.duration_nanos)}" if p.duration_nanos else ""
    return (
        f"<pprofcore.Profile {types}: {len(p)} samples, {len(p.locations)} locations, "
        f"{len(p.functions)} functions, {len(p.mappings)} mappings{dur}>"
    )


def profile_html(p: "Profile") -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(name)}</td><td style='text-align:right'>{value:,}</td></tr>" for name, value in totals(p).items()
    )
    hints = ", ".join(producer_hints(p)) or "unknown producer"
    facts = [
        ("samples", f"{len(p):,}"),
        ("locations", f"{len(p.locations):,}"),
        ("functions", f"{len(p.functions):,}"),
        ("mappings", f"{len(p.mappings):,}"),
        ("strings", f"{len(p.strings):,}"),
        ("period", f"{p.period:,} {esc('/'.join(p.period_type)) if p.period_type else ''}"),
        ("time", esc(format_time(p.time_nanos))),
        ("duration", esc(format_duration(p.duration_nanos))),
    ]
    fact_rows = "".join(f"<tr><th style='text-align:left'>{k}</th><td>{v}</td></tr>" for k, v in facts)
    comments = "".join(f"<li>{esc(c)}</li>" for c in p.comments)
    return (
        "<div class='pprofcore-profile'>"
        f"<strong>pprofcore.Profile</strong> <span style='color:#666'>{esc(hints)}</span>"
        "<div style='display:flex;gap:2em'>"
        f"<table><thead><tr><th>sample type</th><th>total</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<table><tbody>{fact_rows}</tbody></table>"
        "</div>" + (f"<ul>{comments}</ul>" if comments else "") + "</div>"
    )


# ------------------------------------------------------------------ tables
_BAR_COLUMNS = {"flat": "#e57373", "cum": "#64b5f6"}


_TABLE_STYLE = (
    "<style>.pprofcore-report table{border-collapse:collapse}"
    ".pprofcore-report td,.pprofcore-report th{padding:1px 6px;white-space:nowrap}"
    ".pprofcore-report .pc-bar{display:inline-block;height:.8em;vertical-align:middle;margin-right:4px}"
    ".pprofcore-report .pc-head{color:#555}</style>"
)


def report_table_html(t: "ReportTable", limit: int = 200) -> str:
    """A report table: header lines, then rows; ``flat`` and ``cum`` get inline
    bars proportional to their share of the report total (or of the column's
    largest value when the table has no total)."""
    names = t.columns
    rows = min(len(t), limit)
    fmt = t.meta.get("html_format", {})
    total = t.meta.get("total")
    scale = {}
    for c in _BAR_COLUMNS:
        if c in names and rows:
            col = np.abs(np.asarray(t[c], dtype=np.float64))
            denom = float(total) if total else float(col.max(initial=0.0))
            if denom > 0:
                scale[c] = denom
    out = ['<div class="pprofcore-report">', _TABLE_STYLE]
    for h in t.header:
        out.append(f'<div class="pc-head">{html.escape(h)}</div>')
    out.append("<table><thead><tr>" + "".join(f"<th>{html.escape(n)}</th>" for n in names) + "</tr></thead><tbody>")
    for i, row in enumerate(t.rows()):
        if i >= rows:
            break
        cells = []
        for n in names:
            v = row[n]
            f = fmt.get(n)
            s = html.escape(f(v) if f and v is not None else str(v))
            if isinstance(t[n], list) or (v is not None and isinstance(v, str)):
                cells.append(f'<td style="text-align:left">{s}</td>')
                continue
            bar = ""
            if n in scale and v is not None:
                w = min(100.0, 100.0 * abs(float(v)) / scale[n])
                bar = f'<span class="pc-bar" style="width:{w * 0.6:.1f}px;background:{_BAR_COLUMNS[n]}"></span>'
            cells.append(f'<td style="text-align:right">{bar}{s}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if rows < len(t):
        out.append(f"<div>... {len(t) - rows} more rows</div>")
    out.append("</div>")
    return "".join(out)


def repair_report_html(r: "RepairReport") -> str:
    """A repair report: one row per non-zero counter with its meaning."""
    text = str(r).splitlines()
    if not r:
        return f'<div class="pprofcore-repair"><strong>RepairReport</strong>: {html.escape(text[0])}</div>'
    rows = "".join(
        f"<tr><td style='text-align:right'>{html.escape(line.split(None, 1)[0])}</td>"
        f"<td>{html.escape(line.split(None, 1)[1])}</td></tr>"
        for line in text[1:]
    )
    return (
        f'<div class="pprofcore-repair"><strong>RepairReport</strong>: {html.escape(text[0])}'
        f"<table><tbody>{rows}</tbody></table></div>"
    )


def listing_html(t) -> str:
    """The listing ``t`` (a ``reports.listing.ListingTable``) as
    self-contained HTML (inline styles, no scripts): one block per routine,
    lines shaded by their cum share of the routine, like pprof's weblist."""
    m = t.meta
    su, tot = m["sample_unit"], m["total"]
    key = "line" if m["kind"] == "list" else "address"
    rows: dict = {}
    for i in range(len(t)):
        rows.setdefault((t["routine"][i], t["file"][i]), []).append(i)
    out = [
        '<div class="pprofcore-listing" style="font-family:monospace;font-size:12px">',
        f"<div>Total: {html.escape(scaled_label(tot, su))}</div>",
    ]
    for r in m["routines"]:
        where = f" in {html.escape(r['file'])}" if r.get("file") and m["kind"] == "list" else ""
        out.append(f"<h4 style='margin:8px 0 2px 0'>{html.escape(r['name'])}{where}</h4>")
        out.append(
            f"<div>{html.escape(scaled_label(r['flat'], su))} {html.escape(scaled_label(r['cum'], su))} "
            f"(flat, cum) {html.escape(percentage(r['cum'], tot))} of Total</div>"
        )
        if r.get("error"):
            out.append(f"<div style='color:#a00'>{html.escape(r['error'])}</div>")
            continue
        out.append("<table style='border-collapse:collapse'>")
        peak = max([abs(int(t["cum"][i])) for i in rows.get((r["name"], r["file"]), [])] + [1])
        for i in rows.get((r["name"], r["file"]), []):
            flat, cum = int(t["flat"][i]), int(t["cum"][i])
            alpha = 0.6 * abs(cum) / peak
            cell = lambda v: "." if v == 0 else html.escape(scaled_label(v, su))  # noqa: E731
            k = t[key][i]
            label = f"{int(k):d}" if key == "line" else f"{int(k):x}"
            out.append(
                f"<tr style='background:rgba(230,80,40,{alpha:.3f})'>"
                f"<td style='text-align:right;padding:0 6px'>{cell(flat)}</td>"
                f"<td style='text-align:right;padding:0 6px'>{cell(cum)}</td>"
                f"<td style='text-align:right;padding:0 6px;color:#666'>{label}</td>"
                f"<td style='white-space:pre;text-align:left'>{html.escape(t['text'][i])}</td></tr>"
            )
        out.append("</table>")
    out.append("</div>")
    return "\n".join(out)
