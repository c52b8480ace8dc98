"""Valgrind Massif's output (``valgrind --tool=massif``, ``massif.out.<pid>``,
what ``ms_print`` reads) to heap profiles.

The file is a header (``desc:``, ``cmd:``, ``time_unit:``) and snapshots,
each ``snapshot=N`` with its ``time``, ``mem_heap_B``, ``mem_heap_extra_B``,
``mem_stacks_B`` and ``heap_tree=empty|detailed|peak``; a detailed or peak
snapshot is followed by its heap tree, one node a line, indented by depth:
``n<children>: <bytes> <frame>``. The root is the allocation functions
(``(heap allocation functions) malloc/new/new[], ...``, or the page
allocation calls with ``--pages-as-heap``); its children are the call sites
of the allocator and each level below is their callers, so the path from the
root's child to a node is a stack, leaf first. A node's bytes not accounted
for by its children (a leaf, or a stack cut at ``--depth``) are one sample
of ``inuse_space/bytes`` on that stack; Massif's ``in N places, below
massif's threshold`` nodes are frames of that name.

:func:`pprofcore.load` gives the peak snapshot (the last detailed one when
there is no peak); :func:`pprofcore.load_all` gives every detailed snapshot,
keyed ``"snapshot=N"`` (the peak's key adds ``" (peak)"``), for the heap
over time. Frames are Valgrind's text (``_valgrind_frames``).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ._build import ProfileBuilder, input_error
from ._profile import Profile
from ._valgrind_frames import Frame, locations, parse_frame

FORMAT = "Massif"
_NODE = re.compile(r"( *)n(\d+): (\d+) (.*)\Z")
_TIME_UNITS = {"i": "instructions", "ms": "milliseconds", "B": "bytes allocated"}


def looks_like_massif(head: bytes) -> bool:
    """Massif's header: ``desc:``, ``cmd:`` and ``time_unit:`` lines, then
    the first snapshot."""
    text = head.lstrip()
    return text.startswith(b"desc:") and b"\ntime_unit:" in head and b"\nsnapshot=" in head


class _Snapshot:
    def __init__(self, number: int, line: int):
        self.number = number
        self.line = line  # where its ``snapshot=`` line is, for errors
        self.fields: Dict[str, str] = {}
        self.tree: List[Tuple[int, int, int, str, int]] = []  # (depth, children, bytes, label, line number)


def _snapshots(text: str) -> Tuple[Dict[str, str], List[_Snapshot]]:
    header: Dict[str, str] = {}
    snaps: List[_Snapshot] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if not snaps:
            key, sep, value = line.partition(":")
            if sep and key in ("desc", "cmd", "time_unit"):
                header[key] = value.strip()
                continue
        if line.startswith("snapshot="):
            try:
                snaps.append(_Snapshot(int(line[9:]), number))
            except ValueError:
                raise input_error(FORMAT, f"{line[:60]!r} does not give a snapshot number", number, "line") from None
            continue
        if not snaps:
            raise input_error(
                FORMAT, f"expected the header (desc, cmd, time_unit) or a snapshot, not {line[:60]!r}", number, "line"
            )
        snap = snaps[-1]
        m = _NODE.match(line)
        if m is not None:
            if snap.fields.get("heap_tree") not in ("detailed", "peak"):
                raise input_error(
                    FORMAT,
                    f"a heap tree node in snapshot {snap.number}, whose heap_tree is not detailed or peak",
                    number,
                    "line",
                )
            snap.tree.append((len(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), number))
            continue
        key, sep, value = line.partition("=")
        if not sep or key not in ("time", "mem_heap_B", "mem_heap_extra_B", "mem_stacks_B", "heap_tree"):
            raise input_error(
                FORMAT,
                f"expected a snapshot field (time=, mem_heap_B=, ...) or a heap tree node, not {line[:60]!r}",
                number,
                "line",
            )
        snap.fields[key] = value.strip()
    if "time_unit" not in header:
        raise input_error(FORMAT, "the header has no 'time_unit' line")
    return header, snaps


def _profile(header: Dict[str, str], snap: _Snapshot, peak: bool) -> Profile:
    b = ProfileBuilder([("inuse_space", "bytes")])
    b.default_sample_type = "inuse_space"
    frames: Dict[str, Frame] = {}
    path: List[Frame] = []  # the frames of the open nodes below the root, leaf first
    # [bytes not yet taken by children, children still to come, line] of each open node, root first.
    open_nodes: List[List[int]] = []
    samples: Dict[Tuple[int, ...], int] = {}

    def close(to_depth: int) -> None:
        """Closes the open nodes deeper than ``to_depth``: each one's bytes
        its children did not take are a sample on its stack."""
        while len(open_nodes) > to_depth:
            own, waiting, line = open_nodes.pop()
            if waiting:
                raise input_error(
                    FORMAT, f"this node's count names {waiting} more children than follow it", line, "line"
                )
            if own > 0:
                stack = tuple(locations(b, path)) if path else (b.frame(root_label),)
                samples[stack] = samples.get(stack, 0) + own
            if open_nodes:  # not the root: its frame ends the path
                path.pop()

    root_label = ""
    for depth, children, size, label, number in snap.tree:
        if depth > len(open_nodes) or (depth == 0 and open_nodes) or (depth > 0 and not open_nodes):
            raise input_error(FORMAT, f"the node at depth {depth} is not a child of the node before it", number, "line")
        close(depth)
        if open_nodes:
            parent = open_nodes[-1]
            parent[1] -= 1
            if parent[1] < 0:
                raise input_error(FORMAT, "a node has more children than its count says", number, "line")
            parent[0] -= size
            if parent[0] < 0:
                raise input_error(FORMAT, "children hold more bytes than their parent", number, "line")
            frame = frames.get(label)
            if frame is None:
                frame = frames[label] = parse_frame(b, label, FORMAT, f"line {number}")
            path.append(frame)
        else:
            root_label = label
        open_nodes.append([size, children, number])
    close(0)
    for stack, value in samples.items():
        b.add(list(stack), [value])
    unit = _TIME_UNITS.get(header.get("time_unit", ""), header.get("time_unit", ""))
    f = snap.fields
    kind = "peak" if peak else "detailed"
    b.comments.append(
        f"Massif {kind} snapshot {snap.number} at time={f.get('time', '?')} ({unit})"
        + (f" of {header['cmd']}" if header.get("cmd") else "")
    )
    b.comments.append(" ".join(f"{k}={f.get(k, '?')}" for k in ("mem_heap_B", "mem_heap_extra_B", "mem_stacks_B")))
    return b.build()


def _chosen(snaps: List[_Snapshot]) -> Optional[_Snapshot]:
    peak = [s for s in snaps if s.fields.get("heap_tree") == "peak"]
    if peak:
        return peak[-1]
    detailed = [s for s in snaps if s.fields.get("heap_tree") == "detailed"]
    return detailed[-1] if detailed else None


def _text(data: bytes) -> str:
    """The file as text: UTF-8, else Latin-1 (but not binary data)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if b"\0" in data:
            raise input_error(FORMAT, "the text is not UTF-8", e.start) from None
        return data.decode("latin-1")


def _treeless(snaps: List[_Snapshot]):
    """The error for a file none of whose snapshots has a heap tree."""
    return input_error(
        FORMAT, f"no snapshot has a heap tree: no 'heap_tree' is detailed or peak ({len(snaps)} snapshots)"
    )


def read_massif_bytes(data: bytes) -> Profile:
    """The peak snapshot's heap tree (the last detailed snapshot's when there
    is no peak)."""
    header, snaps = _snapshots(_text(data))
    snap = _chosen(snaps)
    if snap is None:
        raise _treeless(snaps)
    return _profile(header, snap, snap.fields.get("heap_tree") == "peak")


def read_massif_all(data: bytes) -> Dict[str, Profile]:
    """Every detailed and peak snapshot, keyed ``"snapshot=N"`` (``" (peak)"``
    added for the peak), in the file's order."""
    header, snaps = _snapshots(_text(data))
    out = {}
    for s in snaps:
        kind = s.fields.get("heap_tree")
        if kind in ("detailed", "peak"):
            out[f"snapshot={s.number}" + (" (peak)" if kind == "peak" else "")] = _profile(header, s, kind == "peak")
    if not out:
        raise _treeless(snaps)
    return out
