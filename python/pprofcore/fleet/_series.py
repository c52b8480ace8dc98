"""Per-profile series: flat or cum per key (function, file, line...) over time.

Each profile is aggregated by the C++ node table that backs ``Profile.top``
(``reports._nodes.nodes``); Python only touches one row per *node*, never a sample.
Sets of files take the C++ path (``_core.series_files``): workers decode and
reduce each file, and only the rows come back.
Names are interned into one category list across the set, so the result is a
compact long DataFrame with a categorical ``name`` column. Keys may also be
label values (``by="label:endpoint"``, numbers bucketed in C++), alone or
with a code granularity."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from .._io import failed_on_foreign_file
from .._optional import require_pandas
from ..reports import _nodes

if TYPE_CHECKING:
    from ._set import ProfileSet

VALUES = ("flat", "cum")
NORMALIZE = (None, "share", "rate")
#: ``by`` entries naming a label key start with this.
LABEL_PREFIX = "label:"
#: Standard series columns a label column must not shadow.
_BASE_COLUMNS = ("profile", "time", "name", "value")
#: Shown in ``name`` for samples without the label.
NO_LABEL = "(none)"


class By:
    """A parsed ``by``: the code granularity (``""`` for labels only) and the
    label keys, each ``(key, numbers, edges)`` as the C++ reducer takes it."""

    __slots__ = ("granularity", "labels")

    def __init__(self, granularity: str, labels: List[Tuple[str, str, List[int]]]) -> None:
        self.granularity, self.labels = granularity, labels

    @property
    def keys(self) -> List[str]:
        return [k for k, _, _ in self.labels]

    def columns(self) -> List[str]:
        """The DataFrame column of each label key: the key, or ``label:key``
        where the key is a standard column's name."""
        return [LABEL_PREFIX + k if k in _BASE_COLUMNS else k for k in self.keys]


def parse_by(by: Union[str, Sequence[str]], buckets=None) -> By:
    """``by`` (a granularity, ``"label:KEY"``, or a list of these with at most
    one granularity) and ``buckets`` as a :class:`By`; ValueError otherwise."""
    items = [by] if isinstance(by, str) else list(by)
    if not items or not all(isinstance(x, str) for x in items):
        raise ValueError(f"by must be a granularity, 'label:KEY' or a list of them, not {by!r}")
    granularity = ""
    keys: List[str] = []
    for item in items:
        if item.startswith(LABEL_PREFIX):
            key = item[len(LABEL_PREFIX) :]
            if not key or key in keys:
                raise ValueError(f"by: empty or repeated label key in {item!r}")
            keys.append(key)
        elif granularity:
            raise ValueError(f"by: at most one granularity, got {granularity!r} and {item!r}")
        else:
            granularity = _nodes.check_granularity(item, "by=")
    if not keys and not granularity:
        raise ValueError("by: nothing to split by")
    if buckets is not None and not keys:
        raise ValueError("buckets= applies to label keys only")
    return By(granularity, [(k, *_numbers(k, buckets)) for k in keys])


def _numbers(key: str, buckets) -> Tuple[str, List[int]]:
    """How numeric values of ``key`` are bucketed: ``("pow2", [])``,
    ``("exact", [])`` or ``("edges", sorted edges)``."""
    spec = buckets.get(key) if isinstance(buckets, dict) else buckets
    if spec is None or spec == "pow2":
        return "pow2", []
    if spec == "exact":
        return "exact", []
    if isinstance(spec, str):
        raise ValueError(f"buckets for {key!r}: 'pow2', 'exact' or a list of edges, not {spec!r}")
    edges = [int(e) for e in spec]
    if not edges or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"buckets for {key!r}: edges must be non-empty and strictly increasing, got {edges}")
    return "edges", edges


def profile_values(profile, sample_type, by: str, value: str):
    """``(names, values, total, type_name, time_nanos, duration_nanos)`` of one
    profile: the non-zero flat (or cum) value per node at granularity ``by``,
    as ``pprof -top`` computes them, and the total (sum of ``|value|``)."""
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


def check_options(by, value: str, normalize: Optional[str], buckets=None) -> By:
    """The parsed ``by``; ``ValueError`` for an unknown granularity, label
    spec, value or normalization."""
    spec = parse_by(by, buckets)
    if value not in VALUES:
        raise ValueError(f"value must be 'flat' or 'cum', not {value!r}")
    if normalize not in NORMALIZE:
        raise ValueError(f"normalize must be None, 'share' or 'rate', not {normalize!r}")
    return spec


class Rows:
    """The rows of a series before they become a DataFrame: one entry per
    (profile, key) with a non-zero value, names interned in order of first
    appearance, and each profile's total, duration and time. A "profile" may
    also be a time bucket (:func:`bucket`). Distributed callers build one per
    chunk of files and :func:`concat` them. ``labels``: with label keys, the
    label values of each name (a tuple per name, None where samples lack the
    key)."""

    __slots__ = ("pos", "codes", "vals", "cats", "totals", "durations", "time_ns", "type_names", "labels")

    def __init__(
        self, pos, codes, vals, cats: List[str], totals, durations, time_ns, type_names: set, labels=None
    ) -> None:
        self.pos, self.codes, self.vals, self.cats = pos, codes, vals, cats
        self.totals, self.durations, self.time_ns, self.type_names = totals, durations, time_ns, type_names
        self.labels: Optional[List[tuple]] = labels


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
    labels: Optional[List[tuple]] = [] if parts and parts[0].labels is not None else None
    offset = 0
    for r in parts:
        remap = np.empty(len(r.cats), dtype=np.int32)
        for k, name in enumerate(r.cats):
            c = index.get(name)
            if c is None:
                c = index[name] = len(cats)
                cats.append(name)
                if labels is not None:
                    labels.append(r.labels[k])  # type: ignore[index]
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
        labels,
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
        rows.labels,
    )


def finish(rows: Rows, *, by, value: str, normalize: Optional[str], bucketed: bool, buckets=None, fill=None):
    """The series DataFrame of ``rows`` (see :func:`series`); ``bucketed``:
    the rows come from :func:`bucket` (columns ``time, name, value``)."""
    pd = require_pandas()
    if len(rows.type_names) > 1:
        raise ValueError(
            f"series(): profiles picked different sample types {sorted(rows.type_names)}; pass sample_type="
        )
    spec = parse_by(by, buckets)
    pos, codes, vals, cats = rows.pos, rows.codes, rows.vals, rows.cats
    if normalize is not None:
        denom = rows.totals.astype(np.float64) if normalize == "share" else rows.durations.astype(np.float64) / 1e9
        d = denom[pos]
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = np.where(d != 0, vals / np.where(d != 0, d, 1), np.nan)
    if fill is not None:
        pos, codes, vals = _dense(pos, codes, vals, len(rows.totals), len(cats), fill)
    # Ordered before the frame is built: a pandas take of the finished frame
    # costs more than the rest of finish() together.
    order = _row_order(pos, vals, codes, cats)
    if order is not None:
        pos, codes, vals = pos[order], codes[order], vals[order]
    ns = np.where(rows.time_ns == 0, np.iinfo(np.int64).min, rows.time_ns)  # 0 = unknown -> NaT
    df = pd.DataFrame(
        {
            "profile": pos,
            "time": pd.to_datetime(ns[pos], unit="ns", utc=True),
            "name": pd.Categorical.from_codes(codes, categories=cats) if cats else pd.Categorical([]),
            "value": vals,
        }
    )
    for j, column in enumerate(spec.columns()):
        df[column] = _label_column(pd, rows.labels or [], j, codes)
    if bucketed:
        df = df.drop(columns="profile")
    df.attrs["sample_type"] = next(iter(rows.type_names)) if rows.type_names else None
    df.attrs["total"] = int(rows.totals.sum())  # pprof's total (sum of |value|) over all profiles
    df.attrs["value"], df.attrs["by"], df.attrs["normalize"] = value, by, normalize
    df.attrs["fill"] = fill
    return df


def _dense(pos, codes, vals, n_profiles: int, n_names: int, fill):
    """Every (profile, name) pair, ``fill`` where ``vals`` has no row."""
    integral = vals.dtype.kind == "i" and float(fill).is_integer()
    full = np.full(n_profiles * n_names, fill, dtype=np.int64 if integral else np.float64)
    full[pos * n_names + codes] = vals
    return (
        np.repeat(np.arange(n_profiles, dtype=np.int64), n_names),
        np.tile(np.arange(n_names, dtype=np.int32), n_profiles),
        full,
    )


def _label_column(pd, labels: List[tuple], j: int, codes):
    """Label ``j`` of each row's name as a categorical (NaN where absent)."""
    values = [t[j] for t in labels]
    uniq = sorted({v for v in values if v is not None})
    at = {v: k for k, v in enumerate(uniq)}
    per_name = np.array([at[v] if v is not None else -1 for v in values], dtype=np.int32)
    return pd.Categorical.from_codes(per_name[codes] if len(per_name) else codes, categories=uniq)


def series(
    s: "ProfileSet",
    sample_type=None,
    *,
    by: Union[str, Sequence[str]] = "functions",
    value: str = "flat",
    freq=None,
    normalize: Optional[str] = None,
    buckets=None,
    fill=None,
):
    """Flat or cum value of every key (code granularity and/or label values,
    ``by=["label:endpoint", "functions"]``) in every profile of ``s``, as a
    long DataFrame; sparse by default, dense with ``fill=0``.
    ``s.series(...)`` is ``series(s, ...)``.

    Parameters
    ----------
    sample_type : int or str, optional
        Sample type (default: each profile's default, pprof's rule).
    by : str or list of str
        pprof's granularity for the keys (``"functions"``, ``"filefunctions"``,
        ``"files"``, ``"lines"``, ``"addresses"``) or ours (``"packages"``: Go
        import path, Java package, C++/Rust namespace, Python module;
        ``"binaries"``: the mapping's file), a label key (``"label:endpoint"``),
        or a list of label keys with at most one granularity
        (``["label:endpoint", "functions"]``). A sample counts for the first
        value of each key it carries; samples without the key count for "no
        value". With labels only, flat and cum are the sample's value.
    value : {"flat", "cum"}
        Flat (self) or cumulative value, exactly as ``pprof -top`` reports them.
    freq : str or pandas offset, optional
        Sum per time bucket (``"1min"``, ``"1h"``...) instead of per profile.
    normalize : {None, "share", "rate"}
        ``"share"``: divide by the total of the profile (or bucket), so values
        are fractions of all samples; ``"rate"``: divide by the profile's (or
        bucket's summed) duration in seconds, e.g. CPU-nanoseconds per second.
    buckets : None, "pow2", "exact", list of int, or dict
        How numeric label values become keys: ``None``/``"pow2"`` (default)
        power-of-two buckets ``[2^k, 2^(k+1))`` (``"0"`` alone, negatives
        mirrored); ``"exact"`` each number alone; a list of increasing edges
        ``[e0, e1, ...]`` gives ``"< e0"``, ``"[e0, e1)"``..., ``">= en"``; a
        dict maps a label key to one of these. String values are kept as they are.
    fill : number, optional
        Default None: sparse, one row per profile and key with a non-zero
        value. A number (``fill=0``): dense, every key in every profile (or
        bucket), absent ones given ``fill``, so that per-profile means and
        ``pivot`` need no filling by hand (memory grows as profiles x keys).

    Returns
    -------
    pandas.DataFrame
        Columns ``profile`` (position in the set), ``time`` (UTC),
        ``name`` (categorical), ``value``; with ``freq``: ``time, name, value``
        per bucket. With label keys, ``name`` is the key's values joined as
        ``"endpoint=/api | version=v2 | main.f"`` (one label alone: just its
        value; ``"(none)"`` for samples without it) and each label key adds a
        categorical column of that name (``label:KEY`` where KEY is one of the
        four columns' names), NaN for samples without the label.
        ``attrs["sample_type"]`` names the sample type used, ``attrs["total"]``
        is the summed total of all profiles (pprof's total: sum of ``|value|``).

    Examples
    --------
    >>> s = pprofcore.ProfileSet([pprofcore.example_path()] * 3)
    >>> df = pprofcore.fleet.series(s)
    >>> df.columns.tolist()
    ['profile', 'time', 'name', 'value']
    >>> df.head(2)["value"].tolist()
    [1130000000, 510000000]
    """
    require_pandas()
    rows = set_rows(s, sample_type, check_options(by, value, normalize, buckets), value)
    if freq is not None:
        rows = bucket(rows, freq)
    return finish(rows, by=by, value=value, normalize=normalize, bucketed=freq is not None, buckets=buckets, fill=fill)


def set_rows(s: "ProfileSet", sample_type, spec: By, value: str) -> Rows:
    """The :class:`Rows` of every profile of ``s`` (files: straight from the
    C++ reader; other profiles a chunk at a time)."""
    paths = _file_paths(s)
    if paths is not None:
        try:
            return rows_from_files(paths, sample_type, spec, value, s._threads or 0)
        except _core.DecodeError as e:
            if not failed_on_foreign_file(e):  # JFR, .cpuprofile...: read by load_many below
                raise
    if spec.labels:
        parts = [rows_from_profiles(ps, sample_type, spec, value, s._threads or 0) for _, ps in s.chunks()]
        return concat(parts) if parts else rows_from_profiles([], sample_type, spec, value)
    work = lambda p: profile_values(p, sample_type, spec.granularity, value)  # noqa: E731  (C++ aggregation, GIL released)
    return collect(s.map(work), len(s))


def _row_order(pos, vals, codes, cats: List[str]):
    """The order of rows by ``pos`` (profile, or time bucket: buckets are
    numbered in time order), then largest value first, ties by name, so the
    order does not depend on how each profile numbers its functions (NumPy
    lexsort on codes, not a string sort); None when the rows are in that
    order already (the C++ file path writes them so)."""
    names = np.asarray(cats, dtype=object)
    rank = np.empty(len(names), dtype=np.int64)
    rank[np.argsort(names, kind="stable")] = np.arange(len(names))
    neg = -vals
    r = rank[codes] if len(names) else codes
    if _sorted_by(pos, neg, r):
        return None
    return np.lexsort((r, neg, pos))


def _sorted_by(k, v, r) -> bool:
    """Whether rows are ascending by ``k``, then ``v``, then ``r`` (NaN never
    counts as in order, so such rows go to the sort)."""
    if len(k) < 2:
        return True
    k0, k1, v0, v1 = k[:-1], k[1:], v[:-1], v[1:]
    ok = (k0 < k1) | ((k0 == k1) & ((v0 < v1) | ((v0 == v1) & (r[:-1] <= r[1:]))))
    return bool(ok.all())


def _file_paths(s: "ProfileSet") -> Optional[List[str]]:
    """The files of ``s`` when every profile is one read as it is (the C++
    path), else None (repairs and symbolization run on Profiles)."""
    src = s._source
    if src.reader is not None or src.prepare is not None:
        return None
    items = [src.items[r] for r in s._rows.tolist()]
    if not all(isinstance(it, (str, os.PathLike)) for it in items):
        return None
    return [os.fspath(it) for it in items]


def _check_sample_type(sample_type):
    if isinstance(sample_type, (bool, np.bool_)) or not isinstance(sample_type, (int, np.integer, str, type(None))):
        raise TypeError(f"sample_type must be an index or a type name, not {type(sample_type).__name__}")
    return int(sample_type) if isinstance(sample_type, np.integer) else sample_type


def rows_from_files(
    paths: List[str], sample_type, by, value: str, threads: int = 0, max_size: Optional[int] = None
) -> Rows:
    """Rows straight from the files: C++ workers read each file and reduce it
    to its non-zero key values at once (series.hpp); only rows reach Python.
    ``by``: a granularity or a :class:`By`; ``threads`` 0: all cores;
    ``max_size``: the decompressed size limit (None: the default). The first
    failing file in order raises what :func:`pprofcore.load` raises for it."""
    sample_type = _check_sample_type(sample_type)
    spec = by if isinstance(by, By) else parse_by(by)
    limit = _core.DEFAULT_MAX_DECOMPRESSED_SIZE if max_size is None else max_size
    r = _core.series_files(paths, spec.granularity, value == "cum", sample_type, threads, limit, spec.labels)
    return _rows(r, spec)


def rows_from_profiles(profiles: Sequence, sample_type, by, value: str, threads: int = 0) -> Rows:
    """:func:`rows_from_files` for decoded profiles (the same C++ reduction)."""
    sample_type = _check_sample_type(sample_type)
    spec = by if isinstance(by, By) else parse_by(by)
    r = _core.series_profiles(
        [p._core for p in profiles], spec.granularity, value == "cum", sample_type, threads, spec.labels
    )
    return _rows(r, spec)


def _rows(r: dict, spec: By) -> Rows:
    """Rows of a C++ result; with labels, names are built from the key table."""
    rows = Rows(
        r["profile"],
        r["name"],
        r["value"],
        r["names"],
        r["total"],
        r["duration_nanos"],
        r["time_nanos"],
        set(r["type_names"]),
    )
    if not spec.labels:
        return rows
    values, nodes = r["label_values"], r["names"]
    width = len(spec.labels)
    matrix = r["key_labels"].reshape(-1, width).tolist()
    rows.labels = [tuple(values[c] if c >= 0 else None for c in codes) for codes in matrix]
    rows.cats = [_key_name(spec, t, nodes[n] if n >= 0 else None) for t, n in zip(rows.labels, r["key_node"].tolist())]
    # Names are shown joined: re-intern so that equal names are one key.
    return concat([rows]) if len(set(rows.cats)) != len(rows.cats) else rows


def _key_name(spec: By, labels: tuple, node: Optional[str]) -> str:
    if node is None and len(labels) == 1:
        return NO_LABEL if labels[0] is None else labels[0]
    parts = [f"{k}={NO_LABEL if v is None else v}" for k, v in zip(spec.keys, labels)]
    return " | ".join(parts + ([node] if node is not None else []))
