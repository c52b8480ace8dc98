"""Fleet pictures as self-contained inline SVG (no matplotlib, nothing loaded
from the network): a heat map of time x key and line plots of chosen keys, both
drawn from a :func:`pprofcore.fleet.series` DataFrame, and the notebook view of
a ProfileSet (``pprofcore.fleet`` re-exports ``heatmap`` and ``lines``).
Names are escaped (C++ names hold ``<`` and ``&``; control characters XML
forbids are written as visible escapes)."""

from __future__ import annotations

import html
from typing import List, Optional, Sequence

import numpy as np

from .. import _atomic
from .._optional import require_pandas
from ._escape import xml_text

_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)


class Figure:
    """An SVG picture; shows itself in Jupyter, ``.svg`` is the markup."""

    def __init__(self, svg: str, title: str) -> None:
        self.svg, self.title = svg, title

    def _repr_html_(self) -> str:
        return f"<div class='pprofcore-fleet-figure'>{self.svg}</div>"

    def __repr__(self) -> str:
        return f"<pprofcore.fleet.Figure {self.title!r}>"

    def save(self, path) -> None:
        """Write the SVG to ``path`` (atomically: a temporary file renamed over it)."""
        _atomic.write_text(path, self.svg)


def _pivot(df, n: Optional[int], names: Optional[Sequence[str]]):
    """(times, names, matrix) with one column per time point (profile or bucket)."""
    pd = require_pandas()
    if not {"time", "name", "value"} <= set(df.columns):
        raise ValueError("expected a series() DataFrame with columns time, name, value")
    key = "profile" if "profile" in df.columns else "time"
    d = df.assign(name=df["name"].astype(str))
    if names is None:
        order = d.groupby("name")["value"].apply(lambda v: np.abs(v).sum()).sort_values(ascending=False)
        names = list(order.index[:n] if n else order.index)
    else:
        names = [str(x) for x in names]
        missing = [x for x in names if x not in set(d["name"])]
        if missing:
            raise KeyError(f"not in the series: {', '.join(missing[:5])}")
    cols = (d[[key, "time"]] if key != "time" else d[["time"]]).drop_duplicates(key).sort_values(key)
    m = (
        d[d["name"].isin(names)]
        .pivot_table(index="name", columns=key, values="value", aggfunc="sum")
        .reindex(index=names, columns=cols[key])
        .fillna(0)
    )
    return pd.DatetimeIndex(cols["time"]), names, m.to_numpy(dtype=np.float64)


def _fmt_time(t) -> str:
    return "" if t is None or str(t) == "NaT" else t.strftime("%m-%d %H:%M:%S")


def _axis_labels(times, x0: float, width: float, y: float, k: int = 5) -> List[str]:
    out: List[str] = []
    if len(times) == 0:
        return out
    picks = sorted({int(round(i)) for i in np.linspace(0, len(times) - 1, min(k, len(times)))})
    for j in picks:
        x = x0 + (j + 0.5) * width / len(times)
        anchor = "end" if j == picks[-1] and j else "middle"
        out.append(
            f"<text x='{x:.1f}' y='{y:.1f}' font-size='10' text-anchor='{anchor}'>"
            f"{html.escape(_fmt_time(times[j]))}</text>"
        )
    return out


def heatmap(df, *, n: int = 20, names: Optional[Sequence[str]] = None, width: int = 900) -> Figure:
    """Time x key heat map of a :func:`series` DataFrame: one row per key (the
    ``n`` largest, or ``names``), one column per profile or time bucket, darker
    = larger (red for positive values, blue for negative ones). Each cell's
    tooltip gives the name, time and value; a colour scale under the time
    axis says which value the darkest cell stands for.

    Examples
    --------
    >>> s = pprofcore.ProfileSet([pprofcore.example_path()] * 3)
    >>> pprofcore.fleet.heatmap(s.series(), n=3)
    <pprofcore.fleet.Figure 'heat map of 3 keys'>
    """
    times, names, m = _pivot(df, n, names)
    label_w, cell_h, top = 260, 16, 20
    plot_w = max(width - label_w - 10, 100)
    cw = plot_w / max(m.shape[1], 1)
    hi = float(np.abs(m).max()) if m.size else 0.0
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{top + cell_h * len(names) + 58}' "
        f"font-family='sans-serif'>"
    ]
    for i, name in enumerate(names):
        y = top + i * cell_h
        short = name if len(name) <= 40 else name[:19] + "…" + name[-20:]
        parts.append(
            f"<text x='{label_w - 4}' y='{y + cell_h - 4}' font-size='11' text-anchor='end'>"
            f"<title>{xml_text(name)}</title>{xml_text(short)}</text>"
        )
        for j in range(m.shape[1]):
            v = m[i, j]
            if v == 0:
                continue
            a = 0.08 + 0.92 * abs(v) / hi if hi else 0
            color = "#b2182b" if v > 0 else "#2166ac"
            parts.append(
                f"<rect x='{label_w + j * cw:.2f}' y='{y}' width='{cw + 0.3:.2f}' height='{cell_h - 1}' "
                f"fill='{color}' fill-opacity='{a:.3f}'><title>{xml_text(name)} "
                f"{html.escape(_fmt_time(times[j]))}: {v:g}</title></rect>"
            )
    parts += _axis_labels(times, label_w, plot_w, top + cell_h * len(names) + 14)
    parts.append(_colour_scale(label_w, top + cell_h * len(names) + 26, hi, bool((m < 0).any())))
    parts.append("</svg>")
    return Figure("".join(parts), f"heat map of {len(names)} keys")


def _colour_scale(x: float, y: float, hi: float, negative: bool, steps: int = 10, w: float = 16) -> str:
    """The heat map's legend: opacity steps from 0 to ``hi`` (mirrored in blue
    down to ``-hi`` when some values are negative), the ends labelled."""
    tones = [("#2166ac", k) for k in range(steps, 0, -1)] if negative else []
    tones += [("#b2182b", k) for k in range(1, steps + 1)]
    out = [f"<g class='colour-scale'><title>colour scale: darkest = {hi:.4g}</title>"]
    for i, (color, k) in enumerate(tones):
        a = 0.08 + 0.92 * k / steps
        out.append(f"<rect x='{x + i * w:.1f}' y='{y}' width='{w}' height='10' fill='{color}' fill-opacity='{a:.3f}'/>")
    low = f"{-hi:.4g}" if negative else "0"
    out.append(f"<text x='{x - 4}' y='{y + 9}' font-size='10' text-anchor='end'>{low}</text>")
    out.append(f"<text x='{x + len(tones) * w + 4:.1f}' y='{y + 9}' font-size='10'>{hi:.4g}</text>")
    out.append("</g>")
    return "".join(out)


def lines(df, names: Optional[Sequence[str]] = None, *, n: int = 5, width: int = 900, height: int = 320) -> Figure:
    """Line plot of chosen keys (default: the ``n`` largest) of a :func:`series`
    DataFrame over time, with a legend; keys absent at a time count as 0.

    Examples
    --------
    >>> s = pprofcore.ProfileSet([pprofcore.example_path()] * 3)
    >>> pprofcore.fleet.lines(s.series(normalize="share"), n=3)
    <pprofcore.fleet.Figure 'lines of 3 keys'>
    """
    times, names, m = _pivot(df, n, names)
    left, right, top, bottom = 70, 10, 10, 40
    legend_h = 16 * len(names)
    pw, ph = width - left - right, height - top - bottom
    lo, hi = min(0.0, float(m.min()) if m.size else 0.0), float(m.max()) if m.size else 1.0
    hi = hi if hi > lo else lo + 1
    xs = np.asarray(times.asi8, dtype=np.float64) if len(times) else np.zeros(0)
    valid = ~np.asarray(times.isna()) if len(times) else np.zeros(0, bool)
    x_lo, x_hi = (xs[valid].min(), xs[valid].max()) if valid.any() else (0.0, 1.0)
    span = (x_hi - x_lo) or 1.0
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height + legend_h}' "
        f"font-family='sans-serif'>",
        f"<rect x='{left}' y='{top}' width='{pw}' height='{ph}' fill='none' stroke='#ccc'/>",
    ]
    for frac in (0.0, 0.5, 1.0):
        v = lo + frac * (hi - lo)
        y = top + ph * (1 - frac)
        parts.append(f"<text x='{left - 4}' y='{y + 4:.1f}' font-size='10' text-anchor='end'>{v:.4g}</text>")
    for i, name in enumerate(names):
        color = _PALETTE[i % len(_PALETTE)]
        pts = " ".join(
            f"{left + (x - x_lo) / span * pw:.1f},{top + ph * (1 - (v - lo) / (hi - lo)):.1f}"
            for x, v, ok in zip(xs, m[i], valid)
            if ok
        )
        parts.append(
            f"<polyline fill='none' stroke='{color}' stroke-width='1.5' points='{pts}'>"
            f"<title>{xml_text(name)}</title></polyline>"
        )
        ly = height + 16 * i
        parts.append(
            f"<rect x='{left}' y='{ly - 9}' width='10' height='10' fill='{color}'/>"
            f"<text x='{left + 14}' y='{ly}' font-size='11'>{xml_text(name)}</text>"
        )
    if valid.any():
        for frac in (0.0, 0.5, 1.0):
            t = require_pandas().Timestamp(int(x_lo + frac * span), unit="ns", tz="UTC")
            anchor = {0.0: "start", 0.5: "middle", 1.0: "end"}[frac]
            parts.append(
                f"<text x='{left + frac * pw:.1f}' y='{top + ph + 14}' font-size='10' "
                f"text-anchor='{anchor}'>{html.escape(_fmt_time(t))}</text>"
            )
    parts.append("</svg>")
    return Figure("".join(parts), f"lines of {len(names)} keys")


def set_html(s) -> str:
    """The ProfileSet's notebook view: count, time range and the first rows of
    its table (without reading the profiles when the table is not known yet)."""
    head = f"<b>pprofcore.ProfileSet</b>: {len(s):,} profiles"
    if s._table is None:
        return f"<div>{head} (call <code>.profiles</code> to read their headers)</div>"
    t = s.profiles
    times = t["time"].dropna()
    if len(times):
        head += f", {html.escape(str(times.min()))} … {html.escape(str(times.max()))}"
    return f"<div>{head}{t.head(10).to_html(index=False)}</div>"
