"""The tags report (label values and their shares) and by_label."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

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
        keys, strs, nums = lab.key[on_stack], lab.str[on_stack], lab.num[on_stack]
        w = lab.values[lab.sample[on_stack], ti]
        is_str = strs >= 0
        if is_str.any():
            for k, s_, t_ in zip(*pair_sums(keys[is_str], strs[is_str], w[is_str])):
                d = sums.setdefault(strings[k], {})
                d[strings[s_]] = d.get(strings[s_], 0) + t_
        if (~is_str).any():
            units = num_label_units(profile)
            for k, val, t_ in zip(*pair_sums(keys[~is_str], nums[~is_str], w[~is_str])):
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
    table = {
        "key": cols["key"],
        "value": cols["value"],
        "total": np.asarray(cols["total"], dtype=np.int64),
        "share": np.asarray(cols["share"], dtype=np.float64),
    }
    meta = {"sample_unit": su, "unit": ou, "key_totals": key_totals, "total": report_tot}
    return ReportTable(table, [], _tags_text, meta)


def pair_sums(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> Tuple[list, list, list]:
    """The distinct ``(a, b)`` pairs, ordered by ``a`` then ``b``, and the exact
    int64 sum of ``w`` over each, as lists. Each column is numbered densely
    first, so a pair is one int64: a row-wise ``np.unique`` sorts bytes and
    took seconds on half a million label rows."""
    ua, ia = dense_codes(a)
    ub, ib = dense_codes(b)
    width = max(len(ub), 1)
    pairs, inv = dense_codes(ia * width + ib)
    tot = np.zeros(len(pairs), dtype=np.int64)
    np.add.at(tot, inv, w.astype(np.int64, copy=False))
    return ua[pairs // width].tolist(), ub[pairs % width].tolist(), tot.tolist()


def dense_codes(x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(values, index)``: the distinct values of ``x`` in order and each
    element's index among them (int64). Small non-negative values (string
    codes, the pairs' numbers) are counted in a table instead of sorted."""
    x = np.asarray(x, dtype=np.int64)
    if len(x) and int(x.min()) >= 0 and int(x.max()) <= 4 * len(x) + 1024:
        seen = np.zeros(int(x.max()) + 1, dtype=bool)
        seen[x] = True
        return np.flatnonzero(seen), (np.cumsum(seen) - 1)[x]
    values, index = np.unique(x, return_inverse=True)
    return values, index.reshape(-1).astype(np.int64, copy=False)


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
