"""HTML for notebooks and pages: the interactive flame graph (script and styles
from ``assets/``, data as inline JSON), report tables with inline bars, and
repair reports. Every name is escaped; output is deterministic for equal input
(golden files in ``tests/data/golden``)."""

from __future__ import annotations

import hashlib
import html
import json
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .colors import hues
from .notebook import report_table_html

if TYPE_CHECKING:  # pragma: no cover
    from .callgraph import CallGraph
    from .flamegraph import FlameGraph

#: Rows of the top functions table beside a flame graph.
TOP_ROWS = 300


@lru_cache(maxsize=None)
def package_asset(package: str, name: str) -> str:
    """Text of ``assets/<name>`` in ``package`` (package data, inlined into pages)."""
    from importlib import resources  # on use: it costs ~60 ms of `import pprofcore`

    return (resources.files(package) / "assets" / name).read_text(encoding="utf-8")


def asset(name: str) -> str:
    """Text of a file in ``display/assets``."""
    return package_asset(__package__, name)


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
        "(function(s){var d=s&&s.previousElementSibling,r=d&&d.previousElementSibling&&d.previousElementSibling.previousElementSibling;"  # noqa: E501
        f'if(!r||r.className!=="pprofcore-flame"){{r=document.getElementById("{uid}");d=r.nextElementSibling.nextElementSibling;}}'
        "window.pprofcoreFlame(r,JSON.parse(d.textContent));})(document.currentScript);</script>\n"
    )
    if not full_page:
        return fragment
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(fg.title)}</title></head>\n<body>\n{fragment}</body></html>\n"
    )


def callgraph_html(g: "CallGraph") -> str:
    """A call graph for notebooks: the SVG drawn by Graphviz inline, or, without
    Graphviz, a note naming the package and the node table."""
    import shutil

    if shutil.which("dot") is None:
        return (
            '<div class="pprofcore-callgraph"><p>Graphviz\'s <code>dot</code> is not installed '
            "(Debian/Ubuntu: <code>apt-get install graphviz</code>), so here are the nodes; "
            "<code>to_dot()</code> gives the graph.</p>" + report_table_html(g.nodes()) + "</div>"
        )
    svg = g.to_svg()
    start = svg.find("<svg")
    return f'<div class="pprofcore-callgraph">{svg[start:] if start >= 0 else svg}</div>'
