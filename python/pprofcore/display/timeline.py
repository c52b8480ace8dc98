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

from typing import TYPE_CHECKING, Any, Dict, Optional

from .._lazy import lazy_module
from ._escape import xml_text
from ._files import save_by_extension
from .colors import hues
from .html import asset, script_json

if TYPE_CHECKING:  # pragma: no cover
    from .. import _timed_samples
    from .._profile import Profile
else:  # the explorer imports this module; its first page has no timeline
    _timed_samples = lazy_module("pprofcore._timed_samples")


class Timeline:
    """A flame chart over time of a profile with timestamps; :meth:`save`
    writes the page (``.html``), ``_repr_html_`` shows it in Jupyter."""

    def __init__(self, p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = ""):
        ts = _timed_samples.timed_samples(p, lane, sample_type, "timeline")
        self.lane = ts.lane_label
        names = ["root"] + ts.names  # index 0 is the flame graph's root, whatever the frames are called
        self.data: Dict[str, Any] = {
            "title": title or "timeline",
            "lane": self.lane or "",
            "lanes": _timed_samples.lane_order(ts.lanes),
            "type": ts.sample_type,
            "unit": ts.unit,
            "names": names,
            "hues": hues(names),
            # [time since t0 (ns), lane, value, [frames root first]]
            "samples": [
                [t, lane_, v, [f + 1 for f in stack]]
                for t, lane_, v, stack in zip(ts.times, ts.lanes, ts.values, ts.stacks)
            ],
            "t0": ts.t0,
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
