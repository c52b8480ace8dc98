"""What the reports share: the node table of a granularity (aggregated in C++,
``_core.aggregate``), pprof's header and summary lines, and node trimming by
``nodefraction``/``edgefraction`` (their defaults and the granularities are
``_report_defaults``')."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, List, Sequence

import numpy as np

from .. import _core
from .._report_base import active_filters
from .._report_defaults import GRANULARITIES
from .._report_text import profile_lines
from .._report_text import summary_lines as report_summary

if TYPE_CHECKING:
    from .._profile import Profile


def check_granularity(by: str, argument: str = "") -> str:
    """``by`` when it is one of :data:`GRANULARITIES`, else ValueError (the
    message names ``by`` after ``argument``, e.g. ``"by="``)."""
    if by not in GRANULARITIES:
        raise ValueError(f"unknown granularity {argument}{by!r}; expected one of {', '.join(GRANULARITIES)}")
    return by


def nodes(profile: "Profile", by: str = "functions", inline: bool = True, label_type: int = -1, mean: bool = False):
    """The C++ node table of ``profile`` at granularity ``by`` (cached on the profile).

    ``label_type`` (and with ``mean`` the count type 0) decides which samples
    create the call edges behind the inline labels, as pprof's graph does."""
    check_granularity(by)
    cache = profile._derived.nodes
    key = (by, bool(inline), int(label_type), 0 if mean else -1)
    t = cache.get(key)
    if t is None:
        t = derived_nodes(profile, key)
        if t is None:
            t = located_nodes(profile, key)
        if t is None:
            t = _core.aggregate(profile._core, *key)
        cache[key] = t
    return t


def derived_nodes(profile: "Profile", key):
    """The node table of ``key`` for a profile a name filter made (focus,
    ignore, hide, show), from its input's cached table: the input's sums
    less those of the samples the filter dropped, without summing every
    frame again (``_core.derived_aggregate``). None when the input has no
    such table or the C++ side finds that it must sum anew."""
    origin = profile._derived.filter_origin
    if origin is None:
        return None
    parent_ref, kept, hidden = origin
    parent = parent_ref()
    parent_t = None if parent is None else parent._derived.nodes.get(key)
    if parent_t is None:
        return None
    by, inline, label_type, label_div_type = key
    # A deferred copy: its tables alone, its samples read in the parent's.
    deferred = profile._uncopied_in(parent)
    child = profile._tables_core if deferred else profile._core
    return _core.derived_aggregate(
        child, parent._core, parent_t, kept, hidden, by, inline, label_type, label_div_type, deferred=deferred
    )


#: Granularities whose nodes mostly sit in one place of one location, so
#: that their sums come from the locations' (:func:`located_nodes`); at the
#: others most frames belong to nodes in several places and need a full walk.
LOCATED_GRANULARITIES = ("lines", "addresses")


def located_nodes(profile: "Profile", key):
    """The node table of ``key`` from the profile's sums per location (one
    pass over its samples, kept for every later table): only the frames of
    nodes found in several places and of those behind the inline labels are
    walked (``_core.aggregate_from_locations``). None at another granularity
    or when the C++ side finds that it must sum anew."""
    if key[0] not in LOCATED_GRANULARITIES:
        return None
    return _core.aggregate_from_locations(profile._core, keep_location_sums(profile), *key)


def keep_location_sums(profile: "Profile"):
    """The profile's ``_core.location_sums``, summed on first use and kept
    (the explorer sums them off the request path after its first Top)."""
    derived = profile._derived
    if derived.location_sums is None:
        derived.location_sums = _core.location_sums(profile._core)
    return derived.location_sums


def node_inline_labels(profile: "Profile", by: str, inline: bool, label_type: int, mean: bool) -> np.ndarray:
    """The ``inline_label`` column :func:`nodes` would give for ``label_type``
    and ``mean``, for the rows of ``nodes(profile, by, inline)``: that table
    holds the labels of every label type (one aggregation), so a report of
    another sample type reuses it instead of aggregating the samples again."""
    by_type = nodes(profile, by, inline).columns()["inline_labels_by_type"]
    if by_type.shape[1] == 0:  # more sample types than one pass labels
        return nodes(profile, by, inline, label_type, mean).columns()["inline_label"]
    return by_type[:, 0 if label_type < 0 else 1 + label_type + (len(profile.sample_types) if mean else 0)]


def nodes_many(profiles: Sequence["Profile"], by: str) -> list:
    """:func:`nodes` of every profile (default arguments); aggregation
    releases the GIL, so the missing tables are built on a thread pool."""
    missing = [p for p in profiles if (by, True, -1, -1) not in p._derived.nodes]
    if len(missing) > 1:
        from concurrent.futures import ThreadPoolExecutor  # on use: slow to import, rarely needed

        with ThreadPoolExecutor(max_workers=min(len(missing), os.cpu_count() or 1)) as pool:
            list(pool.map(lambda p: nodes(p, by), missing))
    return [nodes(p, by) for p in profiles]


def type_label_of(profile: "Profile", ti: int, mean: bool) -> str:
    t = profile.sample_types[ti][0]
    return ("mean_" + t) if mean else t


def header_lines(profile: "Profile", ti: int, mean: bool, tot: int, unit: str, ratio: float = 1.0) -> List[str]:
    """pprof's ProfileLabels of ``profile`` (:func:`~pprofcore._report_text.profile_lines`)."""
    m = profile.mappings
    mapping_file = profile.strings[int(m.filename[0])] if len(m) else ""
    build_id = profile.strings[int(m.build_id[0])] if len(m) else ""
    type_label = type_label_of(profile, ti, mean) if profile.sample_types[ti][0] else ""
    sample_unit = profile.sample_types[ti][1]
    return profile_lines(
        mapping_file,
        build_id,
        profile.comments,
        type_label,
        profile.time_nanos,
        profile.duration_nanos,
        tot,
        sample_unit,
        unit,
        ratio,
    )


def trimmed_inline_labels(
    profile: "Profile", t, rows: np.ndarray, ti: int, mean: bool, edge_cut: int, untrimmed: np.ndarray
) -> np.ndarray:
    """Inline label per node (0 none, 1 inline, 2 partial-inline) from the
    in-edges of pprof's final graph: only the nodes in ``rows``, edges that skip
    dropped nodes, and edges lighter than ``edge_cut`` removed. ``untrimmed``:
    the labels of the whole graph (:func:`node_inline_labels`)."""
    keep = np.zeros(len(t), dtype=np.uint8)
    keep[rows] = 1
    out = np.zeros(len(t), dtype=np.int64)
    # An inline in-edge of the trimmed graph continues one of the untrimmed
    # graph (same samples, fewer nodes), so only nodes labelled there can be
    # labelled here: edges are summed for those alone.
    candidates = keep & (untrimmed != 0).astype(np.uint8)
    if not candidates.any():
        return out
    source, sample_keep, hidden = profile._stack_source()  # a deferred copy's samples, read in its input
    e = t.edges(source, candidates, ti, 0 if mean else -1, keep, sample_keep, hidden)
    if len(e["src"]) == 0:
        return out
    live = (np.abs(e["weight"][:, ti]) >= edge_cut) & candidates[e["dst"]].astype(bool)
    dst, inl = e["dst"][live], e["inline"][live].astype(bool)
    has_inline = np.zeros(len(t), dtype=bool)
    has_plain = np.zeros(len(t), dtype=bool)
    has_inline[dst[inl]] = True
    has_plain[dst[~inl]] = True
    out[has_inline] = 1
    out[has_inline & has_plain] = 2
    return out


def trim_nodes(cols, rows: np.ndarray, ti: int, nodefraction: float):
    """pprof's first trimming step (``DiscardLowFrequencyNodes``): drops the
    nodes whose |cum| is below ``nodefraction`` of the sum of all nodes' flat
    values. Returns (kept rows in order, number dropped)."""
    if not nodefraction or len(rows) == 0:
        return rows, 0
    flat_total = int(cols["flat"][rows, ti].sum(dtype=np.int64))
    cutoff = abs(int(flat_total * float(nodefraction)))  # Go: int64(float64(total) * fraction)
    if cutoff <= 0:
        return rows, 0
    keep = np.abs(cols["cum"][rows, ti]) >= cutoff
    return rows[keep], int((~keep).sum())


def summary_lines(
    profile: "Profile", fmt, flat_sum: int, tot: int, dropped: int, nodefraction: float, shown: int, orig: int
) -> List[str]:
    """pprof's report labels after the profile's (``_report_text.summary_lines``),
    with ``profile``'s "Active filters"."""
    return report_summary(active_filters(profile), fmt, flat_sum, tot, dropped, nodefraction, shown, orig)
