"""The tags report (label values and their shares) and by_label."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

import numpy as np

from .. import _units
from .._frames import label_columns, label_rows, num_label_units, value_names
from .._report_base import report_total
from .._tabular import Codes
from .table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def tags(
    profile: "Profile", sample_type=None, unit: Optional[str] = None, relative_percentages: bool = False
) -> ReportTable:
    """pprof's -tags (current upstream format): per label key and value, the
    total of one sample type and its share of the report total.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.tags(p))  # doctest: +ELLIPSIS
     endpoint: Total 4.05s of 5.03s (80.52%)
               1.91s (37.97%): /api/ingest
    ...
    """
    ti = profile.sample_type_index(sample_type)
    report_tot = report_total(profile, ti, False, relative_percentages)
    lab = label_rows(profile)  # a deferred filter output's are read in its input
    su = profile.sample_types[ti][1]
    ou = unit or "minimum"
    # pprof's driver always runs its name filter, which drops samples without
    # locations before any report (profile.FilterSamplesByName); only their tags show.
    on_stack = lab.on_stack()
    sums: Dict[str, Dict[str, int]] = {}
    strings = profile.strings
    if on_stack.any():
        # the pairs are found once per input profile; a state's tags only sum its rows' values
        index, pairs = lab.pairs()
        at = index[on_stack]
        w = lab.values[lab.sample[on_stack], ti].astype(np.int64, copy=False)
        tot = np.zeros(len(pairs.key), dtype=np.int64)
        np.add.at(tot, at, w)
        present = np.flatnonzero(np.bincount(at, minlength=len(pairs.key)))
        units = num_label_units(profile) if not pairs.is_str[present].all() else {}
        for k, v, is_str, t_ in zip(
            pairs.key[present].tolist(),
            pairs.value[present].tolist(),
            pairs.is_str[present].tolist(),
            tot[present].tolist(),
        ):
            key = strings[k]
            text = strings[v] if is_str else _units.scaled_label(v, units.get(key, key), ou)
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
    table = {
        "key": cols["key"],
        "value": cols["value"],
        "total": np.asarray(cols["total"], dtype=np.int64),
        "share": np.asarray(cols["share"], dtype=np.float64),
    }
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
    blocks: List[Any] = []
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
    """Sample count (``num_samples``) and the total of every sample type per
    value of label ``key``, with a row (value ``None``) for the samples without
    it: :meth:`Profile.by_label`.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> t = pprofcore.reports.by_label(p, "endpoint")
    >>> t["endpoint"][:3], t["cpu"][:3].tolist()
    ([None, '/api/ingest', '/api/hash'], [980000000, 1910000000, 1110000000])
    """

    cols = label_columns(profile)
    c = cols.get(key)
    n = len(profile)
    if c is None:
        group_codes = np.full(n, -1, dtype=np.int64)
        kind = "missing"
    elif isinstance(c, Codes):
        group_codes = c.codes.astype(np.int64)
        kind = "str"
    else:
        vals, mask = c
        group_codes = np.where(mask, np.iinfo(np.int64).min, vals)
        kind = "num"
    uniq, inv = np.unique(group_codes, return_inverse=True)
    inv = inv.reshape(-1)
    out: Dict[str, Any] = {}
    if isinstance(c, Codes):
        out[key] = [None if u < 0 else c.categories[u] for u in uniq.tolist()]
    elif kind == "num":
        out[key] = [None if u == np.iinfo(np.int64).min else str(u) for u in uniq.tolist()]
    else:
        out[key] = [None for _ in uniq.tolist()]
    counts = np.bincount(inv, minlength=len(uniq)).astype(np.int64)
    out["num_samples"] = counts
    for i, name in enumerate(value_names(profile)):
        s = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(s, inv, profile.values[:, i])
        out[name] = s
    return ReportTable(out, [f"Totals by label {key!r} (None = samples without it)"])
