"""speedscope's file format (https://www.speedscope.app/file-format-schema.json)
for a :class:`~pprofcore.display.flamegraph.FlameGraph`: one "sampled" profile whose frames
are the tree's frame names and whose samples are the root-to-node paths of the
nodes with a non-zero self value. Memory and time are those of the output: a
single stack 100,000 frames deep makes one sample, not a path per node."""

from __future__ import annotations

from typing import TYPE_CHECKING, List

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .flamegraph import FlameGraph

SCHEMA = "https://www.speedscope.app/file-format-schema.json"

# pprof unit -> speedscope ValueUnit
_UNITS = {
    "nanoseconds": "nanoseconds",
    "microseconds": "microseconds",
    "milliseconds": "milliseconds",
    "seconds": "seconds",
    "bytes": "bytes",
}


def to_speedscope(fg: "FlameGraph") -> dict:
    """The speedscope document as a dict. Negative self values (diff profiles)
    are left out: speedscope weights must not be negative."""
    t = fg._tree
    names, files, lines = t["frame_name"], t["frame_file"], t["frame_line"]
    parent, frame, self_ = t["parent"], t["frame"], t["self"]
    used = np.unique(frame[1:])
    index = {int(f): i for i, f in enumerate(used)}
    frames = []
    for f in used:
        fr = {"name": names[int(f)]}
        if files[int(f)]:
            fr["file"] = files[int(f)]
        if lines[int(f)]:
            fr["line"] = int(lines[int(f)])
        frames.append(fr)
    samples: List[List[int]] = []
    weights: List[int] = []
    # Pre-order with depths: one running root-to-node path, cut back to the
    # node's depth, so memory is the output plus one path (a path per node
    # would grow with depth squared).
    path: List[int] = []
    depth, fidx, selfs = t["depth"].tolist(), [index[int(f)] for f in frame[1:].tolist()], self_.tolist()
    for i in range(1, len(parent)):
        del path[depth[i] - 1 :]
        path.append(fidx[i - 1])
        if selfs[i] > 0:
            samples.append(path.copy())
            weights.append(selfs[i])
    total = int(sum(weights))
    return {
        "$schema": SCHEMA,
        "shared": {"frames": frames},
        "profiles": [
            {
                "type": "sampled",
                "name": fg.title,
                "unit": _UNITS.get(fg.unit, "none"),
                "startValue": 0,
                "endValue": total,
                "samples": samples,
                "weights": weights,
            }
        ],
        "name": fg.title,
        "activeProfileIndex": 0,
        "exporter": __name__.split(".")[0],
    }
