"""The traces report: each distinct stack with its labels and value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

import numpy as np

from .. import _core, _units
from .._frames import num_label_units
from .._report_base import go_div, report_total
from ._nodes import header_lines, nodes
from .table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


# ---------------------------------------------------------------------- traces
def traces(
    profile: "Profile",
    sample_type=None,
    mean: bool = False,
    unit: Optional[str] = None,
    by: str = "functions",
    divide_by: float = 1.0,
    inline: bool = True,
    relative_percentages: bool = False,
    merge: bool = True,
) -> ReportTable:
    """pprof's ``-traces``: every distinct sample's stack, one row per sample x
    frame (``sample, depth, value, name, inline``); ``repr`` is pprof's text;
    ``p.traces(...)`` is ``traces(p, ...)``. Frames are named at
    granularity ``by`` (``"addresses"`` prefixes each frame with its address);
    values shown divided by ``divide_by`` as pprof's ``-divide_by``;
    ``inline=False`` keeps only each location's outermost frame (``-noinlines``);
    ``relative_percentages``: the header's total is the filtered profile's;
    ``merge=False`` prints every sample as it is, for a profile merged before
    it was filtered (pprof's driver merges on reading, so samples that ``hide``
    made equal stay apart).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.traces(p))  # doctest: +ELLIPSIS
    File: basic
    Type: cpu
    ...
    -----------+-------------------------------------------------------
        tenant:  initech
    ...
    """
    ratio = _units.display_ratio(divide_by)
    # pprof's driver merges every profile it loads (profile.Merge), which makes
    # locations of equal content one location: samples whose stacks differ only
    # in location ids become one trace.
    # The totals and header stay those of the profile as given (a filtered one
    # remembers its unfiltered total).
    given, profile = profile, (profile.compact() if merge else profile)
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline, ti)
    cols = t.columns()
    names = t.printable_names()
    lno, ln = cols["loc_node_offsets"], cols["loc_nodes"]
    # pprof merges identical samples (same stack and labels) before reporting
    gid = _core.sample_group_ids(profile._core) if merge else np.arange(len(profile), dtype=np.int64)
    ng = int(gid.max()) + 1 if len(gid) else 0
    rep = np.zeros(ng, dtype=np.int64)
    rep[gid[::-1]] = np.arange(len(gid) - 1, -1, -1)  # first sample of each group
    merged = np.zeros((ng, profile.values.shape[1]), dtype=np.int64)
    np.add.at(merged, gid, profile.values)
    keep = np.any(merged != 0, axis=1)
    rep, merged = rep[keep], merged[keep]
    so, sl = profile.stack_offsets, profile.stack_locations
    lens = so[rep + 1] - so[rep]
    keep = lens > 0
    rep, merged, lens = rep[keep], merged[keep], lens[keep]
    # stack entries of the representatives, in order
    ent_sample = np.repeat(np.arange(len(rep), dtype=np.int64), lens)
    ent_start = np.repeat(so[rep] - (np.cumsum(lens) - lens), lens)
    ent = ent_start + np.arange(len(ent_sample), dtype=np.int64)
    sl_sel = sl[ent].astype(np.int64) if len(ent) else np.zeros(0, np.int64)
    per_entry = lno[sl_sel + 1] - lno[sl_sel]
    entry = np.repeat(np.arange(len(sl_sel), dtype=np.int64), per_entry)
    starts = np.cumsum(per_entry) - per_entry
    within = np.arange(len(entry), dtype=np.int64) - np.repeat(starts, per_entry)
    loc = sl_sel[entry]
    node = ln[lno[loc] + within]
    is_inline = within != (lno[loc + 1] - lno[loc] - 1)
    sample_pos = ent_sample[entry]
    v = merged[:, ti]
    if mean:
        v = go_div(v, merged[:, 0])
    tot = report_total(given, ti, mean, relative_percentages)
    su = profile.sample_types[ti][1]
    ou = unit or "minimum"  # pprof scales each trace's value on its own
    counts = np.bincount(sample_pos, minlength=len(rep)) if len(sample_pos) else np.zeros(len(rep), np.int64)
    fstarts = np.cumsum(counts) - counts
    frames = {
        "sample": rep[sample_pos] if len(sample_pos) else np.zeros(0, np.int64),
        "depth": np.arange(len(sample_pos), dtype=np.int64) - fstarts[sample_pos]
        if len(sample_pos)
        else np.zeros(0, np.int64),
        "value": v[sample_pos] if len(sample_pos) else np.zeros(0, np.int64),
        "name": [names[i] for i in node.tolist()],
        "inline": is_inline,
    }
    header = header_lines(given, ti, mean, tot, ou, ratio)
    meta = {"sample_unit": su, "unit": ou, "profile": profile, "total": tot, "ratio": ratio}
    return ReportTable(frames, header, _traces_text, meta)


def sample_label_text(profile: "Profile") -> List[List[str]]:
    """Per sample, pprof's trace label lines (string labels then numeric, each sorted)."""
    lab = profile.labels
    n = len(profile)
    out: List[List[str]] = [[] for _ in range(n)]
    if len(lab.key) == 0:
        return out
    units = num_label_units(profile)
    strings = profile.strings
    lo = profile.label_offsets
    for s in np.nonzero(np.diff(lo))[0].tolist():
        svals: Dict[str, List[str]] = {}
        nvals: Dict[str, List[str]] = {}
        for r in range(int(lo[s]), int(lo[s + 1])):
            k = strings[int(lab.key[r])]
            if lab.str[r] >= 0:
                svals.setdefault(k, []).append(strings[int(lab.str[r])])
            else:
                nvals.setdefault(k, []).append(_units.scaled_label(int(lab.num[r]), units.get(k, k), "auto"))
        out[s] = sorted(f"{k:>10}:  {' '.join(v)}" for k, v in svals.items()) + sorted(
            f"{k:>10}:  {' '.join(v)}" for k, v in nvals.items()
        )
    return out


def _traces_text(t: ReportTable, n: Optional[int]) -> str:
    sep = "-----------+-------------------------------------------------------"
    m = t.meta
    su, ou = m["sample_unit"], m["unit"]
    labels = sample_label_text(m["profile"])
    lines = list(t.header)
    sample, depth, value, names, inl = t["sample"], t["depth"], t["value"], t["name"], t["inline"]
    shown = 0
    for i in range(len(t)):
        if depth[i] == 0:
            if n is not None and shown >= n:
                lines.append("...")
                break
            shown += 1
            lines.append(sep)
            lines.extend(labels[int(sample[i])])
            vs = _units.scaled_label(_units.divided(value[i], m.get("ratio", 1.0)), su, ou)
        else:
            vs = ""
        lines.append(f"{vs:>10}   {names[i]}{' (inline)' if inl[i] else ''}")
    lines.append(sep)
    return "\n".join(lines)
