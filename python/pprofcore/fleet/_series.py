"""Per-profile series: flat or cum per key (function, file, line...) over time.

Each profile is aggregated by the C++ node table that backs ``Profile.top``
(``_reports.nodes``); Python only touches one row per *node*, never a sample.
Sets of files take the C++ path (``_core.series_files``): workers decode and
reduce each file, and only the rows come back.
Names are interned into one category list across the set, so the result is a
compact long DataFrame with a categorical ``name`` column."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional

import numpy as np

from .. import _core, _reports
from .._report_table import require_pandas

if TYPE_CHECKING:
    from ._set import ProfileSet

VALUES = ("flat", "cum")
NORMALIZE = (None, "share", "rate")


def profile_values(profile, sample_type, by: str, value: str):
    """``(names, values, total, type_name, time_nanos, duration_nanos)`` of one
    profile: the non-zero flat (or cum) value per node at granularity ``by``,
    as ``pprof -top`` computes them, and the total (sum of |value|)."""
    ti = profile.sample_type_index(sample_type)
    t = _reports.nodes(profile, by, True, ti)
    col = t.columns()[value][:, ti]
    nz = np.flatnonzero(col)
    names = t.printable_names()
    total = int(np.abs(profile.values[:, ti]).sum(dtype=np.int64)) if len(profile) else 0
    return ([names[i] for i in nz.tolist()], col[nz], total, profile.sample_types[ti][0], profile.time_nanos,
            profile.duration_nanos)


def series(s: "ProfileSet", sample_type=None, *, by: str = "functions", value: str = "flat", freq=None,
           normalize: Optional[str] = None):
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
    pd = require_pandas()
    _reports.check_granularity(by)
    if value not in VALUES:
        raise ValueError(f"value must be 'flat' or 'cum', not {value!r}")
    if normalize not in NORMALIZE:
        raise ValueError(f"normalize must be None, 'share' or 'rate', not {normalize!r}")
    paths = _file_paths(s)
    if paths is not None:
        pos, codes, vals, cats, totals, durations, time_ns, type_names = _rows_from_files(
            s, paths, sample_type, by, value)
    else:
        pos, codes, vals, cats, totals, durations, time_ns, type_names = _rows_from_profiles(
            s, sample_type, by, value)
    # the profiles' times from this pass (reading s.profiles would decode every file again)
    ns = np.where(time_ns == 0, np.iinfo(np.int64).min, time_ns)  # 0 = unknown -> NaT
    times = pd.Series(pd.to_datetime(ns, unit="ns", utc=True))
    df = pd.DataFrame({
        "profile": pos,
        "time": pd.to_datetime(ns[pos], unit="ns", utc=True),
        "name": pd.Categorical.from_codes(codes, categories=cats) if cats else pd.Categorical([]),
        "value": vals,
    })
    if len(type_names) > 1:
        raise ValueError(f"series(): profiles picked different sample types {sorted(type_names)}; "
                         f"pass sample_type=")
    if freq is not None:
        df, totals, durations = _bucket(pd, df, times, totals, durations, freq)
        key = "time"
    else:
        key = "profile"
    if normalize is not None:
        denom = totals.astype(np.float64) if normalize == "share" else durations.astype(np.float64) / 1e9
        d = denom[df["_bucket"].to_numpy() if freq is not None else df["profile"].to_numpy()]
        with np.errstate(divide="ignore", invalid="ignore"):
            df["value"] = np.where(d != 0, df["value"].to_numpy() / np.where(d != 0, d, 1), np.nan)
    if "_bucket" in df:
        df = df.drop(columns="_bucket")
    df = _ordered(df, key)
    df.attrs["sample_type"] = next(iter(type_names)) if type_names else None
    df.attrs["total"] = int(totals.sum())  # pprof's total (sum of |value|) over all profiles
    df.attrs["value"], df.attrs["by"], df.attrs["normalize"] = value, by, normalize
    return df


def _file_paths(s: "ProfileSet") -> Optional[List[str]]:
    """The files of ``s`` when every profile is one (the C++ path), else None."""
    src = s._source
    if src.reader is not None:
        return None
    items = [src.items[r] for r in s._rows.tolist()]
    if not all(isinstance(it, (str, os.PathLike)) for it in items):
        return None
    return [os.fspath(it) for it in items]


def _rows_from_files(s: "ProfileSet", paths: List[str], sample_type, by: str, value: str):
    """Rows straight from the files: C++ workers decode each file and reduce
    it to its non-zero node values at once (series.hpp); only rows reach Python."""
    if isinstance(sample_type, (bool, np.bool_)) or not isinstance(sample_type, (int, np.integer, str, type(None))):
        raise TypeError(f"sample_type must be an index or a type name, not {type(sample_type).__name__}")
    if isinstance(sample_type, np.integer):
        sample_type = int(sample_type)
    r = _core.series_files(paths, by, value == "cum", sample_type, s._threads or 0)
    return (r["profile"], r["name"], r["value"], r["names"], r["total"], r["duration_nanos"], r["time_nanos"],
            set(r["type_names"]))


def _rows_from_profiles(s: "ProfileSet", sample_type, by: str, value: str):
    """Rows from Profiles (in-memory profiles, or a store's reader): one C++
    node table per profile, names interned here, one per node."""
    index: Dict[str, int] = {}
    cats: List[str] = []
    pos_parts, code_parts, val_parts = [], [], []
    totals = np.zeros(len(s), dtype=np.int64)
    durations = np.zeros(len(s), dtype=np.int64)
    time_ns = np.zeros(len(s), dtype=np.int64)
    type_names = set()
    work = lambda p: profile_values(p, sample_type, by, value)  # noqa: E731  (C++ aggregation, GIL released)
    for i, (names, vals, tot, tname, tns, dns) in s.map(work):
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
    return pos, codes, vals, cats, totals, durations, time_ns, type_names


def _ordered(df, key: str):
    """Rows by ``key``, then largest value first, ties by name, so the order
    does not depend on how each profile numbers its functions (NumPy lexsort
    on codes, not a string sort)."""
    names = df["name"].cat
    cats = np.asarray(names.categories, dtype=object)
    rank = np.empty(len(cats), dtype=np.int64)
    rank[np.argsort(cats, kind="stable")] = np.arange(len(cats))
    codes = names.codes.to_numpy()
    k = df[key].array.asi8 if key == "time" else df[key].to_numpy()
    order = np.lexsort((rank[codes] if len(cats) else codes, -df["value"].to_numpy(), k))
    return df.iloc[order].reset_index(drop=True)


def _bucket(pd, df, times, totals, durations, freq):
    """Sum rows per time bucket; return the bucket totals and durations too."""
    floor = times.dt.floor(freq)
    buckets = pd.Index(floor.dropna().unique()).sort_values()
    pos_bucket = buckets.get_indexer(floor)  # -1 for profiles without a time
    keep = pos_bucket >= 0
    btot = np.zeros(len(buckets), dtype=np.int64)
    bdur = np.zeros(len(buckets), dtype=np.int64)
    np.add.at(btot, pos_bucket[keep], totals[keep])  # exact int64 sums (bincount goes through float)
    np.add.at(bdur, pos_bucket[keep], durations[keep])
    rb = pos_bucket[df["profile"].to_numpy()]
    df = df.assign(_bucket=rb)[rb >= 0]
    out = (df.groupby(["_bucket", "name"], observed=True, sort=True)["value"].sum().reset_index())
    out = out[out["value"] != 0]
    out.insert(0, "time", buckets[out["_bucket"].to_numpy()])
    return out[["time", "name", "value", "_bucket"]].reset_index(drop=True), btot, bdur
