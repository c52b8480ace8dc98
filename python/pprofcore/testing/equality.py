"""Whether two profiles (or two report tables) say the same thing.

Owns :func:`canonical` (samples as ``{(stack, labels): values}`` with every
reference spelled out as content), :func:`profile_differences` and
:func:`table_differences` (every difference in a fixed order, also used by
the pytest plugin to explain a failed ``==``) and :func:`assert_profile_equal`.
Grouping is vectorised; only distinct locations, labels and keys are visited
in Python. Not here: comparisons by key (see :mod:`.regressions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._summary import HEADER_FIELDS
from ..reports.table import ReportTable, column_cells
from . import _format

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


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

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> pprofcore.testing.canonical(p) == pprofcore.testing.canonical(pprofcore.loads(p.to_bytes()))
    True
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
    out = {f: getattr(p, f) for f in HEADER_FIELDS}
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
    differences first). Empty when they are equal. See :func:`assert_profile_equal`.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> pprofcore.testing.profile_differences(p, p)
    []
    >>> print(pprofcore.testing.profile_differences(p, p.scale(2))[1])
    sample main.sortWork <- main.cpuPhase.func2: (samples=2, cpu=20000000) != (samples=4, cpu=40000000)
    """
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
    out += [f"{f}: {ha[f]!r} != {hb[f]!r}" for f in HEADER_FIELDS if ha[f] != hb[f]]
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
    for i in bad[: _format.MAX_DIFFERENCES + 1].tolist():
        da, db = _describe_key(ka.keys[ka.inverse[i]]), _describe_key(kb.keys[kb.inverse[i]])
        if da == db and ida[i] == idb[i]:
            out.append(f"sample {i} ({da}): {_fmt_values(names, va[i])} != {_fmt_values(names, vb[i])}")
        else:
            out.append(f"sample {i}: {da} {_fmt_values(names, va[i])} != {db} {_fmt_values(names, vb[i])}")
    # Count the rest without describing them (messages stop long before).
    out += ["(another sample difference)"] * max(0, len(bad) - _format.MAX_DIFFERENCES - 1)
    return out


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

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> pprofcore.testing.assert_profile_equal(p, pprofcore.loads(p.to_bytes()))
    >>> pprofcore.testing.assert_profile_equal(p, p.scale(2))
    Traceback (most recent call last):
        ...
    AssertionError: Profiles are different (495 differences)
    ...
    """
    __tracebackhide__ = True
    diffs = profile_differences(a, b, check_order=check_order, rtol=rtol, atol=atol, sample_types=sample_types)
    if diffs:
        _format.raise_assertion_error(
            f"Profiles are different ({len(diffs)} difference{'s' if len(diffs) != 1 else ''})",
            [f"[left]:  {a!r}", f"[right]: {b!r}"] + ["  " + d for d in _format.cap_lines(diffs)],
        )


def table_differences(a: ReportTable, b: ReportTable) -> List[str]:
    """Every difference between two :class:`ReportTable` objects, in a fixed
    order: column names, row count, then cells row by row (first rows first).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> pprofcore.testing.table_differences(p.top(n=3), p.top(n=4))
    ['number of rows: 3 != 4']
    """
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
