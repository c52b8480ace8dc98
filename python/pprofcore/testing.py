"""Assertions and statistics for tests that check profiles.

- :func:`canonical`: a profile's samples as ``{(stack, labels): values}`` with
  every reference spelled out as content, so two profiles built differently
  (merged, re-encoded, written by another tool) compare equal when they say
  the same thing.
- :func:`assert_profile_equal`: canonical comparison with tolerances; the
  failure message lists the first differences in a fixed order.
- :func:`assert_share`: bound the share of the total spent in frames whose
  name matches a regex.
- :func:`assert_no_regression`: compare a profile with a baseline key by key
  (function, file, line ...) and fail on keys that grew.
- :func:`compare` and :func:`assert_no_significant_regression`: the same
  question asked of two *groups* of repeated runs, with a two-sample test per
  key and Benjamini-Hochberg control of false discoveries.

Aggregation runs in the C++ core (``_core.aggregate``, pprof's report nodes);
everything here works on whole NumPy columns, never sample by sample. Names
are pprof's report names at the chosen granularity (what ``Profile.top``
shows). The pytest side (fixtures, ``--pprof-update-baselines``, explanations
of failed ``==``) is in :mod:`pprofcore._pytest`.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _stats, _units
from .reports.table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

__all__ = [
    "assert_no_regression",
    "assert_no_significant_regression",
    "assert_profile_equal",
    "assert_share",
    "canonical",
    "compare",
    "profile_differences",
    "regression_table",
    "table_differences",
]

GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses")
TESTS = ("mannwhitney", "welch")
MAX_DIFFERENCES = 10  # differences listed in a failure message before "... and N more"
MAX_FRAMES = 5  # matching frames listed by assert_share
MAX_REGRESSION_ROWS = 20  # rows of assert_no_regression's message when there are more than twice as many
_HEADER_FIELDS = (
    "period_type",
    "period",
    "time_nanos",
    "duration_nanos",
    "comments",
    "drop_frames",
    "keep_frames",
    "default_sample_type",
    "doc_url",
)


# ================================================================ canonical form
class _SampleKeys:
    """Per sample, an id of its content (stack spelled out + sorted labels);
    ``keys[id]`` is the content as nested tuples."""

    def __init__(self, p: "Profile", names_only: bool):
        strs = p._core.string_list()
        loc_keys = _location_keys(p, strs, names_only)
        loc_id = _intern(loc_keys)
        lab_keys, lab_row_key = _label_keys(p, strs)
        lab_id = _intern(lab_keys)  # ids keep the content order of lab_keys
        n = len(p)
        so, sl, lo = p.stack_offsets, p.stack_locations, p.label_offsets
        depth, nlab = np.diff(so), np.diff(lo)
        loc_cid = np.asarray(loc_id[0], dtype=np.int64)[sl] if len(sl) else np.zeros(0, np.int64)
        lab_cid = np.asarray(lab_id[0], dtype=np.int64)[lab_row_key] if len(lab_row_key) else np.zeros(0, np.int64)
        # Labels compare as a set: sort each sample's label ids.
        lab_sample = np.repeat(np.arange(n), nlab)
        lab_cid = lab_cid[np.lexsort((lab_cid, lab_sample))]
        dmax = int(depth.max()) if n else 0
        lmax = int(nlab.max()) if n else 0
        # One row per sample: stack ids then label ids, padded with -1; a
        # row's content is its identity, so np.unique groups equal samples.
        m = np.full((n, dmax + lmax + 1), -1, dtype=np.int64)
        m[:, 0] = depth
        if len(sl):
            m[np.repeat(np.arange(n), depth), 1 + np.arange(len(sl)) - np.repeat(so[:-1], depth)] = loc_cid
        if len(lab_cid):
            m[lab_sample, 1 + dmax + np.arange(len(lab_cid)) - np.repeat(lo[:-1], nlab)] = lab_cid
        if n:
            uniq, inv = np.unique(m, axis=0, return_inverse=True)
        else:
            uniq, inv = m, np.zeros(0, np.int64)
        self.inverse = np.asarray(inv, dtype=np.int64).reshape(-1)
        locs, labs = loc_id[1], lab_id[1]
        self.keys = [
            (tuple(locs[c] for c in row[1 : 1 + row[0]]), tuple(labs[c] for c in row[1 + dmax :] if c >= 0))
            for row in uniq.tolist()
        ]


def _intern(keys: list) -> Tuple[List[int], list]:
    """(id per item, distinct items) with equal items sharing an id."""
    ids: Dict[object, int] = {}
    per = [ids.setdefault(k, len(ids)) for k in keys]
    return per, list(ids)


def _location_keys(p: "Profile", strs: List[str], names_only: bool) -> list:
    """Per location row, its content: lines (function name, system name, file,
    line; leaf-most inline frame first) and, unless ``names_only``, the
    address relative to its mapping, the mapping's build id (or file) and the
    folded flag. With ``names_only`` a line is (function name, line)."""
    fn, ln, loc = p.functions, p.lines, p.locations
    lo = loc.line_offsets.tolist()
    if names_only:
        fkeys = [strs[a] for a in fn.name.tolist()]
        lkeys = [(fkeys[f], l) for f, l in zip(ln.function.tolist(), ln.line.tolist())]
        return [tuple(lkeys[lo[i] : lo[i + 1]]) for i in range(len(loc))]
    fkeys3 = [
        (strs[a], strs[b], strs[c]) for a, b, c in zip(fn.name.tolist(), fn.system_name.tolist(), fn.filename.tolist())
    ]
    lkeys = [fkeys3[f] + (l,) for f, l in zip(ln.function.tolist(), ln.line.tolist())]
    mp = p.mappings
    maps = [
        (strs[b] or strs[f], s) for f, b, s in zip(mp.filename.tolist(), mp.build_id.tolist(), mp.memory_start.tolist())
    ]
    out = []
    for i, (m, addr, folded) in enumerate(zip(loc.mapping.tolist(), loc.address.tolist(), loc.is_folded.tolist())):
        mk = None
        if m >= 0:
            mk, start = maps[m]
            addr = (addr - start) % (1 << 64)
        out.append((addr, mk, bool(folded), tuple(lkeys[lo[i] : lo[i + 1]])))
    return out


def _label_keys(p: "Profile", strs: List[str]) -> Tuple[list, np.ndarray]:
    """(content of each distinct label row, index of each row into it); a
    label is (key, string value or None, number, number unit)."""
    lab = p.labels
    if len(lab.key) == 0:
        return [], np.zeros(0, np.int64)
    is_num = lab.str < 0
    rows = np.stack(
        [
            lab.key.astype(np.int64),
            lab.str.astype(np.int64),
            np.where(is_num, lab.num, 0),
            np.where(is_num, lab.num_unit, 0),
        ],
        axis=1,
    )
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    keys = [(strs[k], strs[s] if s >= 0 else None, n, strs[u]) for k, s, n, u in uniq.tolist()]
    # Rank the distinct labels by content, so that sorting a sample's label
    # ids sorts its labels the same way in every profile.
    rank = sorted(range(len(keys)), key=lambda i: (keys[i][0], keys[i][1] is None, keys[i][1] or "") + keys[i][2:])
    keys = [keys[i] for i in rank]
    where = np.empty(len(rank), dtype=np.int64)
    where[rank] = np.arange(len(rank))
    return keys, where[np.asarray(inv, dtype=np.int64).reshape(-1)]


def _sum_by(inverse: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """Rows of ``values`` summed per group id."""
    out = np.zeros((groups, values.shape[1]), dtype=values.dtype)
    if len(inverse):
        order = np.argsort(inverse, kind="stable")
        g = inverse[order]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        out[g[starts]] = np.add.reduceat(values[order], starts, axis=0)
    return out


def canonical(profile: "Profile", *, names_only: bool = False, sample_types: Optional[Sequence[str]] = None) -> dict:
    """The samples of ``profile`` as ``{(stack, labels): values}``.

    ``stack`` is a tuple of locations, leaf first, each spelled out as content:
    ``(address relative to its mapping, mapping build id or file, is_folded,
    lines)`` with lines ``(function name, system name, file, line)``, leaf-most
    inline frame first. ``names_only=True`` keeps only ``(function name, line)``
    per line (use it to compare with tools that rewrite addresses or mappings).
    ``labels`` is the sorted tuple of ``(key, string or None, number, unit)``.
    Samples with equal keys are summed (pprof merges them too), and keys whose
    values are all zero are left out. ``values`` is a tuple of ints, one per
    sample type (or per name in ``sample_types``).

    Two profiles with the same canonical form say the same thing, whatever
    their ids, table order, sample order or string table. Grouping is
    vectorised; only the distinct locations, labels and keys are visited in
    Python.
    """
    keys = _SampleKeys(profile, names_only)
    values = _select_values(profile, sample_types)
    sums = _sum_by(keys.inverse, values, len(keys.keys))
    nonzero = np.flatnonzero(sums.any(axis=1))
    rows = sums[nonzero].tolist()
    return {keys.keys[i]: tuple(r) for i, r in zip(nonzero.tolist(), rows)}


def _select_values(p: "Profile", sample_types: Optional[Sequence[str]]) -> np.ndarray:
    v = np.asarray(p.values)
    if sample_types is None:
        return v
    return v[:, [p.sample_type_index(t) for t in sample_types]]


# ============================================================= profile equality
def _describe_key(key, limit: int = 4) -> str:
    """A short text for a (full, not ``names_only``) canonical key:
    leaf <- caller <- ... {labels}."""
    stack, labels = key
    names: List[str] = []
    for loc in stack:
        addr, _, _, lines = loc
        if lines:
            names.extend(ln[0] or "?" for ln in lines)
        else:
            names.append(f"0x{addr:x}")
    text = " <- ".join(names[:limit]) + (f" <- ... ({len(names) - limit} more)" if len(names) > limit else "")
    if not names:
        text = "(empty stack)"
    if labels:
        text += " {" + ", ".join(f"{k}={s if s is not None else f'{n}{u}'}" for k, s, n, u in labels) + "}"
    return text


def _header(p: "Profile") -> dict:
    out = {f: getattr(p, f) for f in _HEADER_FIELDS}
    if out["period_type"] == ("", ""):  # empty and absent are the same to pprof
        out["period_type"] = None
    return out


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Per row: every value within ``atol + rtol * |b|`` (exact for integers when both are 0)."""
    if rtol == 0 and atol == 0:
        return (a == b).all(axis=1)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    return (np.abs(a - b) <= atol + rtol * np.abs(b)).all(axis=1)


def profile_differences(
    a: "Profile",
    b: "Profile",
    *,
    check_order: bool = False,
    rtol: float = 0,
    atol: float = 0,
    sample_types: Optional[Sequence[str]] = None,
) -> List[str]:
    """Every difference between the canonical contents of ``a`` and ``b``, in a
    fixed order: sample types, header fields, then samples (the largest value
    differences first). Empty when they are equal. See :func:`assert_profile_equal`."""
    out: List[str] = []
    if sample_types is None:
        if a.sample_types != b.sample_types:
            out.append(f"sample_types: {a.sample_types} != {b.sample_types}")
            return out  # values are not comparable column by column
        types = None
        names = [t for t, _ in a.sample_types]
    else:
        types = list(sample_types)
        names = types
        for side, p in (("left", a), ("right", b)):
            have = [t for t, _ in p.sample_types]
            missing = [t for t in types if t not in have]
            if missing:
                out.append(f"sample_types: {side} has no {', '.join(missing)} (it has {have})")
        if out:
            return out
    ha, hb = _header(a), _header(b)
    out += [f"{f}: {ha[f]!r} != {hb[f]!r}" for f in _HEADER_FIELDS if ha[f] != hb[f]]
    if check_order:
        out += _ordered_differences(a, b, types, names, rtol, atol)
    else:
        out += _content_differences(a, b, types, names, rtol, atol)
    return out


def _fmt_values(names: List[str], v) -> str:
    return "(" + ", ".join(f"{n}={int(x) if float(x).is_integer() else x}" for n, x in zip(names, v)) + ")"


def _content_differences(a, b, types, names, rtol, atol) -> List[str]:
    ca, cb = canonical(a, sample_types=types), canonical(b, sample_types=types)
    keys = list(dict.fromkeys(list(ca) + list(cb)))
    width = len(names)
    zero = (0,) * width
    va = np.array([ca.get(k, zero) for k in keys], dtype=np.int64).reshape(-1, width)
    vb = np.array([cb.get(k, zero) for k in keys], dtype=np.int64).reshape(-1, width)
    bad = np.flatnonzero(~_close(va, vb, rtol, atol))
    if len(bad) == 0:
        return []
    size = np.abs(va[bad].astype(np.float64) - vb[bad]).max(axis=1)
    descr = [_describe_key(keys[i]) for i in bad.tolist()]
    order = sorted(range(len(bad)), key=lambda j: (-size[j], descr[j]))
    out = []
    for j in order:
        k = keys[int(bad[j])]
        if k not in cb:
            out.append(f"sample only in left: {descr[j]} {_fmt_values(names, ca[k])}")
        elif k not in ca:
            out.append(f"sample only in right: {descr[j]} {_fmt_values(names, cb[k])}")
        else:
            out.append(f"sample {descr[j]}: {_fmt_values(names, ca[k])} != {_fmt_values(names, cb[k])}")
    return out


def _ordered_differences(a, b, types, names, rtol, atol) -> List[str]:
    out = []
    if len(a) != len(b):
        out.append(f"number of samples: {len(a)} != {len(b)}")
    ka, kb = _SampleKeys(a, False), _SampleKeys(b, False)
    ids: Dict[object, int] = {}
    ida = (
        np.array([ids.setdefault(k, len(ids)) for k in ka.keys], dtype=np.int64)[ka.inverse]
        if len(a)
        else np.zeros(0, np.int64)
    )
    idb = (
        np.array([ids.setdefault(k, len(ids)) for k in kb.keys], dtype=np.int64)[kb.inverse]
        if len(b)
        else np.zeros(0, np.int64)
    )
    n = min(len(a), len(b))
    va, vb = _select_values(a, types)[:n], _select_values(b, types)[:n]
    bad = np.flatnonzero((ida[:n] != idb[:n]) | ~_close(va, vb, rtol, atol))
    for i in bad[: MAX_DIFFERENCES + 1].tolist():
        da, db = _describe_key(ka.keys[ka.inverse[i]]), _describe_key(kb.keys[kb.inverse[i]])
        if da == db and ida[i] == idb[i]:
            out.append(f"sample {i} ({da}): {_fmt_values(names, va[i])} != {_fmt_values(names, vb[i])}")
        else:
            out.append(f"sample {i}: {da} {_fmt_values(names, va[i])} != {db} {_fmt_values(names, vb[i])}")
    # Count the rest without describing them (messages stop long before).
    out += ["(another sample difference)"] * max(0, len(bad) - MAX_DIFFERENCES - 1)
    return out


def _cap(lines: List[str], limit: int = MAX_DIFFERENCES) -> List[str]:
    if len(lines) <= limit:
        return list(lines)
    return list(lines[:limit]) + [f"... and {len(lines) - limit} more"]


def assert_profile_equal(
    a: "Profile",
    b: "Profile",
    *,
    check_order: bool = False,
    rtol: float = 0,
    atol: float = 0,
    sample_types: Optional[Sequence[str]] = None,
) -> None:
    """Assert that two profiles have the same canonical content.

    Compares, in this order: sample types, header fields (period type and
    period, time, duration, comments, drop/keep frames, default sample type,
    doc URL), then the samples as :func:`canonical` spells them (ids, table
    order and string tables do not matter; equal samples are summed).

    Parameters
    ----------
    check_order : bool
        Compare sample by sample in order instead of as a multiset.
    rtol, atol : float
        Values match when ``|left - right| <= atol + rtol * |right|``.
    sample_types : list of str, optional
        Compare only these sample types (by name); the header still counts.

    Raises ``AssertionError`` listing the first differences (largest value
    differences first), then ``... and N more``.
    """
    __tracebackhide__ = True
    diffs = profile_differences(a, b, check_order=check_order, rtol=rtol, atol=atol, sample_types=sample_types)
    if diffs:
        lines = [
            f"Profiles are different ({len(diffs)} difference{'s' if len(diffs) != 1 else ''})",
            f"[left]:  {a!r}",
            f"[right]: {b!r}",
        ]
        lines += ["  " + d for d in _cap(diffs)]
        raise AssertionError("\n".join(lines))


def table_differences(a: ReportTable, b: ReportTable) -> List[str]:
    """Every difference between two :class:`ReportTable` objects, in a fixed
    order: column names, row count, then cells row by row (first rows first)."""
    from .reports.table import column_cells

    out: List[str] = []
    if a.columns != b.columns:
        out.append(f"columns: {a.columns} != {b.columns}")
    if len(a) != len(b):
        out.append(f"number of rows: {len(a)} != {len(b)}")
    shared = [c for c in a.columns if c in b.columns]
    cells = {c: (column_cells(a[c]), column_cells(b[c])) for c in shared}
    key = "name" if "name" in shared else None
    for i in range(min(len(a), len(b))):
        for c in shared:
            x, y = cells[c][0][i], cells[c][1][i]
            if not (x == y or (x != x and y != y)):
                where = f"row {i}" + (f" ({cells[key][0][i]})" if key and c != key else "")
                out.append(f"{where} {c}: {x!r} != {y!r}")
    return out


# ===================================================================== by key
def _check_by(by: str) -> str:
    if by not in GRANULARITIES:
        raise ValueError(f"unknown granularity by={by!r}; expected one of {', '.join(GRANULARITIES)}")
    return by


def _nodes(p: "Profile", by: str):
    """pprof's report nodes of ``p`` at granularity ``by`` (C++), cached on ``p``."""
    key = ("__testing_nodes__", by)
    t = p._tables.get(key)
    if t is None:
        t = p._tables[key] = _core.aggregate(p._core, by, True, -1, -1)
    return t


def _nodes_many(profiles: Sequence["Profile"], by: str) -> list:
    """:func:`_nodes` of every profile; aggregation releases the GIL, so the
    missing tables are built on a thread pool."""
    missing = [p for p in profiles if ("__testing_nodes__", by) not in p._tables]
    if len(missing) > 1:
        with ThreadPoolExecutor(max_workers=min(len(missing), os.cpu_count() or 1)) as pool:
            list(pool.map(lambda p: _nodes(p, by), missing))
    return [_nodes(p, by) for p in profiles]


def _type_index(p: "Profile", sample_type, what: str = "profile") -> int:
    try:
        return p.sample_type_index(sample_type)
    except (ValueError, IndexError, KeyError) as e:
        raise ValueError(f"{what}: {e}") from None


def _total(p: "Profile", ti: int) -> int:
    """pprof's report total: the sum of |value| of one sample type."""
    if len(p) == 0:
        return 0
    return int(np.abs(p.values[:, ti]).sum(dtype=np.int64))


def _segment_any(hit: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment ``offsets[i]:offsets[i+1]``: is any element of ``hit`` set?"""
    c = np.concatenate([[0], np.cumsum(hit, dtype=np.int64)])
    return c[offsets[1:]] > c[offsets[:-1]]


def _compile(regex) -> "re.Pattern[str]":
    if isinstance(regex, re.Pattern):
        return regex
    try:
        return re.compile(regex)
    except re.error as e:
        raise ValueError(f"bad regex {regex!r}: {e}") from None


def _fmt_share(x: float) -> str:
    return f"{100 * x:.2f}%"


def assert_share(
    profile: "Profile",
    regex,
    *,
    max: Optional[float] = None,
    min: Optional[float] = None,
    sample_type: Union[int, str, None] = None,
    by: str = "functions",
    cum: bool = True,
) -> float:
    """Assert bounds on the share of the total spent in frames matching ``regex``.

    The share is the value of the samples with at least one frame whose name
    (pprof's report name at granularity ``by``, searched with :func:`re.search`)
    matches, over the report total (sum of ``|value|``) of ``sample_type`` --
    each sample counted once however many frames match, as pprof's ``cum``.
    With ``cum=False`` only the leaf frame counts (the sum of ``flat``).
    ``max`` and ``min`` are fractions (0.2 = 20%); give at least one.

    Returns the share. The failure message gives the share, the bound and the
    top matching frames.
    """
    __tracebackhide__ = True
    if max is None and min is None:
        raise ValueError("assert_share needs max=, min= or both")
    for name, v in (("max", max), ("min", min)):
        if v is not None and not 0 <= v <= 1:
            raise ValueError(f"{name}={v} is not a fraction between 0 and 1")
    rx = _compile(regex)
    ti = _type_index(profile, sample_type)
    t = _nodes(profile, _check_by(by))
    cols = t.columns()
    names = t.printable_names()
    match = np.fromiter((rx.search(n) is not None for n in names), dtype=bool, count=len(names))
    tot = _total(profile, ti)
    column = "cum" if cum else "flat"
    node_values = cols[column][:, ti]
    if cum:
        loc_hit = _segment_any(match[cols["loc_nodes"]], cols["loc_node_offsets"])
        sample_hit = _segment_any(loc_hit[profile.stack_locations], profile.stack_offsets)
        part = int(np.abs(profile.values[sample_hit, ti]).sum(dtype=np.int64))
    else:
        part = int(np.abs(node_values[match]).sum(dtype=np.int64))
    share = part / tot if tot else 0.0
    low = min is not None and share < min
    high = max is not None and share > max
    if low or high:
        type_name, unit = profile.sample_types[ti]
        bound = f"above max {_fmt_share(max)}" if max is not None and high else f"below min {_fmt_share(min or 0.0)}"
        lines = [
            f"share of {rx.pattern!r} ({by}, {column}) is {_fmt_share(share)} of {type_name}, {bound}"
            f" ({_units.scaled_label(part, unit)} of {_units.scaled_label(tot, unit)})"
        ]
        rows = np.flatnonzero(match & (node_values != 0))
        if len(rows) == 0:
            lines.append(f"no {by} with {column} > 0 match {rx.pattern!r}")
        else:
            rows = rows[np.lexsort((rows, -np.abs(node_values[rows])))]
            lines.append(f"top matching {by} by {column}:")
            for r in rows[:MAX_FRAMES].tolist():
                v = int(node_values[r])
                lines.append(f"  {_units.scaled_label(v, unit):>10} {_fmt_share(v / tot if tot else 0):>8}  {names[r]}")
            if len(rows) > MAX_FRAMES:
                lines.append(f"  ... and {len(rows) - MAX_FRAMES} more")
        raise AssertionError("\n".join(lines))
    return share


# ---------------------------------------------------------------- regressions
def _resolve_type(profiles: Sequence["Profile"], sample_type) -> Tuple[str, str, List[int]]:
    """(type name, unit, index per profile) of one sample type across profiles,
    chosen in the first profile (pprof's default when ``sample_type`` is None)
    and found by name in the others."""
    first = profiles[0]
    ti = _type_index(first, sample_type, "profile 0")
    name, unit = first.sample_types[ti]
    idx = [ti]
    for i, p in enumerate(profiles[1:], start=1):
        have = dict(p.sample_types)
        if name not in have:
            raise ValueError(f"profile {i} has no sample type {name!r} (it has {[t for t, _ in p.sample_types]})")
        if have[name] != unit:
            raise ValueError(f"profile {i}: sample type {name!r} is in {have[name]!r}, profile 0 in {unit!r}")
        idx.append(_type_index(p, name, f"profile {i}"))
    return name, unit, idx


def _key_matrix(
    profiles: Sequence["Profile"], type_idx: List[int], by: str, cum: bool
) -> Tuple[List[str], np.ndarray, np.ndarray]:
    """(key names, values: profiles x keys float64, totals per profile): every
    profile's pprof report nodes at granularity ``by``, aligned by name."""
    column = "cum" if cum else "flat"
    per: List[Tuple[np.ndarray, np.ndarray]] = []
    index: Dict[str, int] = {}
    add = index.setdefault
    for t, ti in zip(_nodes_many(profiles, by), type_idx):
        names = t.printable_names()
        # One dict operation per name: its column, new names appended.
        pos = np.fromiter([add(n, len(index)) for n in names], dtype=np.int64, count=len(names))
        per.append((pos, t.columns()[column][:, ti]))
    keys = list(index)
    m = np.zeros((len(profiles), len(keys)), dtype=np.float64)
    for row, (pos, vals) in enumerate(per):
        m[row] = np.bincount(pos, weights=vals.astype(np.float64), minlength=len(keys))
    totals = np.array([_total(p, ti) for p, ti in zip(profiles, type_idx)], dtype=np.float64)
    return keys, m, totals


def _as_shares(m: np.ndarray, totals: np.ndarray) -> np.ndarray:
    safe = np.where(totals == 0, 1.0, totals)
    return np.where(totals[:, None] == 0, 0.0, m / safe[:, None])


MEASURES = ("flat", "cum")


def _regressed(b, n, shares, rel, abs, min_share) -> np.ndarray:
    """Per key: held ``min_share`` in either profile and grew by the rule."""
    delta = n - b
    grew = (np.maximum(shares[0], shares[1]) >= min_share) & (delta > 0)
    if rel is not None:
        grew &= delta > rel * np.abs(b)
    if abs is not None:
        grew &= delta > abs
    return grew


def regression_table(
    base: "Profile",
    new: "Profile",
    *,
    rel: Optional[float] = 0.1,
    abs: Optional[float] = None,
    min_share: float = 0.01,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    normalize: bool = True,
    cum: bool = False,
) -> ReportTable:
    """The keys that regressed from ``base`` to ``new`` under
    :func:`assert_no_regression`'s rules, in ``flat`` or in ``cum``, as a
    :class:`ReportTable`.

    Columns: ``name``; ``flat_base, flat_new, flat_delta, flat_delta%`` and
    the same for ``cum`` (shares when ``normalize``, else values in the sample
    type's unit; ``delta%`` is ``inf`` for keys absent from ``base``); and
    ``regressed``: ``"flat"``, ``"cum"`` or ``"flat,cum"``, the measures in
    which the key broke the rule. Rows are ranked by the larger of their flat
    and cum change, so a function that grew through its callees (its cum)
    comes before the leaves that grew a little each. ``cum`` picks the
    measure that fails :func:`assert_no_regression` (``meta["failures"]``
    counts those keys); the other measure's keys are listed to explain."""
    _check_by(by)
    if rel is not None and rel < 0 or abs is not None and abs < 0:
        raise ValueError("rel and abs must be >= 0")
    name, unit, idx = _resolve_type([base, new], sample_type)
    columns: Dict[str, object] = {}
    per = {}
    for measure in MEASURES:
        keys, m, totals = _key_matrix([base, new], idx, by, measure == "cum")
        shares = _as_shares(m, totals)
        vals = shares if normalize else m
        per[measure] = (vals[0], vals[1], _regressed(vals[0], vals[1], shares, rel, abs, min_share))
    hit = per["flat"][2] | per["cum"][2]
    rows = np.flatnonzero(hit)
    change = np.maximum(per["flat"][1] - per["flat"][0], per["cum"][1] - per["cum"][0])
    rows = rows[np.lexsort((rows, -change[rows]))]
    columns["name"] = [keys[i] for i in rows.tolist()]
    for measure in MEASURES:
        b, n, _ = per[measure]
        delta = n[rows] - b[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            pct = np.where(b[rows] != 0, delta / np.abs(b[rows]) * 100, np.where(delta != 0, np.inf, 0.0))
        columns.update(
            {f"{measure}_base": b[rows], f"{measure}_new": n[rows], f"{measure}_delta": delta, f"{measure}_delta%": pct}
        )
    columns["regressed"] = [",".join(m for m in MEASURES if per[m][2][i]) for i in rows.tolist()]
    gate = "cum" if cum else "flat"
    failures = int(per[gate][2].sum())
    rule = []
    if rel is not None:
        rule.append(f"delta > {rel:.0%} of base")
    if abs is not None:
        rule.append(f"delta > {_fmt_share(abs) if normalize else _units.scaled_label(abs, unit)}")
    other = len(rows) - failures
    header = [
        f"{failures} of {len(keys)} {by} regressed ({gate} {name}"
        f"{' share' if normalize else ''}; {' and '.join(rule) or 'any growth'};"
        f" holding >= {_fmt_share(min_share)})"
        + (f"; {other} more grew in {'flat' if cum else 'cum'} only" if other else "")
        + ("; ranked by the larger of the flat and cum change" if len(rows) else "")
    ]
    meta = {
        "sample_type": name,
        "sample_unit": unit,
        "normalize": normalize,
        "granularity": by,
        "cum": cum,
        "failures": failures,
    }
    return ReportTable(columns, header, _regression_text, meta)


def _value_format(t: ReportTable, digits: int) -> Callable[..., str]:
    """Formats a value of ``t``: a share in % with ``digits`` decimals when the
    table is normalized, else in the sample type's unit; ``sign`` adds a "+"."""
    norm, unit = t.meta["normalize"], t.meta["sample_unit"]

    def fmt(v: float, sign: bool = False) -> str:
        s = f"{100 * v:.{digits}f}%" if norm else _units.scaled_label(v, unit)
        return ("+" + s) if sign and v > 0 else s

    return fmt


def _table_text(t: ReportTable, n: Optional[int], names: List[str], row: Callable[[int], List[str]]) -> str:
    """The header, then the first ``n`` rows (all when None) as aligned cells."""
    rows = len(t) if n is None else min(n, len(t))
    cells = [names] + [row(i) for i in range(rows)]
    return "\n".join(list(t.header) + _align(cells) + ([f"... {len(t) - rows} more rows"] if rows < len(t) else []))


def _regression_text(t: ReportTable, n: Optional[int]) -> str:
    fmt = _value_format(t, 2)

    def pct(p: float) -> str:
        return "new" if np.isinf(p) else f"{p:+.1f}%"

    def row(i: int) -> List[str]:
        cells = [t["name"][i]]
        for m in MEASURES:
            cells += [
                fmt(float(t[f"{m}_base"][i])),
                fmt(float(t[f"{m}_new"][i])),
                fmt(float(t[f"{m}_delta"][i]), True),
                pct(float(t[f"{m}_delta%"][i])),
            ]
        return cells + [t["regressed"][i]]

    names = ["name"] + [f"{m} {c}" for m in MEASURES for c in ("base", "new", "delta", "delta %")] + ["regressed"]
    return _table_text(t, n, names, row)


def _align(cells: List[List[str]]) -> List[str]:
    """Rows of text cells: the first column left-aligned, the others right."""
    widths = [np.max([len(r[j]) for r in cells]) for j in range(len(cells[0]))]
    return [
        "  " + "  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in cells
    ]


def assert_no_regression(
    base: "Profile",
    new: "Profile",
    *,
    rel: Optional[float] = 0.1,
    abs: Optional[float] = None,
    min_share: float = 0.01,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    normalize: bool = True,
    cum: bool = False,
) -> None:
    """Assert that no key (function, file, line ... per ``by``) grew from
    ``base`` to ``new``.

    A key fails when it holds at least ``min_share`` of the total in either
    profile and its value grew by more than ``rel`` times its base value (and,
    when given, by more than ``abs``). With ``normalize`` (default) values are
    shares of each profile's total, so a longer run is not a regression and
    ``abs`` is a share (0.01 = one percentage point); otherwise values are in
    the sample type's unit. ``cum=False`` compares ``flat`` values (time in
    the function itself), ``cum=True`` ``cum``. ``rel=None`` checks ``abs``
    only. Keys absent from ``base`` that reach ``min_share`` fail as new.

    The message is the table of :func:`regression_table`: every offender
    with its flat and cum base, new, delta and delta %, and the keys that
    broke the rule in the other measure (a function slowed down through its
    callees grows in cum, not in flat), ranked by the larger change; the
    first 20 rows when there are more than 40.
    """
    __tracebackhide__ = True
    t = regression_table(
        base, new, rel=rel, abs=abs, min_share=min_share, by=by, sample_type=sample_type, normalize=normalize, cum=cum
    )
    if t.meta["failures"]:
        # callers of a regressed leaf all grow in cum: the first rows tell the story
        raise AssertionError(
            "Profile regressed\n" + t.to_text(n=MAX_REGRESSION_ROWS if len(t) > 2 * MAX_REGRESSION_ROWS else None)
        )


# ================================================================== statistics
def compare(
    base: Sequence["Profile"],
    new: Sequence["Profile"],
    *,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    cum: bool = False,
    normalize: bool = True,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    min_share: float = 0.001,
) -> ReportTable:
    """Compare two groups of repeated profiles key by key, with statistics.

    For every key (pprof's report node at granularity ``by``) holding a value
    in some profile: the mean per group of its share of each profile's total
    (``normalize=True``) or of its value, ``delta = new - base``, the
    ``(1 - alpha)`` confidence interval of ``delta`` (Welch's t interval), a
    two-sided p-value from ``test`` (``"mannwhitney"``: Mann-Whitney U with
    tie correction, normal approximation; ``"welch"``: Welch's t-test), the
    Benjamini-Hochberg q-value over all keys, and ``significant = q < alpha``
    (the false discovery rate is held at ``alpha``).

    Keys whose mean share over all profiles of both groups is below
    ``min_share`` (default 0.1%) are listed but not tested (``pvalue``,
    ``qvalue`` NaN): a handful of samples cannot show a change, and leaving
    them out of the Benjamini-Hochberg family keeps the power for the keys
    that can. The filter does not look at the groups, so the false
    discovery rate still holds (independent filtering).

    Both groups need at least two profiles. Returns a :class:`ReportTable`
    with columns ``name, base, new, delta, ci_low, ci_high, pvalue, qvalue,
    significant``, most significant first. Everything after the C++
    aggregation is vectorised over keys in NumPy.
    """
    base, new = list(base), list(new)
    if len(base) < 2 or len(new) < 2:
        raise ValueError(f"compare needs at least two profiles per group (got {len(base)} and {len(new)})")
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha} is not between 0 and 1")
    if not 0 <= min_share <= 1:
        raise ValueError(f"min_share={min_share} is not a fraction between 0 and 1")
    _check_by(by)
    name, unit, idx = _resolve_type(base + new, sample_type)
    keys, m, totals = _key_matrix(base + new, idx, by, cum)
    keep = np.flatnonzero(m.any(axis=0))
    m = m[:, keep]
    vals = _as_shares(m, totals) if normalize else m
    a, b = vals[: len(base)], vals[len(base) :]
    mean_a, mean_b = a.mean(axis=0), b.mean(axis=0)
    delta = mean_b - mean_a
    low, high = _stats.welch_interval(a, b, alpha)
    shares = _as_shares(m, totals) if not normalize else vals
    tested = np.flatnonzero(shares.mean(axis=0) >= min_share)
    p = np.full(len(keep), np.nan)
    q = np.full(len(keep), np.nan)
    if len(tested):
        if test == "mannwhitney":
            p[tested] = _stats.mannwhitney(a[:, tested], b[:, tested])[1]
        else:
            p[tested] = _stats.welch(a[:, tested], b[:, tested])[3]
        q[tested] = _stats.bh_qvalues(p[tested])
    sig = q < alpha  # NaN (untested) compares False
    names = [keys[i] for i in keep.tolist()]
    order = np.lexsort((np.arange(len(names)), -np.abs(delta), q))
    columns = {
        "name": [names[i] for i in order.tolist()],
        "base": mean_a[order],
        "new": mean_b[order],
        "delta": delta[order],
        "ci_low": low[order],
        "ci_high": high[order],
        "pvalue": p[order],
        "qvalue": q[order],
        "significant": sig[order],
    }
    label = {"mannwhitney": "Mann-Whitney U", "welch": "Welch's t"}[test]
    header = [
        f"{len(base)} base vs {len(new)} new profiles, {'cum' if cum else 'flat'} {name}"
        f"{' share' if normalize else f' ({unit})'} per {by}; {label}, Benjamini-Hochberg at {alpha:g}:"
        f" {int(sig.sum())} significant of {len(tested)} tested ({len(names) - len(tested)} below"
        f" {_fmt_share(min_share)} not tested)"
    ]
    meta = {
        "sample_type": name,
        "sample_unit": unit,
        "normalize": normalize,
        "granularity": by,
        "test": test,
        "alpha": alpha,
        "cum": cum,
        "n_base": len(base),
        "n_new": len(new),
        "min_share": min_share,
    }
    return ReportTable(columns, header, _compare_text, meta)


def _compare_text(t: ReportTable, n: Optional[int]) -> str:
    fmt = _value_format(t, 3)

    def row(i: int) -> List[str]:
        return [
            t["name"][i],
            fmt(t["base"][i]),
            fmt(t["new"][i]),
            fmt(t["delta"][i], True),
            fmt(t["ci_low"][i], True),
            fmt(t["ci_high"][i], True),
            _fmt_p(t["pvalue"][i]),
            _fmt_p(t["qvalue"][i]),
            "*" if t["significant"][i] else "",
        ]

    return _table_text(t, n, ["name", "base", "new", "delta", "ci_low", "ci_high", "pvalue", "qvalue", "sig"], row)


def _fmt_p(p: float) -> str:
    return "-" if p != p else f"{p:.3g}"


def assert_no_significant_regression(
    base: Sequence["Profile"],
    new: Sequence["Profile"],
    *,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    cum: bool = False,
    normalize: bool = True,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    min_delta: float = 0.0,
    min_share: float = 0.001,
) -> ReportTable:
    """Assert that :func:`compare` finds no key that grew significantly from
    the ``base`` runs to the ``new`` runs (``significant`` and ``delta >
    min_delta``; ``min_delta`` is a share when ``normalize``; ``min_share``
    as in :func:`compare`). Returns the
    comparison on success; the failure message is its table of offenders."""
    __tracebackhide__ = True
    t = compare(
        base,
        new,
        by=by,
        sample_type=sample_type,
        cum=cum,
        normalize=normalize,
        test=test,
        alpha=alpha,
        min_share=min_share,
    )
    bad = np.flatnonzero(np.asarray(t["significant"]) & (np.asarray(t["delta"]) > min_delta))
    if len(bad):
        sub = ReportTable(
            {c: ([t[c][i] for i in bad.tolist()] if isinstance(t[c], list) else t[c][bad]) for c in t.columns},
            list(t.header),
            _compare_text,
            t.meta,
        )
        raise AssertionError(f"{len(bad)} {by} grew significantly\n" + sub.to_text())
    return t
