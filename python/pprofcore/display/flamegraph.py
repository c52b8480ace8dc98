"""Flame graphs: :func:`flamegraph` builds a :class:`FlameGraph` from a profile's
call tree (computed in C++ by ``_core.call_tree``); the class exports it as a
table, an interactive HTML page, a static SVG or a speedscope file."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Optional, Union

import numpy as np

from .. import _atomic, _core, _units
from .._args import check_str, type_name
from .._filter import hidden_locations_from, samples_kept_from
from ..errors import ProfileError, unknown_sample_type
from ..reports._nodes import check_granularity
from ..reports.table import ReportTable
from ._files import save_by_extension
from .html import flamegraph_html
from .speedscope import to_speedscope
from .svg import check_width, flamegraph_svg

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

__all__ = ["FlameGraph"]

#: Nodes narrower than this share of the root are merged into one "..." node per
#: parent by default: it keeps pages of multi-million-frame profiles near 1 MB
#: while every node wide enough to read stays.
DEFAULT_MIN_FRACTION = 0.0005


def stack_nodes(profile: "Profile", by: str, inline: bool = True):
    """The report nodes of ``by`` without their sums (the call tree needs only the
    keying and the names), cached on the profile; ``inline=False``: inlined
    frames folded into their callers (pprof's -noinlines)."""
    cache = profile._derived.stack_nodes
    key = by if inline else (by, "noinlines")
    t = cache.get(key)
    if t is None:  # no sums: the tables alone (a deferred filter output's, without copying its samples)
        t = cache[key] = _core.aggregate(profile._tables_core, by, inline, -1, -1, False)
    return t


def keep_call_trees(profile: "Profile", by: str, inverted: bool = False) -> None:
    """Splits the samples of ``profile`` once for every sample type
    (``_core.kept_tree``: each type's trimmed tree and frame sums side by side)
    and keeps the result on the profile, so its flame graphs of any sample type
    (same ``by`` and direction, no base, the default trimming or coarser) are
    read off it without reading a frame. For a caller that switches sample
    types (the explorer): it costs about one sample type's tree with every
    sample. Only the first ``(by, inverted)`` asked is kept, so a profile holds
    one (a few bytes per sample and per node and type) and a later granularity
    change costs what it did without."""
    cache = profile._derived.kept_trees
    if cache:
        return
    try:
        kept = _core.kept_tree(profile._core, stack_nodes(profile, by), bool(inverted), DEFAULT_MIN_FRACTION)
    except ProfileError:  # a sample type whose sums pass int64: each type's tree says so itself
        kept = None
    cache[(by, bool(inverted))] = kept


def derive_call_trees(profile: "Profile", parent: "Profile", by: str, inverted: bool = False) -> None:
    """Gives ``profile``, made from ``parent`` by a name filter (focus, ignore,
    hide, show) or one that keeps some of its samples unchanged (a label
    filter), the call trees of :func:`keep_call_trees` from ``parent``'s kept
    ones: less the dropped samples, with hide's and show's hidden frames
    spliced out, when ``parent`` has them. Otherwise (other filters, a result
    that would not be exact, or a child small enough to split anew) nothing is
    kept and its trees are built as usual."""
    kept = parent._derived.kept_trees.get((by, bool(inverted)))
    cache = profile._derived.kept_trees
    if kept is None or cache:
        return
    nodes = stack_nodes(profile, by)
    # A deferred filter output's tree is derived from its tables, its samples
    # read in the parent's: no copy (flamegraph then reads only what it covers).
    deferred = profile._uncopied_in(parent)
    hidden = hidden_locations_from(profile, parent)
    if hidden is None:  # focus, ignore: the filter's record of the kept samples, else matched in C++
        mask, hidden_mask, used = samples_kept_from(profile, parent), None, None
        deferred = deferred and mask is not None
    else:
        mask, hidden_mask = hidden
        used = parent._derived.used_locations  # kept by the filter's warnings when it ran; None: all count
    child = profile._tables_core if deferred else profile._core
    cache[(by, bool(inverted))] = _core.derive_kept_tree(
        child, nodes, kept, mask, hidden=hidden_mask, used=used, deferred=deferred
    )


def tree_source(profile: "Profile", kept, ti: int, min_fraction: float):
    """(C++ profile, kept tree or None) to build ``profile``'s tree of type
    ``ti`` from: a deferred filter output's tables with the tree derived for
    them when it covers this one (its samples never copied), else the
    profile's own C++ profile, with its kept tree when built for that."""
    if kept is None:
        return profile._core, None
    tables = profile._deferred_tables()
    if tables is not None and kept.built_for(tables):
        return (tables, kept) if kept.covers(ti, min_fraction) else (profile._core, None)
    return profile._core, kept


def flamegraph(
    profile: "Profile",
    sample_type=None,
    *,
    by: str = "functions",
    inverted: bool = False,
    base: "Optional[Profile]" = None,
    normalize: bool = True,
    min_fraction: float = DEFAULT_MIN_FRACTION,
    title: Optional[str] = None,
) -> "FlameGraph":
    """Builds the flame graph of ``profile`` (see :meth:`pprofcore.Profile.flamegraph`)."""
    check_granularity(by)
    check_str("title", title, optional=True)  # checked here: the pages and the SVG show it
    min_fraction = float(min_fraction)
    if not 0.0 <= min_fraction <= 1.0:
        raise ValueError(f"min_fraction must be between 0 and 1, got {min_fraction}")
    ti = profile.sample_type_index(sample_type)
    stype, unit = profile.sample_types[ti]
    ratio = 1.0
    if base is not None and not isinstance(base, type(profile)):
        raise TypeError(f"base must be a Profile, not {type_name(base)}")
    if base is not None:
        bt = [t for t, _ in base.sample_types]
        if stype not in bt:
            raise unknown_sample_type(stype, bt, "base profile")
        bi = bt.index(stype)
        if base.sample_types[bi][1] != unit:
            raise ValueError(
                f"sample type {stype!r} is in {unit!r} but in the base profile in {base.sample_types[bi][1]!r}"
            )
        kwargs = dict(base=base._core, base_nodes=stack_nodes(base, by), base_type=bi)
        if normalize:
            bt_total, nt_total = base.total(bi), profile.total(ti)
            ratio = nt_total / bt_total if bt_total else 1.0
        core = profile._core
    else:
        core, kept = tree_source(profile, profile._derived.kept_trees.get((by, bool(inverted))), ti, min_fraction)
        kwargs = dict(kept=kept)
    tree = _core.call_tree(
        core, stack_nodes(profile, by), ti, inverted=bool(inverted), min_fraction=min_fraction, **kwargs
    )
    if base is not None and ratio != 1.0:
        for k in ("base_self", "base_total", "frame_base_self", "frame_base_total"):
            tree[k] = np.round(tree[k] * ratio).astype(np.int64)
    return FlameGraph(
        tree,
        sample_type=stype,
        unit=unit,
        by=by,
        inverted=bool(inverted),
        min_fraction=min_fraction,
        title=title,
        normalized=base is not None and normalize,
    )


class FlameGraph:
    """A flame graph: the call tree of one sample type, root first (or leaves
    first when ``inverted``), one node per frame on each path.

    Node ``0`` is the root; nodes are numbered in depth-first pre-order with
    children ordered widest first, so a node's subtree is a contiguous id range.
    ``self`` is the value of the samples ending at a node, ``total`` of those
    passing through it. Subtrees narrower than ``min_fraction`` of the root are
    merged into one ``"..."`` node per parent (its ``self`` is their ``total``).

    A diff flame graph (built with ``base=``) also carries ``base_self`` and
    ``base_total`` (scaled to the new profile's total when normalized); nodes
    that exist only in the base have ``total == 0``.

    Show it in a notebook (``_repr_html_``), or export with :meth:`to_html`,
    :meth:`save`, :meth:`to_svg`, :meth:`to_speedscope`, :meth:`save_speedscope`.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> fg = p.flamegraph()
    >>> fg
    <pprofcore.FlameGraph flame graph of cpu: 974 nodes, total 5.03s, by functions>
    >>> fg.to_html().startswith("<!DOCTYPE html>")
    True
    >>> fg.save("cpu.svg")
    """

    def __init__(
        self,
        tree: dict,
        *,
        sample_type: str,
        unit: str,
        by: str,
        inverted: bool,
        min_fraction: float,
        title: Optional[str],
        normalized: bool,
    ):
        self._tree = tree
        self.sample_type = sample_type
        self.unit = unit
        self.by = by
        self.inverted = inverted
        self.min_fraction = min_fraction
        self.normalized = normalized
        self.title = title if title is not None else f"{sample_type} ({unit})" + (" vs base" if self.is_diff else "")

    # ------------------------------------------------------------------ data
    @property
    def is_diff(self) -> bool:
        """True when built with ``base=`` (a diff flame graph)."""
        return "base_total" in self._tree

    def __len__(self) -> int:
        return len(self._tree["parent"])

    @property
    def total(self) -> int:
        """The root's total: the profile's total of the sample type."""
        return int(self._tree["total"][0])

    @property
    def base_total(self) -> Optional[int]:
        """The root's total in the base profile (None without a base)."""
        return int(self._tree["base_total"][0]) if self.is_diff else None

    def names(self) -> list:
        """Frame name of every node (``"root"`` for node 0)."""
        fn = self._tree["frame_name"]
        return [fn[int(f)] for f in self._tree["frame"]]

    def nodes(self) -> ReportTable:
        """The tree as a table: ``id, parent, depth, name, self, total`` (plus
        ``base_self, base_total`` for a diff) and ``file, line`` (``""``/0 when unknown)."""
        t = self._tree
        frames = t["frame"]
        files, lines = t["frame_file"], t["frame_line"]
        cols = {
            "id": np.arange(len(self), dtype=np.int32),
            "parent": t["parent"],
            "depth": t["depth"],
            "name": self.names(),
            "self": t["self"],
            "total": t["total"],
        }
        if self.is_diff:
            cols["base_self"] = t["base_self"]
            cols["base_total"] = t["base_total"]
        cols["file"] = [files[int(f)] for f in frames]
        cols["line"] = lines[frames]
        header = [
            f"Flame graph of {self.sample_type} ({self.unit}), {len(self)} nodes, total "
            f"{_units.scaled_label(self.total, self.unit, 'auto')}"
        ]
        return ReportTable(cols, header, meta={"unit": self.unit, "sample_type": self.sample_type})

    def functions(self) -> ReportTable:
        """Per frame name: ``name, self, total`` (pprof's flat and cum over the
        untrimmed tree, recursion counted once), widest ``self`` first."""
        t = self._tree
        fs, ft = t["frame_self"], t["frame_total"]
        keep = np.array([i for i in range(1, len(t["frame_name"])) if i != t["ellipsis_frame"]], dtype=np.int64)
        if len(keep):
            keep = keep[np.lexsort((-np.abs(ft[keep]), -np.abs(fs[keep])))]
        cols = {"name": [t["frame_name"][int(i)] for i in keep], "self": fs[keep], "total": ft[keep]}
        if self.is_diff:
            cols["base_self"] = t["frame_base_self"][keep]
            cols["base_total"] = t["frame_base_total"][keep]
        return ReportTable(cols, meta={"unit": self.unit})

    def _layout_width(self) -> np.ndarray:
        """Width of each node in value units: |total|, plus (in a diff) the base
        total of vanished subtrees below it, so nodes that only exist in the base
        get room of their base size."""
        t = self._tree
        w = np.abs(t["total"]).astype(np.float64)
        if not self.is_diff:
            return w
        parent, total, bt = t["parent"], t["total"], t["base_total"]
        vanished = (total == 0) & (bt != 0)
        extra = np.zeros(len(w))
        top = vanished.copy()
        top[1:] &= ~vanished[parent[1:]]
        top[0] = False
        extra[top] = np.abs(bt[top])
        for i in range(len(w) - 1, 0, -1):  # children after parents (pre-order)
            if extra[i] and not vanished[parent[i]]:
                extra[parent[i]] += extra[i]
        return np.where(vanished, np.abs(bt), w + np.where(vanished, 0, extra))

    # --------------------------------------------------------------- outputs
    def __repr__(self) -> str:
        kind = "diff flame graph" if self.is_diff else "flame graph"
        return (
            f"<pprofcore.FlameGraph {kind} of {self.sample_type}: {len(self)} nodes, total "
            f"{_units.scaled_label(self.total, self.unit, 'auto')}, by {self.by}"
            f"{', inverted' if self.inverted else ''}>"
        )

    def _repr_html_(self) -> str:
        return flamegraph_html(self, full_page=False)

    def to_html(self) -> str:
        """A standalone HTML page: interactive (zoom, search, tooltips, sandwich
        view, top functions), with its script, styles and data inline."""
        return flamegraph_html(self, full_page=True)

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes :meth:`to_html` (``.html``), :meth:`to_svg` (``.svg``) or the
        speedscope file (``.json``), chosen by the file name's extension."""
        save_by_extension(
            path,
            {
                ".html": self.to_html,
                ".htm": self.to_html,
                "": self.to_html,
                ".svg": self.to_svg,
                ".json": self.to_speedscope,
            },
            ".html, .svg or .json",
        )

    def to_svg(self, width: Union[int, float] = 1200) -> str:
        """A static SVG (no script) that reads without JavaScript: GitHub, nbviewer,
        papers. Nodes narrower than a pixel are left out; each node has a ``<title>``.
        ``width`` (pixels) must be a finite number > 0 (else ValueError; TypeError
        when not a number). Characters XML forbids in names (NUL, ESC, U+FFFE, ...)
        are shown as visible escapes such as ``\\x1b``."""
        width = check_width(width)

        return flamegraph_svg(self, width=width)

    def to_speedscope(self) -> str:
        """The tree as a speedscope file (JSON, "sampled" profile: one sample per
        node with a non-zero ``self``, weighted by it). Open it at speedscope.app."""
        return json.dumps(to_speedscope(self), separators=(",", ":"))

    def save_speedscope(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes :meth:`to_speedscope` to ``path`` (atomically: a temporary file renamed over it)."""
        _atomic.write_text(path, self.to_speedscope())
