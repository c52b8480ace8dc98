"""HTML for source and disassembly listings in notebooks: one block per
routine with its header, then a table of lines whose background deepens with
the line's cum share of the routine (like pprof's weblist)."""

from __future__ import annotations

from html import escape


def listing_html(t) -> str:
    """The listing ``t`` (a :class:`pprofcore.listing.ListingTable`) as
    self-contained HTML (inline styles, no scripts)."""
    from .._units import percentage, scaled_label

    m = t.meta
    su, tot = m["sample_unit"], m["total"]
    key = "line" if m["kind"] == "list" else "address"
    rows = {}
    for i in range(len(t)):
        rows.setdefault((t["routine"][i], t["file"][i]), []).append(i)
    out = ['<div class="pprofcore-listing" style="font-family:monospace;font-size:12px">',
           f"<div>Total: {escape(scaled_label(tot, su))}</div>"]
    for r in m["routines"]:
        where = f" in {escape(r['file'])}" if r.get("file") and m["kind"] == "list" else ""
        out.append(f"<h4 style='margin:8px 0 2px 0'>{escape(r['name'])}{where}</h4>")
        out.append(f"<div>{escape(scaled_label(r['flat'], su))} {escape(scaled_label(r['cum'], su))} "
                   f"(flat, cum) {escape(percentage(r['cum'], tot))} of Total</div>")
        if r.get("error"):
            out.append(f"<div style='color:#a00'>{escape(r['error'])}</div>")
            continue
        out.append("<table style='border-collapse:collapse'>")
        peak = max([abs(int(t["cum"][i])) for i in rows.get((r["name"], r["file"]), [])] + [1])
        for i in rows.get((r["name"], r["file"]), []):
            flat, cum = int(t["flat"][i]), int(t["cum"][i])
            alpha = 0.6 * abs(cum) / peak
            cell = lambda v: "." if v == 0 else escape(scaled_label(v, su))  # noqa: E731
            k = t[key][i]
            label = f"{int(k):d}" if key == "line" else f"{int(k):x}"
            out.append(f"<tr style='background:rgba(230,80,40,{alpha:.3f})'>"
                       f"<td style='text-align:right;padding:0 6px'>{cell(flat)}</td>"
                       f"<td style='text-align:right;padding:0 6px'>{cell(cum)}</td>"
                       f"<td style='text-align:right;padding:0 6px;color:#666'>{label}</td>"
                       f"<td style='white-space:pre;text-align:left'>{escape(t['text'][i])}</td></tr>")
        out.append("</table>")
    out.append("</div>")
    return "\n".join(out)
