"""The timeline view: a flame chart with time on the x axis, one lane per
thread (or goroutine, or any label), each sample drawn as its stack from the
root down, lasting until the lane's next sample. Needs per-sample times
(:attr:`Profile.timestamps`). One self-contained HTML page: the frames come
from the core's frame columns (``_core.frame_columns``), the drawing is
``assets/timeline.js`` inlined; nothing is loaded from the network. Below the
lanes, a flame graph and Top table (``assets/flamegraph.js``) of the time window
dragged across the axis, summed in the page from the same samples (equal to
:meth:`Profile.window` of that window). Not here: aggregated flame graphs of a
whole profile (:mod:`.flamegraph`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from .. import _core, _timestamps
from ._escape import xml_text
from ._files import save_by_extension
from .colors import hues
from .html import asset, script_json

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

#: Labels tried, in order, for the lanes when none is named.
LANE_LABELS = ("thread.name", "thread_name", "thread", "thread.id", "thread_id", "goroutine", "goid", "tid")


def _lane_values(p: "Profile", key: Optional[str]) -> Sequence[str]:
    """Per sample, the text of label ``key`` ("" when the sample has none)."""
    strs = p._core.string_list()
    out = [""] * len(p)
    if key is None:
        return out
    lab = p.labels
    codes = {i for i, s in enumerate(strs) if s == key}
    for r in np.flatnonzero(np.isin(lab.key, list(codes))).tolist() if codes and len(lab.key) else []:
        i = int(np.searchsorted(p.label_offsets, r, side="right") - 1)
        out[i] = strs[lab.str[r]] if lab.str[r] >= 0 else str(int(lab.num[r]))
    return out


class Timeline:
    """A flame chart over time of a profile with timestamps; :meth:`save`
    writes the page (``.html``), ``_repr_html_`` shows it in Jupyter."""

    def __init__(self, p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = ""):
        ts = _timestamps.timestamps(p)
        if ts is None:
            raise ValueError("the profile has no timestamps (Profile.timestamps is None): no timeline to draw")
        keys = {s for s in p._core.string_list()}
        self.lane = lane if lane is not None else next((k for k in LANE_LABELS if k in keys), None)
        ti = p.sample_type_index(sample_type)
        timed = np.flatnonzero(ts != _timestamps.NAT)
        lanes = _lane_values(p, self.lane)
        f = _core.frame_columns(p._core)
        strs = p._core.string_list()
        names: dict = {}
        stacks: list = [[] for _ in range(len(p))]
        # frame_columns lists each sample's frames leaf first: reverse for root first.
        for s, code in zip(f["sample"].tolist(), f["name"].tolist()):
            name = strs[code] if code >= 0 else "?"
            stacks[s].append(names.setdefault(name, len(names) + 1))  # 0 is the flame graph's root
        order = timed[np.argsort(ts[timed], kind="stable")]
        t0 = int(ts[order[0]]) if len(order) else 0
        name_list = ["root"] + list(names)
        self.data = {
            "title": title or "timeline",
            "lane": self.lane or "",
            "type": p.sample_types[ti][0] if p.sample_types else "",
            "unit": p.sample_types[ti][1] if p.sample_types else "",
            "names": name_list,
            "hues": hues(name_list),
            # [time since t0 (ns), lane, value, [frames root first]]
            "samples": [[int(ts[i]) - t0, lanes[i], int(p.values[i, ti]), stacks[i][::-1]] for i in order.tolist()],
            "t0": t0,
        }

    @property
    def t0(self) -> int:
        """The first sample's time (ns since the epoch): the page's times count from it."""
        return int(self.data["t0"])

    def html(self) -> str:
        title = xml_text(str(self.data["title"]))
        return (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{asset('flamegraph.css')}{asset('timeline.css')}</style></head><body>"
            f'<div class="pprofcore-timeline"><h3>{title}</h3>'
            '<svg class="tl-lanes" id="timeline" xmlns="http://www.w3.org/2000/svg"></svg>'
            '<div class="tl-tip" id="timeline-tip"></div><div class="tl-span"></div>'
            '<div class="pprofcore-flame"></div></div>'
            f'<script id="timeline-data" type="application/json">{script_json(self.data)}</script>'
            f"<script>{asset('flamegraph.js')}</script><script>{asset('timeline.js')}</script>"
            "<script>window.pprofcoreTimeline.page(document.querySelector('.pprofcore-timeline'),"
            "JSON.parse(document.getElementById('timeline-data').textContent));</script></body></html>"
        )

    def save(self, path) -> None:
        save_by_extension(path, {".html": self.html, ".htm": self.html}, "'.html'")

    def _repr_html_(self) -> str:
        return self.html()


def timeline(p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = "") -> Timeline:
    return Timeline(p, lane, sample_type, title)
