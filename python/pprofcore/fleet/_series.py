"""Per-profile series: flat or cum per key (function, file, line...) over time.

Each profile is aggregated by the C++ node table that backs ``Profile.top``
(``reports._nodes.nodes``); Python only touches one row per *node*, never a sample.
Sets of files take the C++ path (``_core.series_files``): workers decode and
reduce each file, and only the rows come back.
Names are interned into one category list across the set, so the result is a
compact long DataFrame with a categorical ``name`` column."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional

import numpy as np

from .. import _core
from .._io import failed_on_foreign_file
from .._optional import require_pandas
from ..reports import _nodes

if TYPE_CHECKING:
    from ._set import ProfileSet

VALUES = ("flat", "cum")
NORMALIZE = (None, "share", "rate")


def profile_values(profile, sample_type, by: str, value: str):
    """``(names, values, total, type_name, time_nanos, duration_nanos)`` of one
    profile: the non-zero flat (or cum) value per node at granularity ``by``,
    as ``pprof -top`` computes them, and the total (sum of |value|)."""
    ti = profile.sample_type_index(sample_type)
    t = _nodes.nodes(profile, by, True, ti)
    col = t.columns()[value][:, ti]
    nz = np.flatnonzero(col)
    names = t.printable_names()
    total = int(np.abs(profile.values[:, ti]).sum(dtype=np.int64)) if len(profile) else 0
    return (
        [names[i] for i in nz.tolist()],
        col[nz],
        total,
        profile.sample_types[ti][0],
        profile.time_nanos,
        profile.duration_nanos,
    )


def check_options(by: str, value: str, normalize: Optional[str]) -> None:
    """Raise ``ValueError`` for an unknown granularity, value or normalization."""
    _nodes.check_granularity(by)
    if value not in VALUES:
        raise ValueError(f"value must be 'flat' or 'cum', not {value!r}")
    if normalize not in NORMALIZE:
        raise ValueError(f"normalize must be None, 'share' or 'rate', not {normalize!r}")


class Rows:
    """The rows of a series before they become a DataFrame: one entry per
    (profile, key) with a non-zero value, names interned in order of first
    appearance, and each profile's total, duration and time. A "profile" may
    also be a time bucket (:func:`bucket`). Distributed callers build one per
    chunk of files and :func:`concat` them."""

    __slots__ = ("pos", "codes", "vals", "cats", "totals", "durations", "time_ns", "type_names")

    def __init__(self, pos, codes, vals, cats: List[str], totals, durations, time_ns, type_names: set) -> None:
        self.pos, self.codes, self.vals, self.cats = pos, codes, vals, cats
        self.totals, self.durations, self.time_ns, self.type_names = totals, durations, time_ns, type_names


def collect(results, n: int) -> Rows:
    """:class:`Rows` of ``n`` profiles from ``(position, profile_values(...))`` pairs."""
    index: Dict[str, int] = {}
    cats: List[str] = []
    pos_parts, code_parts, val_parts = [], [], []
    totals = np.zeros(n, dtype=np.int64)
    durations = np.zeros(n, dtype=np.int64)
    time_ns = np.zeros(n, dtype=np.int64)
    type_names = set()
    for i, (names, vals, tot, tname, tns, dns) in results:
        type_names.add(tname)
        totals[i], durations[i], time_ns[i] = tot, dns, tns
        codes = np.empty(len(names), dtype=np.int32)
        for k, name in enumerate(names):  # one per node, not per sample
            c = index.get(name)
            if c is None:
                c = index[name] = len(cats)
                cats.append(name)
            codes[k] = c
        pos_parts.append(np.full(len(names), i, dtype=np.int64))
        code_parts.append(codes)
        val_parts.append(np.asarray(vals, dtype=np.int64))
    pos = np.concatenate(pos_parts) if pos_parts else np.zeros(0, np.int64)
    codes = np.concatenate(code_parts) if code_parts else np.zeros(0, np.int32)
    vals = np.concatenate(val_parts) if val_parts else np.zeros(0, np.int64)
    return Rows(pos, codes, vals, cats, totals, durations, time_ns, type_names)


def concat(parts: List[Rows]) -> Rows:
    """The rows of several sets one after the other (positions shifted, names
    re-interned in order of first appearance)."""
    index: Dict[str, int] = {}
    cats: List[str] = []
    pos, codes, vals, totals, durations, times = [], [], [], [], [], []
    type_names: set = set()
    offset = 0
    for r in parts:
        remap = np.empty(len(r.cats), dtype=np.int32)
        for k, name in enumerate(r.cats):
            c = index.get(name)
            if c is None:
                c = index[name] = len(cats)
                cats.append(name)
            remap[k] = c
        pos.append(r.pos + offset)
        codes.append(remap[r.codes] if len(r.codes) else r.codes.astype(np.int32))
        vals.append(r.vals)
        totals.append(r.totals)
        durations.append(r.durations)
        times.append(r.time_ns)
        type_names |= r.type_names
        offset += len(r.totals)
    cat = lambda xs, dt: np.concatenate(xs) if xs else np.zeros(0, dt)  # noqa: E731
    return Rows(
        cat(pos, np.int64),
        cat(codes, np.int32),
        cat(vals, np.int64),
        cats,
        cat(totals, np.int64),
        cat(durations, np.int64),
        cat(times, np.int64),
        type_names,
    )


def bucket(rows: Rows, freq) -> Rows:
    """Rows summed per time bucket (``freq``): one "profile" per bucket, its
    time the bucket start, its total and duration the sums of its profiles'.
    Profiles without a time are left out; keys whose sum is zero are dropped.
    Bucketing bucketed rows again with the same ``freq`` changes nothing, so
    chunks can be bucketed apart and then together."""
    pd = require_pandas()
    ns = np.where(rows.time_ns == 0, np.iinfo(np.int64).min, rows.time_ns)  # 0 = unknown -> NaT
    floor = pd.Series(pd.to_datetime(ns, unit="ns", utc=True)).dt.floor(freq)
    buckets = pd.Index(floor.dropna().unique()).sort_values()
    pos_bucket = buckets.get_indexer(floor)  # -1 for profiles without a time
    keep = pos_bucket >= 0
    btot = np.zeros(len(buckets), dtype=np.int64)
    bdur = np.zeros(len(buckets), dtype=np.int64)
    np.add.at(btot, pos_bucket[keep], rows.totals[keep])  # exact int64 sums (bincount goes through float)
    np.add.at(bdur, pos_bucket[keep], rows.durations[keep])
    rb = pos_bucket[rows.pos]
    m = rb >= 0
    rb, codes, vals = rb[m], rows.codes[m], rows.vals[m]
    # sum per (bucket, name): sort by the pair, add each run
    order = np.lexsort((codes, rb))
    rb, codes, vals = rb[order], codes[order], vals[order]
    start = np.flatnonzero(np.r_[True, (rb[1:] != rb[:-1]) | (codes[1:] != codes[:-1])]) if len(rb) else rb
    sums = np.add.reduceat(vals, start) if len(rb) else vals
    nz = sums != 0
    bns = buckets.asi8 if len(buckets) else np.zeros(0, np.int64)
    return Rows(
        rb[start][nz].astype(np.int64),
        codes[start][nz],
        sums[nz],
        rows.cats,
        btot,
        bdur,
        np.asarray(bns, dtype=np.int64),
        rows.type_names,
    )


def finish(rows: Rows, *, by: str, value: str, normalize: Optional[str], bucketed: bool):
    """The series DataFrame of ``rows`` (see :func:`series`); ``bucketed``:
    the rows come from :func:`bucket` (columns ``time, name, value``)."""
    pd = require_pandas()
    if len(rows.type_names) > 1:
        raise ValueError(
            f"series(): profiles picked different sample types {sorted(rows.type_names)}; pass sample_type="
        )
    pos, codes, vals, cats = rows.pos, rows.codes, rows.vals, rows.cats
    ns = np.where(rows.time_ns == 0, np.iinfo(np.int64).min, rows.time_ns)  # 0 = unknown -> NaT
    df = pd.DataFrame(
        {
            "profile": pos,
            "time": pd.to_datetime(ns[pos], unit="ns", utc=True),
            "name": pd.Categorical.from_codes(codes, categories=cats) if cats else pd.Categorical([]),
            "value": vals,
        }
    )
    if normalize is not None:
        denom = rows.totals.astype(np.float64) if normalize == "share" else rows.durations.astype(np.float64) / 1e9
        d = denom[pos]
        with np.errstate(divide="ignore", invalid="ignore"):
            df["value"] = np.where(d != 0, df["value"].to_numpy() / np.where(d != 0, d, 1), np.nan)
    key = "time" if bucketed else "profile"
    df = _ordered(df, key)
    if bucketed:
        df = df.drop(columns="profile")
    df.attrs["sample_type"] = next(iter(rows.type_names)) if rows.type_names else None
    df.attrs["total"] = int(rows.totals.sum())  # pprof's total (sum of |value|) over all profiles
    df.attrs["value"], df.attrs["by"], df.attrs["normalize"] = value, by, normalize
    return df


def series(
    s: "ProfileSet",
    sample_type=None,
    *,
    by: str = "functions",
    value: str = "flat",
    freq=None,
    normalize: Optional[str] = None,
):
    """The value of every key in every profile of ``s``, as a long DataFrame.

    Parameters
    ----------
    sample_type : int or str, optional
        Sample type (default: each profile's default, pprof's rule).
    by : {"functions", "filefunctions", "files", "lines", "addresses"}
        pprof's granularity for the keys.
    value : {"flat", "cum"}
        Flat (self) or cumulative value, exactly as ``pprof -top`` reports them.
    freq : str or pandas offset, optional
        Sum per time bucket (``"1min"``, ``"1h"``...) instead of per profile.
    normalize : {None, "share", "rate"}
        ``"share"``: divide by the total of the profile (or bucket), so values
        are fractions of all samples; ``"rate"``: divide by the profile's (or
        bucket's summed) duration in seconds, e.g. CPU-nanoseconds per second.

    Returns
    -------
    pandas.DataFrame
        Columns ``profile`` (position in the set), ``time`` (UTC),
        ``name`` (categorical), ``value``; one row per profile and key with a
        non-zero value. With ``freq``: ``time, name, value`` per bucket.
        ``attrs["sample_type"]`` names the sample type used, ``attrs["total"]``
        is the summed total of all profiles (pprof's total: sum of |value|).
    """
    require_pandas()
    check_options(by, value, normalize)
    paths = _file_paths(s)
    rows = None
    if paths is not None:
        try:
            rows = rows_from_files(paths, sample_type, by, value, s._threads or 0)
        except _core.DecodeError as e:
            if not failed_on_foreign_file(e):  # JFR, .cpuprofile...: read by load_many below
                raise
    if rows is None:
        work = lambda p: profile_values(p, sample_type, by, value)  # noqa: E731  (C++ aggregation, GIL released)
        rows = collect(s.map(work), len(s))
    if freq is not None:
        rows = bucket(rows, freq)
    return finish(rows, by=by, value=value, normalize=normalize, bucketed=freq is not None)


def _ordered(df, key: str):
    """Rows by ``key``, then largest value first, ties by name, so the order
    does not depend on how each profile numbers its functions (NumPy lexsort
    on codes, not a string sort). Rows already in that order (the C++ file
    path writes them so) are returned as they are: a stable sort would not
    move them."""
    names = df["name"].cat
    cats = np.asarray(names.categories, dtype=object)
    rank = np.empty(len(cats), dtype=np.int64)
    rank[np.argsort(cats, kind="stable")] = np.arange(len(cats))
    codes = names.codes.to_numpy()
    k = df[key].array.asi8 if key == "time" else df[key].to_numpy()
    neg = -df["value"].to_numpy()
    r = rank[codes] if len(cats) else codes
    if _sorted_by(k, neg, r):
        return df
    order = np.lexsort((r, neg, k))
    return df.iloc[order].reset_index(drop=True)


def _sorted_by(k, v, r) -> bool:
    """Whether rows are ascending by ``k``, then ``v``, then ``r`` (NaN never
    counts as in order, so such rows go to the sort)."""
    if len(k) < 2:
        return True
    k0, k1, v0, v1 = k[:-1], k[1:], v[:-1], v[1:]
    ok = (k0 < k1) | ((k0 == k1) & ((v0 < v1) | ((v0 == v1) & (r[:-1] <= r[1:]))))
    return bool(ok.all())


def _file_paths(s: "ProfileSet") -> Optional[List[str]]:
    """The files of ``s`` when every profile is one (the C++ path), else None."""
    src = s._source
    if src.reader is not None:
        return None
    items = [src.items[r] for r in s._rows.tolist()]
    if not all(isinstance(it, (str, os.PathLike)) for it in items):
        return None
    return [os.fspath(it) for it in items]


def rows_from_files(
    paths: List[str], sample_type, by: str, value: str, threads: int = 0, max_size: Optional[int] = None
) -> Rows:
    """Rows straight from the files: C++ workers read each file and reduce it
    to its non-zero node values at once (series.hpp); only rows reach Python.
    ``threads`` 0: all cores; ``max_size``: the decompressed size limit (None:
    the default). The first failing file in order raises what
    :func:`pprofcore.load` raises for it."""
    if isinstance(sample_type, (bool, np.bool_)) or not isinstance(sample_type, (int, np.integer, str, type(None))):
        raise TypeError(f"sample_type must be an index or a type name, not {type(sample_type).__name__}")
    if isinstance(sample_type, np.integer):
        sample_type = int(sample_type)
    limit = _core.DEFAULT_MAX_DECOMPRESSED_SIZE if max_size is None else max_size
    r = _core.series_files(paths, by, value == "cum", sample_type, threads, limit)
    return Rows(
        r["profile"],
        r["name"],
        r["value"],
        r["names"],
        r["total"],
        r["duration_nanos"],
        r["time_nanos"],
        set(r["type_names"]),
    )
