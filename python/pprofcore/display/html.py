"""HTML for notebooks and pages: the interactive flame graph (script and styles
from ``assets/``, data as inline JSON), report tables with inline bars, and
repair reports. Every name is escaped; output is deterministic for equal input
(golden files in ``tests/data/golden``)."""

from __future__ import annotations

import hashlib
import html
import json
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from .colors import hues

if TYPE_CHECKING:  # pragma: no cover
    from .._repair import RepairReport
    from .callgraph import CallGraph
    from .._report_table import ReportTable
    from .flamegraph import FlameGraph

#: Rows of the top functions table beside a flame graph.
TOP_ROWS = 300


@lru_cache(maxsize=None)
def asset(name: str) -> str:
    """Text of a file in ``display/assets`` (package data)."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def script_json(obj) -> str:
    """JSON safe inside a ``<script>`` element: ``<`` is escaped, so neither
    ``</script>`` nor ``<!--`` in a name can end or alter the element."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def flamegraph_data(fg: "FlameGraph") -> dict:
    """The viewer's input: only the frames the drawn tree uses, renumbered."""
    t = fg._tree
    frame = t["frame"]
    used, local = np.unique(frame, return_inverse=True)
    names_all = t["frame_name"]
    names = [names_all[int(f)] for f in used]
    ell = int(t["ellipsis_frame"])
    fself, ftotal = t["frame_self"][used], t["frame_total"][used]
    cand = [i for i, f in enumerate(used) if f != 0 and f != ell]
    cand.sort(key=lambda i: (-abs(int(fself[i])), -abs(int(ftotal[i])), names[i]))
    data = {
        "title": fg.title,
        "type": fg.sample_type,
        "unit": fg.unit,
        "by": fg.by,
        "inverted": fg.inverted,
        "min_fraction": fg.min_fraction,
        "diff": fg.is_diff,
        "normalized": fg.normalized,
        "names": names,
        "files": [t["frame_file"][int(f)] for f in used],
        "lines": t["frame_line"][used].tolist(),
        "hues": hues(names),
        "ellipsis": int(np.searchsorted(used, ell)) if ell >= 0 else -1,
        "top": cand[:TOP_ROWS],
        "fvals": {"self": fself.tolist(), "total": ftotal.tolist()},
        "frame": local.astype(np.int64).tolist(),
        "depth": t["depth"].tolist(),
        "self": t["self"].tolist(),
        "total": t["total"].tolist(),
    }
    if fg.is_diff:
        data["fvals"]["base_total"] = t["frame_base_total"][used].tolist()
        data["base_self"] = t["base_self"].tolist()
        data["base_total"] = t["base_total"].tolist()
        data["width"] = fg._layout_width().astype(np.int64).tolist()
    return data


def flamegraph_html(fg: "FlameGraph", full_page: bool) -> str:
    """The interactive flame graph: a fragment for notebooks, or a whole page."""
    payload = script_json(flamegraph_data(fg))
    uid = "pprofcore-flame-" + hashlib.sha1(payload.encode("utf-8")).hexdigest()[:12]
    # The script finds its container through document.currentScript where it can,
    # so two identical outputs in one notebook each get their own viewer.
    fragment = (
        f'<div class="pprofcore-flame" id="{uid}">'
        f"{html.escape(fg.title)}: interactive flame graph (needs JavaScript; FlameGraph.to_svg() gives a static one)"
        "</div>\n"
        f"<style>{asset('flamegraph.css')}</style>\n"
        f'<script type="application/json" class="pprofcore-flame-data">{payload}</script>\n'
        f"<script>{asset('flamegraph.js')}\n"
        "(function(s){var d=s&&s.previousElementSibling,r=d&&d.previousElementSibling&&d.previousElementSibling.previousElementSibling;"
        f'if(!r||r.className!=="pprofcore-flame"){{r=document.getElementById("{uid}");d=r.nextElementSibling.nextElementSibling;}}'
        "window.pprofcoreFlame(r,JSON.parse(d.textContent));})(document.currentScript);</script>\n"
    )
    if not full_page:
        return fragment
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(fg.title)}</title></head>\n<body>\n{fragment}</body></html>\n"
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
        f"<td>{html.escape(line.split(None, 1)[1])}</td></tr>" for line in text[1:]
    )
    return (f'<div class="pprofcore-repair"><strong>RepairReport</strong>: {html.escape(text[0])}'
            f"<table><tbody>{rows}</tbody></table></div>")


def callgraph_html(g: "CallGraph") -> str:
    """A call graph for notebooks: the SVG drawn by Graphviz inline, or, without
    Graphviz, a note naming the package and the node table."""
    import shutil

    if shutil.which("dot") is None:
        return ('<div class="pprofcore-callgraph"><p>Graphviz\'s <code>dot</code> is not installed '
                "(Debian/Ubuntu: <code>apt-get install graphviz</code>), so here are the nodes; "
                "<code>to_dot()</code> gives the graph.</p>" + report_table_html(g.nodes()) + "</div>")
    svg = g.to_svg()
    start = svg.find("<svg")
    return f'<div class="pprofcore-callgraph">{svg[start:] if start >= 0 else svg}</div>'
