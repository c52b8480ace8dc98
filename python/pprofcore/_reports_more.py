"""pprof's peek, traces and tags reports and per-label totals, as tables.
Per-sample work is in C++ (nodes, edges) or vectorized NumPy; Python loops only
over distinct names, label values and output lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

import numpy as np

from . import _args, _core, _units
from ._report_table import ReportTable
from ._report_base import report_total
from ._reports import go_div, header_lines, nodes, summary_lines, trim_nodes

if TYPE_CHECKING:
    from ._profile import Profile


def _pct(v: float, tot: float) -> str:
    return _units.percentage(v, tot)


# ------------------------------------------------------------------ peek, tree
def peek(profile: "Profile", regex: str, sample_type=None, by: str = "functions", mean: bool = False,
         unit: Optional[str] = None, inline: bool = True, relative_percentages: bool = False) -> ReportTable:
    """pprof's -peek: callers and callees of the nodes matching ``regex`` (no
    trimming, as pprof). Raises ValueError when ``regex`` matches no node."""
    return call_tree(profile, _args.compile_regex("peek regex", regex), sample_type, by, "flat", mean, unit, inline,
                     0, 0.0, 0.0,
                     relative_percentages)


def tree(profile: "Profile", sample_type=None, by: str = "functions", sort: str = "flat", mean: bool = False,
         unit: Optional[str] = None, inline: bool = True, nodecount: int = 80, nodefraction: float = 0.005,
         edgefraction: float = 0.001, relative_percentages: bool = False) -> ReportTable:
    """pprof's -tree: every node of the trimmed graph with its callers and callees."""
    return call_tree(profile, None, sample_type, by, sort, mean, unit, inline, nodecount, nodefraction,
                     edgefraction, relative_percentages)


def call_tree(profile: "Profile", rx, sample_type, by: str, sort: str, mean: bool, unit: Optional[str],
              inline: bool, nodecount: int, nodefraction: float, edgefraction: float,
              relative_percentages: bool) -> ReportTable:
    """pprof's printTree: nodes in report order (trimmed as newTrimmedGraph does:
    |cum| below ``nodefraction``, then the first ``nodecount``; edges below
    ``edgefraction`` of the flat total dropped), each with its in/out edges;
    only the nodes matching ``rx`` when given."""
    if sort not in ("flat", "cum"):
        raise ValueError("sort must be 'flat' or 'cum'")
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline, ti, mean)
    cols = t.columns()
    names = t.printable_names()
    order = t.order(profile._core, ti, sort == "cum")
    flat_total = int(cols["flat"][order, ti].sum(dtype=np.int64))
    order, dropped = trim_nodes(cols, order, ti, nodefraction)
    orig = len(order)
    if nodecount and nodecount > 0:
        order = order[:nodecount]
    keep = None
    if dropped or len(order) < orig:
        keep = np.zeros(len(t), dtype=np.uint8)
        keep[order] = 1
    if rx is None:
        matched = [int(r) for r in order]
    else:
        matched_by_name: Dict[str, bool] = {}
        matched = [int(r) for r in order if matched_by_name.setdefault(names[r], rx.search(names[r]) is not None)]
        if not matched:
            raise ValueError(f"no matches found for regexp: {rx.pattern}")
    mask = np.zeros(len(t), dtype=np.uint8)
    mask[matched] = 1
    e = t.edges(profile._core, mask, ti, 0 if mean else -1, keep)
    src, dst, w, einl = e["src"], e["dst"], e["weight"][:, ti] if len(e["src"]) else np.zeros(0, np.int64), e["inline"]
    edge_cut = abs(int(flat_total * float(edgefraction))) if edgefraction else 0
    live = np.abs(w) >= edge_cut
    flat_all = cols["flat"][order, ti]
    cum_all = cols["cum"][order, ti]
    if mean:
        flat_all = go_div(flat_all, cols["flat"][order, 0])
        cum_all = go_div(cum_all, cols["cum"][order, 0])
    tot = report_total(profile, ti, mean, relative_percentages)
    su = profile.sample_types[ti][1]
    basis = np.where(flat_all != 0, flat_all, cum_all)
    ou = _units.select_unit(basis.tolist(), tot, su, unit)
    pos = {int(r): i for i, r in enumerate(order)}
    out: Dict[str, list] = {k: [] for k in ("focus", "kind", "name", "flat", "cum", "weight", "inline")}

    def edge_sort(idx):
        return sorted(idx, key=lambda i: (-abs(int(w[i])), names[src[i]], names[dst[i]]))

    for r in matched:
        i = pos[r]
        ins = edge_sort(np.nonzero((dst == r) & live)[0].tolist())
        outs = edge_sort(np.nonzero((src == r) & live)[0].tolist())
        for k in ins:
            _peek_row(out, names[r], "caller", names[src[k]], 0, 0, int(w[k]), bool(einl[k]))
        _peek_row(out, names[r], "node", names[r], int(flat_all[i]), int(cum_all[i]), 0, False)
        for k in outs:
            _peek_row(out, names[r], "callee", names[dst[k]], 0, 0, int(w[k]), bool(einl[k]))
    fmt = lambda v: _units.scaled_label(int(v), su, ou)  # noqa: E731
    header = header_lines(profile, ti, mean, tot, ou)
    header += summary_lines(profile, fmt, int(flat_all.sum()), tot, dropped, nodefraction, len(order), orig)
    meta = {"sample_unit": su, "unit": ou, "total": tot, "sample_type": profile.sample_types[ti][0],
            "dropped_nodes": dropped, "nodes": orig}
    cols_out = {k: (np.asarray(v, dtype=np.int64) if k in ("flat", "cum", "weight") else
                    np.asarray(v, dtype=bool) if k == "inline" else v) for k, v in out.items()}
    return ReportTable(cols_out, header, _peek_text, meta)


def _peek_row(out, focus, kind, name, flat, cum, weight, inl):
    out["focus"].append(focus)
    out["kind"].append(kind)
    out["name"].append(name)
    out["flat"].append(flat)
    out["cum"].append(cum)
    out["weight"].append(weight)
    out["inline"].append(inl)


def _peek_text(t: ReportTable, n: Optional[int]) -> str:
    sep = "----------------------------------------------------------+-------------"
    m = t.meta
    su, ou, tot = m["sample_unit"], m["unit"], m["total"]
    fmt = lambda v: _units.scaled_label(int(v), su, ou)  # noqa: E731
    lines = list(t.header)
    lines.append(sep)
    lines.append("      flat  flat%   sum%        cum   cum%   calls calls% + context \t \t ")
    flat_sum = 0
    cum_of = {}
    for i in range(len(t)):
        if t["kind"][i] == "node":
            cum_of[t["focus"][i]] = int(t["cum"][i])
    for i in range(len(t)):
        kind, name = t["kind"][i], t["name"][i]
        if kind == "node":
            flat, cum = int(t["flat"][i]), int(t["cum"][i])
            flat_sum += flat
            lines.append(f"{fmt(flat):>10} {_pct(flat, tot)} {_pct(flat_sum, tot)} {fmt(cum):>10} {_pct(cum, tot)}"
                         f"                | {name}")
        else:
            if kind == "caller" and (i == 0 or t["kind"][i - 1] == "callee" or t["kind"][i - 1] == "node"):
                lines.append(sep)
            w = int(t["weight"][i])
            inl = " (inline)" if t["inline"][i] else ""
            lines.append(f"{fmt(w):>50} {_pct(w, cum_of[t['focus'][i]])} |   {name}{inl}")
        if kind == "node" and (i == 0 or t["kind"][i - 1] != "caller"):
            # a node without callers still starts a new block
            lines.insert(len(lines) - 1, sep)
    if len(t):
        lines.append(sep)
    return "\n".join(lines)


# ---------------------------------------------------------------------- traces
def traces(profile: "Profile", sample_type=None, mean: bool = False, unit: Optional[str] = None,
           by: str = "functions") -> ReportTable:
    """pprof's -traces: every distinct sample's stack, frames named at
    granularity ``by`` (``"addresses"`` prefixes each frame with its address)."""
    # pprof's driver merges every profile it loads (profile.Merge), which makes
    # locations of equal content one location: samples whose stacks differ only
    # in location ids become one trace.
    # The totals and header stay those of the profile as given (a filtered one
    # remembers its unfiltered total).
    given, profile = profile, profile.compact()
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, True, ti)
    cols = t.columns()
    names = t.printable_names()
    lno, ln = cols["loc_node_offsets"], cols["loc_nodes"]
    # pprof merges identical samples (same stack and labels) before reporting
    gid = _core.sample_group_ids(profile._core)
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
    tot = report_total(given, ti, mean, False)
    su = profile.sample_types[ti][1]
    ou = unit or "minimum"  # pprof scales each trace's value on its own
    counts = np.bincount(sample_pos, minlength=len(rep)) if len(sample_pos) else np.zeros(len(rep), np.int64)
    fstarts = np.cumsum(counts) - counts
    frames = {
        "sample": rep[sample_pos] if len(sample_pos) else np.zeros(0, np.int64),
        "depth": np.arange(len(sample_pos), dtype=np.int64) - fstarts[sample_pos] if len(sample_pos)
        else np.zeros(0, np.int64),
        "value": v[sample_pos] if len(sample_pos) else np.zeros(0, np.int64),
        "name": [names[i] for i in node.tolist()],
        "inline": is_inline,
    }
    header = header_lines(given, ti, mean, tot, ou)
    meta = {"sample_unit": su, "unit": ou, "profile": profile, "total": tot}
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
        out[s] = sorted(f"{k:>10}:  {' '.join(v)}" for k, v in svals.items()) + \
            sorted(f"{k:>10}:  {' '.join(v)}" for k, v in nvals.items())
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
            vs = _units.scaled_label(int(value[i]), su, ou)
        else:
            vs = ""
        lines.append(f"{vs:>10}   {names[i]}{' (inline)' if inl[i] else ''}")
    lines.append(sep)
    return "\n".join(lines)


# ------------------------------------------------------------------------ tags
def num_label_units(profile: "Profile") -> Dict[str, str]:
    """pprof's unit per numeric label key: the first unit seen, else inferred
    from the key (``alignment``/``request`` -> bytes, otherwise the key itself)."""
    lab = profile.labels
    numeric = lab.str < 0
    out: Dict[str, str] = {}
    keys = np.unique(lab.key[numeric])
    for k in keys.tolist():
        units = lab.num_unit[numeric & (lab.key == k)]
        units = units[units != 0]
        name = profile.strings[k]
        if len(units):
            out[name] = profile.strings[int(units[0])]
        else:
            out[name] = "bytes" if name in ("alignment", "request") else name
    return out


def tags(profile: "Profile", sample_type=None, unit: Optional[str] = None,
         relative_percentages: bool = False) -> ReportTable:
    """pprof's -tags (current upstream format): per label key and value, the
    total of one sample type and its share of the report total."""
    ti = profile.sample_type_index(sample_type)
    report_tot = report_total(profile, ti, False, relative_percentages)
    lab = profile.labels
    su = profile.sample_types[ti][1]
    ou = unit or "minimum"
    v = profile.values[:, ti]
    sample = np.repeat(np.arange(len(profile), dtype=np.int64), np.diff(profile.label_offsets))
    # pprof's driver always runs its name filter, which drops samples without
    # locations before any report (profile.FilterSamplesByName); only their tags show.
    on_stack = (np.diff(profile.stack_offsets) > 0)[sample]
    sums: Dict[str, Dict[str, int]] = {}
    strings = profile.strings
    if on_stack.any():
        keys, strs, nums = lab.key[on_stack], lab.str[on_stack], lab.num[on_stack]
        w = v[sample[on_stack]]
        is_str = strs >= 0
        if is_str.any():
            pairs = np.stack([keys[is_str], strs[is_str]], axis=1)
            uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
            tot = np.zeros(len(uniq), dtype=np.int64)
            np.add.at(tot, inv.reshape(-1), w[is_str])
            for (k, s_), t_ in zip(uniq.tolist(), tot.tolist()):
                d = sums.setdefault(strings[k], {})
                d[strings[s_]] = d.get(strings[s_], 0) + t_
        if (~is_str).any():
            units = num_label_units(profile)
            pairs = np.stack([keys[~is_str], nums[~is_str]], axis=1)
            uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
            tot = np.zeros(len(uniq), dtype=np.int64)
            np.add.at(tot, inv.reshape(-1), w[~is_str])
            for (k, val), t_ in zip(uniq.tolist(), tot.tolist()):
                key = strings[k]
                text = _units.scaled_label(val, units.get(key, key), ou)
                d = sums.setdefault(key, {})
                d[text] = d.get(text, 0) + t_
    cols: Dict[str, list] = {"key": [], "value": [], "total": [], "share": []}
    key_totals = {}
    for key in sorted(sums):
        items = sorted(sums[key].items(), key=lambda kv: (-abs(kv[1]), kv[0]))
        ktot = sum(x for _, x in items)
        key_totals[key] = ktot
        for val, x in items:
            cols["key"].append(key)
            cols["value"].append(val)
            cols["total"].append(x)
            cols["share"].append(abs(x / report_tot) * 100 if report_tot else 0.0)
    table = {"key": cols["key"], "value": cols["value"], "total": np.asarray(cols["total"], dtype=np.int64),
             "share": np.asarray(cols["share"], dtype=np.float64)}
    meta = {"sample_unit": su, "unit": ou, "key_totals": key_totals, "total": report_tot}
    return ReportTable(table, [], _tags_text, meta)


def _tags_text(t: ReportTable, n: Optional[int]) -> str:
    # pprof prints through a right-aligned tabwriter (padding 1): per key, a
    # "key:" cell then one "value (share):" cell per row, each column padded to
    # its widest cell + 1. Values and shares are of the report total.
    m = t.meta
    su, ou, tot = m["sample_unit"], m["unit"], m["total"]
    fmt = lambda v: _units.scaled_label(int(v), su, ou)  # noqa: E731
    pct = lambda v: f" ({_units.percentage(int(v), tot)})" if tot else ""  # noqa: E731
    blocks = []
    for i in range(len(t)):
        key = t["key"][i]
        if not blocks or blocks[-1][0] != key:
            ktot = m["key_totals"][key]
            blocks.append((key, f"{key}:", f" Total {fmt(ktot)} of {fmt(tot)}{pct(ktot)}", []))
        blocks[-1][3].append((f"{fmt(t['total'][i])}{pct(t['total'][i])}:", f" {t['value'][i]}"))
    lines = []
    for _, head, tail, rows in blocks:
        w0 = max([len(head), 1]) + 1
        w1 = max(len(c) for c, _ in rows) + 1
        lines.append(head.rjust(w0) + tail)
        for cell, rest in rows:
            lines.append(" ".rjust(w0) + cell.rjust(w1) + rest)
        lines.append("")
    return "\n".join(lines)


# -------------------------------------------------------------------- by_label
def by_label(profile: "Profile", key: str) -> ReportTable:
    from ._dataframes import _label_columns, _value_names

    cols = _label_columns(profile)
    c = cols.get(key)
    n = len(profile)
    if c is None:
        group_codes = np.full(n, -1, dtype=np.int64)
        labels_of = {}
    elif hasattr(c, "codes"):
        group_codes = c.codes.astype(np.int64)
        labels_of = None
    else:
        vals, mask = c
        group_codes = np.where(mask, np.iinfo(np.int64).min, vals)
        labels_of = "num"
    uniq, inv = np.unique(group_codes, return_inverse=True)
    inv = inv.reshape(-1)
    out: Dict[str, object] = {}
    if labels_of is None:
        out[key] = [None if u < 0 else c.categories[u] for u in uniq.tolist()]
    elif labels_of == "num":
        out[key] = [None if u == np.iinfo(np.int64).min else str(u) for u in uniq.tolist()]
    else:
        out[key] = [None for _ in uniq.tolist()]
    counts = np.bincount(inv, minlength=len(uniq)).astype(np.int64)
    out["num_samples"] = counts
    for i, name in enumerate(_value_names(profile)):
        s = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(s, inv, profile.values[:, i])
        out[name] = s
    return ReportTable(out, [f"Totals by label {key!r} (None = samples without it)"])
