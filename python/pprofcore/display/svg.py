"""Static SVG of a :class:`~pprofcore.display.flamegraph.FlameGraph`: no script, a
``<title>`` per node for viewers that show tooltips, names clipped to their box.
Reads on GitHub, nbviewer and in papers."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Union

import numpy as np

from .. import _units
from ._escape import markup, printable, xml_text
from .colors import diff_fill, flame_fill, hues

if TYPE_CHECKING:  # pragma: no cover
    from .flamegraph import FlameGraph

ROW = 17
FONT = 11
CHAR = 6.2  # average glyph width of an 11px sans-serif font, to clip labels


def check_width(width) -> Union[int, float]:
    """``width`` if it is a finite number of pixels > 0: checked before drawing,
    since NaN, infinite or negative widths give an SVG no viewer can show."""
    if isinstance(width, (bool, np.bool_)) or not isinstance(width, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"width must be a number of pixels, not {type(width).__name__}")
    if not math.isfinite(float(width)) or not float(width) > 0:
        raise ValueError(f"width must be a finite number of pixels > 0, got {width!r}")
    return int(width) if isinstance(width, (int, np.integer)) else float(width)


def flamegraph_svg(fg: "FlameGraph", width: Union[int, float] = 1200) -> str:
    t = fg._tree
    names = t["frame_name"]
    frame, depth, parent = t["frame"], t["depth"], t["parent"]
    total = t["total"]
    w = fg._layout_width()
    used = sorted({int(f) for f in frame})  # the frames drawn, not every frame of the profile
    hue = dict(zip(used, hues([names[f] for f in used])))
    n = len(frame)
    scale = width / w[0] if n and w[0] else 0.0
    x = [0.0] * n
    cursor = [0.0] * n
    drawn = []
    for i in range(n):
        if i:
            p = int(parent[i])
            x[i] = cursor[p]
            cursor[p] += float(w[i])
        cursor[i] = x[i]
        if w[i] * scale >= 1.0:
            drawn.append(i)
    max_depth = max((int(depth[i]) for i in drawn), default=0)
    title_h = 24
    height = title_h + (max_depth + 1) * ROW + 4
    fmt = lambda v: _units.scaled_label(int(v), fg.unit, "auto")  # noqa: E731
    root_total = abs(int(total[0])) or 1
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{FONT}">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="14">{xml_text(fg.title)}</text>',
    ]
    for i in drawn:
        d = int(depth[i])
        y = title_h + (d if _icicle(fg) else max_depth - d) * ROW
        px, pw = x[i] * scale, float(w[i]) * scale
        name = printable(names[int(frame[i])])  # truncated below, so made printable first
        if i == 0 or int(frame[i]) == int(t["ellipsis_frame"]):
            fill = "#ccc" if i == 0 else "#ddd"
        elif fg.is_diff:
            fill = diff_fill(float(total[i]), float(t["base_total"][i]))
        else:
            fill = flame_fill(hue[int(frame[i])])
        if fg.is_diff:
            tip = (
                f"{name}\nnew {fmt(total[i])}, base {fmt(t['base_total'][i])}, "
                f"delta {fmt(int(total[i]) - int(t['base_total'][i]))}"
            )
        else:
            tip = f"{name}\ntotal {fmt(total[i])} ({100 * abs(int(total[i])) / root_total:.2f}%), self {fmt(t['self'][i])}"  # noqa: E501
        out.append(
            f'<g><title>{markup(tip)}</title><rect x="{px:.2f}" y="{y}" width="{max(pw - 0.5, 0.5):.2f}" '
            f'height="{ROW - 1}" fill="{fill}" rx="1"/>'
        )
        chars = int((pw - 6) / CHAR)
        if chars >= 3:
            label = name if len(name) <= chars else name[: chars - 2] + ".."
            out.append(f'<text x="{px + 3:.2f}" y="{y + ROW - 5}">{markup(label)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _icicle(fg: "FlameGraph") -> bool:
    """Inverted trees read top-down (icicle), normal ones bottom-up (flame)."""
    return fg.inverted
