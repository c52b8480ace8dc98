"""Writing a profile with timestamps in the Chrome trace event format (the
JSON that Perfetto UI, chrome://tracing and speedscope open): one thread per
lane (thread or goroutine label), each sample's stack as nested complete
(``"ph": "X"``) events lasting until the lane's next sample, a frame that
stays on the stack across consecutive samples merged into one event, so the
viewers draw a flame chart. Each event's ``args`` carry the profile's values:
``value`` (the samples under it) and ``self`` (the samples it is the leaf of).
Not here: the Firefox Profiler's format (``_to_firefox``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from . import _timed_samples

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

PID = 1


def _us(ns: int) -> float:
    """Nanoseconds as the format's microseconds (times count from the first sample)."""
    return ns / 1000


def _lane_events(tid: int, times, values, stacks, names, end: int) -> List[Dict[str, Any]]:
    """The complete events of one lane's samples (in time order)."""
    out: List[Tuple[int, int, int, Dict[str, Any]]] = []  # (start, -duration, depth, event)
    # The open frames: [name index, start, value, self], root first.
    open_: List[List[int]] = []

    def close(keep: int, at: int) -> None:
        while len(open_) > keep:
            f, start, value, self_ = open_.pop()
            event = {
                "ph": "X",
                "pid": PID,
                "tid": tid,
                "name": names[f],
                "cat": "sample",
                "ts": _us(start),
                "dur": _us(at - start),
                "args": {"value": value, "self": self_},
            }
            out.append((start, start - at, len(open_), event))

    for t, v, stack in zip(times, values, stacks):
        common = 0
        while common < len(stack) and common < len(open_) and open_[common][0] == stack[common]:
            common += 1
        close(common, t)
        for f in stack[common:]:
            open_.append([f, t, 0, 0])
        for frame in open_:
            frame[2] += v
        if open_:
            open_[-1][3] += v
    close(0, end)
    # Parents before children (longer first, then shallower), as the viewers nest them.
    out.sort(key=lambda e: e[:3])
    return [e[3] for e in out]


def to_chrome_trace(p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = "") -> Dict[str, Any]:
    """The trace as a JSON-ready dict (see :meth:`Profile.to_chrome_trace`)."""
    ts = _timed_samples.timed_samples(p, lane, sample_type, "Chrome trace")
    names = ts.names
    events: List[Dict[str, Any]] = [
        {"ph": "M", "pid": PID, "tid": 0, "name": "process_name", "args": {"name": title or "pprofcore profile"}}
    ]
    tail = _timed_samples.tail_ns(ts.times)
    for tid, lane_name in enumerate(_timed_samples.lane_order(ts.lanes), start=1):
        shown = _timed_samples.lane_title(ts.lane_label, lane_name)
        events.append({"ph": "M", "pid": PID, "tid": tid, "name": "thread_name", "args": {"name": shown}})
        events.append({"ph": "M", "pid": PID, "tid": tid, "name": "thread_sort_index", "args": {"sort_index": tid}})
        rows = [i for i, s in enumerate(ts.lanes) if s == lane_name]
        times = [ts.times[i] for i in rows]
        events.extend(
            _lane_events(
                tid, times, [ts.values[i] for i in rows], [ts.stacks[i] for i in rows], names, times[-1] + tail
            )
        )
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "producer": "pprofcore",
            "start_time_ns": str(ts.t0),
            "sample_type": ts.sample_type,
            "unit": ts.unit,
            "lane_label": ts.lane_label or "",
        },
    }


def chrome_trace_bytes(p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = "") -> bytes:
    return json.dumps(to_chrome_trace(p, lane, sample_type, title), ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8"
    )
