"""V8 sampling heap profiles (``.heapprofile``, as ``node --heap-prof`` and the
DevTools Memory panel's "Allocation sampling" write them) to a profile.

The JSON holds one tree under ``head``: each node a call frame with its
``selfSize`` (the bytes V8 estimates its sampled allocations stand for, still
live when the profile was taken) and its ``children`` nodes; then, from Node
12 on, ``samples``: one entry per sampled allocation (``size``, ``nodeId``,
``ordinal``). Each node with bytes or samples becomes one sample whose stack
is the path from the root to it (the synthetic ``(root)`` frame left out),
with ``samples/count`` the node's sampled allocations and ``space/bytes`` its
``selfSize`` (the default type). Frames are made as for ``.cpuprofile``
(:mod:`._from_cpuprofile`): 0-based line and column numbers become 1-based.
Samples naming a node the tree does not hold (Node writes a few, made as
the process exits) are kept under a frame ``(node N, not in the tree)``.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from ._build import ProfileBuilder, input_error, json_document
from ._from_cpuprofile import v8_frame, v8_int
from ._profile import Profile

FORMAT = "V8 sampling heap profile"


def looks_like_heapprofile(head: bytes) -> bool:
    """Whether the first bytes of a JSON document are a sampling heap
    profile's: its tree starts under ``head`` with a call frame and a
    ``selfSize`` (a ``.cpuprofile`` has ``nodes`` instead)."""
    return b'"head"' in head and b'"callFrame"' in head and b'"selfSize"' in head and b'"nodes"' not in head


def read_heapprofile(doc) -> Profile:
    """Build a Profile from a parsed ``.heapprofile`` document (a dict)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("head"), dict):
        raise input_error(FORMAT, "the document has no 'head' node")
    samples = doc.get("samples") or []
    if not isinstance(samples, list):
        raise input_error(FORMAT, "'samples' must be a list")
    b = ProfileBuilder([("samples", "count"), ("space", "bytes")])
    b.period_type = ("space", "bytes")

    # Walked with a stack of its own: a deep tree must not reach Python's
    # recursion limit. Each entry: (node, where, the parent's stack).
    stack_of: Dict[int, Tuple[int, ...]] = {}
    self_size: Dict[int, int] = {}
    pending: List[Tuple[object, str, Tuple[int, ...]]] = [(doc["head"], "head", ())]
    while pending:
        node, where, above = pending.pop()
        if not isinstance(node, dict):
            raise input_error(FORMAT, f"{where} is not an object")
        nid = v8_int(node, "id", where, fmt=FORMAT)
        if nid in stack_of:
            raise input_error(FORMAT, f"{where}: node id {nid} appears twice")
        loc = v8_frame(b, node, where, FORMAT)
        stack = (loc, *above) if loc else above  # leaf first
        stack_of[nid] = stack
        self_size[nid] = v8_int(node, "selfSize", where, 0, FORMAT)
        children = node.get("children") or []
        if not isinstance(children, list):
            raise input_error(FORMAT, f"{where}: 'children' must be a list")
        for i in range(len(children) - 1, -1, -1):  # popped in order
            pending.append((children[i], f"{where}.children[{i}]", stack))

    counts: Dict[int, int] = {}
    for i, s in enumerate(samples):
        where = f"samples[{i}]"
        if not isinstance(s, dict):
            raise input_error(FORMAT, f"{where} is not an object")
        nid = v8_int(s, "nodeId", where, fmt=FORMAT)
        if nid not in stack_of:
            # Node writes such samples (a node made after V8 built the tree, as
            # the process exits): kept, under a frame that says so.
            stack_of[nid] = (b.frame(f"(node {nid}, not in the tree)"),)
            self_size[nid] = 0
        counts[nid] = counts.get(nid, 0) + 1

    shown = [nid for nid in stack_of if self_size[nid] or counts.get(nid)]
    if shown:
        values = np.array([[counts.get(nid, 0), self_size[nid]] for nid in shown], dtype=np.int64)
        encoded = [b.stack_bytes(stack_of[nid]) for nid in shown]
        b.add_many(encoded, np.arange(len(shown)), values)
    return b.build()


def read_heapprofile_bytes(data: bytes) -> Profile:
    """Parse ``.heapprofile`` JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_heapprofile(json_document(FORMAT, data))
