"""The tags pprof hangs under call-graph nodes (its "nodelets"): per node, the
sums of the samples by their joined string labels, and by the value of their
``bytes`` numeric label, flat and cum, over the nodes the graph kept.

pprof adds a sample's cum to every kept node of its stack once and its flat to
the leaf only when the leaf frame itself was kept; tags follow the same rule.
Numeric labels other than ``bytes`` and the ``pprof::base`` label are left out,
as pprof's graph report does. For ``-mean`` a tag also sums the samples'
counts (``flat_div``, ``cum_div``): pprof trims and sorts tags by their sums
and shows the sums divided by the counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, List, Tuple

import numpy as np

from .. import _units
from .._frames import num_label_units

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

BASE_LABEL = "pprof::base"


class Tag:
    """One tag of a node: ``name`` (the label text or formatted value),
    ``value``/``unit`` (numeric tags), ``flat`` and ``cum``, and for ``-mean``
    the count sums ``flat_div`` and ``cum_div`` they are divided by."""

    __slots__ = ("name", "value", "unit", "flat", "cum", "flat_div", "cum_div")

    def __init__(self, name: str, value: int = 0, unit: str = "") -> None:
        self.name, self.value, self.unit = name, value, unit
        self.flat = 0
        self.cum = 0
        self.flat_div = 0
        self.cum_div = 0

    def flat_value(self) -> int:
        """What the graph shows: ``flat``, divided by ``flat_div`` when there is one."""
        return go_quo(self.flat, self.flat_div) if self.flat_div else self.flat

    def cum_value(self) -> int:
        return go_quo(self.cum, self.cum_div) if self.cum_div else self.cum


class NodeTags:
    """``labels``: joined string labels -> Tag; ``numeric``: joined string labels
    ("" for none) -> formatted bytes value -> Tag."""

    __slots__ = ("labels", "numeric")

    def __init__(self) -> None:
        self.labels: Dict[str, Tag] = {}
        self.numeric: Dict[str, Dict[str, Tag]] = {}


def go_quo(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def sort_tags(tags: Iterable[Tag], flat: bool) -> List[Tag]:
    """pprof's tag order: |cum| (unless ``flat``), then |flat|, descending; then name."""
    if flat:
        return sorted(tags, key=lambda t: (-abs(t.flat), t.name))
    return sorted(tags, key=lambda t: (-abs(t.cum), -abs(t.flat), t.name))


def sample_tags(p: "Profile") -> Tuple[List[str], List[List[Tuple[int, str]]]]:
    """Per sample: the joined string labels and its ``bytes`` values with their unit."""
    lab = p.labels
    offsets = p.label_offsets
    n = len(p)
    joined = [""] * n
    numeric: List[List[Tuple[int, str]]] = [[] for _ in range(n)]
    if len(lab.key) == 0:
        return joined, numeric
    units = num_label_units(p)
    bytes_unit = units.get("bytes", "bytes")
    keys = [p._core.string(int(k)) for k in lab.key]
    strs = lab.str
    nums = lab.num
    for i in range(n):
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        parts = []
        for r in range(lo, hi):
            k = keys[r]
            if int(strs[r]) >= 0:
                if k != BASE_LABEL:
                    parts.append(k + ":" + p._core.string(int(strs[r])))
            elif k == "bytes":
                numeric[i].append((int(nums[r]), bytes_unit))
        parts.sort()
        joined[i] = "\\n".join(parts)
    return joined, numeric


def node_tags(
    p: "Profile", ti: int, cols: dict, kept: Iterable[int], cutoff: int, unit: str = "minimum", mean: bool = False
) -> Dict[int, NodeTags]:
    """Tags of the ``kept`` report nodes (``cols``: the node table's columns),
    those below ``cutoff`` in both flat and cum dropped as pprof does. Numeric
    values that print the same in ``unit`` (pprof's ``-unit``) are one tag.
    ``mean``: the tags also sum the first sample type (pprof's ``-mean``)."""
    out = {int(n): NodeTags() for n in kept}
    if len(p.labels.key) == 0:
        return out
    joined, numeric = sample_tags(p)
    keep = np.zeros(len(cols["function"]), dtype=bool)
    keep[list(out)] = True
    loc_off, loc_nodes = cols["loc_node_offsets"], cols["loc_nodes"]
    values = p.values[:, ti]
    counts = p.values[:, 0] if mean else np.zeros(len(p), dtype=np.int64)
    st_off, st_loc = p.stack_offsets, p.stack_locations
    for i in range(len(p)):
        w, dw = int(values[i]), int(counts[i])
        if (w == 0 and dw == 0) or (not joined[i] and not numeric[i]):
            continue
        seen = set()
        leaf = -1
        residual = False
        for loc in st_loc[int(st_off[i]) : int(st_off[i + 1])][::-1]:
            frames = loc_nodes[int(loc_off[loc]) : int(loc_off[loc + 1])]
            for n in frames[::-1]:
                n = int(n)
                if n < 0 or not keep[n]:
                    residual = True
                    continue
                if n not in seen:
                    seen.add(n)
                    add_sample(out[n], joined[i], numeric[i], w, False, unit, dw)
                leaf = n
                residual = False
        if leaf >= 0 and not residual:
            add_sample(out[leaf], joined[i], numeric[i], w, True, unit, dw)
    for t in out.values():
        t.labels = trim_tags(t.labels, cutoff)
        t.numeric = {k: trim_tags(v, cutoff) for k, v in t.numeric.items()}
    return out


def add_sample(
    nt: NodeTags, labels: str, nums: List[Tuple[int, str]], w: int, flat: bool, unit: str = "minimum", dw: int = 0
) -> None:
    """Adds a sample's value ``w`` (and count ``dw``, for ``-mean``) to the
    node's tags of its labels and ``bytes`` values."""
    if labels:
        _bump(nt.labels.setdefault(labels, Tag(labels)), w, flat, dw)
    group = nt.numeric.setdefault(labels, {})
    for v, value_unit in nums:
        name = _units.scaled_label(v, value_unit, unit)
        t = group.get(name)
        if t is None:
            t = group[name] = Tag(name, v, value_unit)
        _bump(t, w, flat, dw)


def _bump(t: Tag, w: int, flat: bool, dw: int) -> None:
    if flat:
        t.flat += w
        t.flat_div += dw
    else:
        t.cum += w
        t.cum_div += dw


def trim_tags(tags: Dict[str, Tag], cutoff: int) -> Dict[str, Tag]:
    return {k: t for k, t in tags.items() if abs(t.flat) >= cutoff or abs(t.cum) >= cutoff}
