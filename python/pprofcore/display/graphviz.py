"""Drawing DOT text with Graphviz's ``dot``, as ``go tool pprof -svg/-png/...``
does: the text goes to ``dot -T<format>``; SVG then gets pprof's layout for
browsers (100% width and height, the drawing wrapped in a ``viewport`` group
scaled by one half, a pan/zoom script of our own in ``assets/svgpan.js``)."""

from __future__ import annotations

import re
import shutil
import subprocess

from .html import asset

FORMATS = ("svg", "png", "pdf", "ps", "gif")

_VIEWBOX = re.compile(r'<svg\s*width="[^"]+"\s*height="[^"]+"\s*viewBox="[^"]+"')
_GRAPH = re.compile(r'<g id="graph\d"')
_CLOSE = re.compile(r"</svg>")


def run_dot(dot_text: str, fmt: str) -> bytes:
    """``dot -T<fmt>`` of ``dot_text``; ``RuntimeError`` when Graphviz is missing or fails."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown graph format {fmt!r}; expected one of {', '.join(FORMATS)}")
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(
            "failed to execute dot. Is Graphviz installed? (Debian/Ubuntu: apt-get install graphviz; "
            "-dot writes the graph's text without it)"
        )
    r = subprocess.run([dot, "-T" + fmt], input=dot_text.encode("utf-8"), capture_output=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"failed to execute dot: {r.stderr.decode('utf-8', 'replace').strip()}")
    return r.stdout


def browser_svg(svg: str) -> str:
    """Graphviz's SVG laid out as pprof serves it, with the pan/zoom script."""
    svg = svg.replace("&;", "&amp;;")  # dot leaves some ampersands unquoted
    m = _VIEWBOX.search(svg)
    if m:
        svg = svg[: m.start()] + '<svg width="100%" height="100%"' + svg[m.end() :]
    m = _GRAPH.search(svg)
    if m:
        script = asset("svgpan.js")
        svg = (
            svg[: m.start()]
            + '<script type="text/ecmascript"><![CDATA['
            + script
            + ']]></script><g id="viewport" transform="scale(0.5,0.5) translate(0,0)">'
            + svg[m.start() :]
        )
    m = _CLOSE.search(svg)
    if m:
        svg = svg[: m.start()] + "</g>" + svg[m.start() :]
    return svg


def render(dot_text: str, fmt: str) -> bytes:
    """The bytes ``go tool pprof -<fmt>`` writes for this DOT text."""
    out = run_dot(dot_text, fmt)
    if fmt == "svg":
        return browser_svg(out.decode("utf-8")).encode("utf-8")
    return out
