"""A profile's samples in time order, as the timeline views and exports read
them: per sample its time, its lane (the value of a thread or goroutine label),
its value of one sample type and its stack of function names, root first.

Shared by the timeline page (``display/timeline.py``) and the exports for
timeline viewers (``_to_chrome_trace``, ``_to_firefox``). Samples without a
time are left out, as :meth:`Profile.window` leaves them out. Not here: the
timestamps column itself (``_timestamps``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

import numpy as np

from . import _core, _timestamps

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

#: Labels tried, in order, for the lanes when none is named.
LANE_LABELS = ("thread.name", "thread_name", "thread", "thread.id", "thread_id", "goroutine", "goid", "tid")


@dataclasses.dataclass
class TimedSamples:
    """The timed samples of one sample type, sorted by time (stable)."""

    t0: int  #: the first sample's time, ns since the epoch (0 without samples)
    times: List[int]  #: ns since ``t0``
    lanes: List[str]  #: the lane label's text ("" where a sample has none)
    values: List[int]
    stacks: List[Tuple[int, ...]]  #: indices into ``names``, root first
    names: List[str]  #: function names, first use first
    files: List[str]  #: per name, the file of its first frame ("" unknown)
    lane_label: Optional[str]  #: the label the lanes come from (None: one lane)
    sample_type: str
    unit: str


def lane_values(p: "Profile", key: Optional[str]) -> Sequence[str]:
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


def default_lane(p: "Profile") -> Optional[str]:
    """The first of :data:`LANE_LABELS` some sample has as a label, else None."""
    strs = p._core.string_list()
    keys = {strs[k] for k in np.unique(p.labels.key).tolist()}
    return next((k for k in LANE_LABELS if k in keys), None)


def timed_samples(p: "Profile", lane: Optional[str] = None, sample_type=None, what: str = "timeline") -> TimedSamples:
    """The timed samples of ``p``; raises ValueError when it has no timestamps
    (``what`` names what needed them)."""
    ts = _timestamps.timestamps(p)
    if ts is None:
        raise ValueError(f"the profile has no timestamps (Profile.timestamps is None): no {what} without them")
    lane = lane if lane is not None else default_lane(p)
    ti = p.sample_type_index(sample_type)
    timed = np.flatnonzero(ts != _timestamps.NAT)
    lanes = lane_values(p, lane)
    f = _core.frame_columns(p._core)
    strs = p._core.string_list()
    index: dict = {}
    files: List[str] = []
    stacks: list = [[] for _ in range(len(p))]
    # frame_columns lists each sample's frames leaf first: reversed below for root first.
    for s, code, file in zip(f["sample"].tolist(), f["name"].tolist(), f["file"].tolist()):
        name = strs[code] if code >= 0 else "?"
        k = index.get(name)
        if k is None:
            k = index[name] = len(index)
            files.append(strs[file] if file >= 0 else "")
        stacks[s].append(k)
    order = timed[np.argsort(ts[timed], kind="stable")].tolist()
    t0 = int(ts[order[0]]) if order else 0
    stype, unit = p.sample_types[ti] if p.sample_types else ("", "")
    column = p.values[:, ti]
    return TimedSamples(
        t0=t0,
        times=[int(ts[i]) - t0 for i in order],
        lanes=[lanes[i] for i in order],
        values=[int(column[i]) for i in order],
        stacks=[tuple(stacks[i][::-1]) for i in order],
        names=list(index),
        files=files,
        lane_label=lane,
        sample_type=stype,
        unit=unit,
    )


def lane_order(lanes: Sequence[str]) -> List[str]:
    """The distinct lanes, numbers in numeric order ("2" before "10"), then by text."""

    def key(s: str):
        return (0, int(s), "") if s.lstrip("-").isdigit() else (1, 0, s)

    return sorted(set(lanes), key=key)


def lane_title(label: Optional[str], lane: str) -> str:
    """A lane's name in the viewers: ``thread=worker-1``, ``thread=(none)``, or
    ``samples`` when there is no lane label."""
    if label is None:
        return "samples"
    return f"{label}={lane or '(none)'}"


def tail_ns(times: Sequence[int]) -> int:
    """How long the last sample of a lane lasts: a hundredth of the span (at
    least 1 ns), as the timeline page draws it."""
    return max((times[-1] if times else 0) // 100, 1)
